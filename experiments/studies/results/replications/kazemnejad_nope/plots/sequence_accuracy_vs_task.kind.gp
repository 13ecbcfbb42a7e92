# Test sequence_accuracy against task.kind, from comparisons.csv.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot sequence_accuracy_vs_task.kind.gp
# Data: data/sequence_accuracy_vs_task.kind.dat

if (!exists("svg_file")) svg_file = 'sequence_accuracy_vs_task.kind.svg'
if (!exists("png_file")) png_file = 'sequence_accuracy_vs_task.kind.png'
set terminal svg size 800,674 noenhanced background '#ffffff'
set output svg_file
set title "Test sequence_accuracy by task.kind (higher is better)\ntest split, validation-selected step: mean and 95% interval over seeds\n(as in comparisons.csv); dots: each seed's value"
set xlabel 'task.kind'
set ylabel 'test sequence_accuracy'
set xrange [-0.5:1.5]
set xtics ('copy' 0, 'reverse' 1)
set grid ytics
set key outside below maxrows 8 title "positions.kind = model.positions.kind"
set offsets 0, 0, graph 0.05, graph 0.05
plot 'data/sequence_accuracy_vs_task.kind.dat' index 1 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#0072b2' dt 1 title 'positions.kind=none', \
     '' index 3 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0d55e00' notitle, \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#d55e00' dt 1 title 'positions.kind=sinusoidal', \
     '' index 5 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0009e73' notitle, \
     '' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#009e73' dt 1 title 'positions.kind=t5_bias', \
     '' index 7 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0cc79a7' notitle, \
     '' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#cc79a7' dt 1 title 'positions.kind=rotary', \
     '' index 9 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0e69f00' notitle, \
     '' index 8 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#e69f00' dt 1 title 'positions.kind=alibi', \
     '' index 11 using 1:2 with points pt 7 ps 0.5 lc rgb '#a056b4e9' notitle, \
     '' index 10 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#56b4e9' dt 1 title 'positions.kind=learned'
set terminal pngcairo size 800,674 noenhanced background '#ffffff'
set output png_file
replot
set output
