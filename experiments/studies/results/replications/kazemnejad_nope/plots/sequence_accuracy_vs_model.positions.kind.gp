# Test sequence_accuracy against model.positions.kind, from comparisons.csv.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot sequence_accuracy_vs_model.positions.kind.gp
# Data: data/sequence_accuracy_vs_model.positions.kind.dat

if (!exists("svg_file")) svg_file = 'sequence_accuracy_vs_model.positions.kind.svg'
if (!exists("png_file")) png_file = 'sequence_accuracy_vs_model.positions.kind.png'
set terminal svg size 800,564 noenhanced background '#ffffff'
set output svg_file
set title "Test sequence_accuracy by model.positions.kind (higher is better)\ntest split, validation-selected step: mean and 95% interval over seeds\n(as in comparisons.csv); dots: each seed's value"
set xlabel 'model.positions.kind'
set ylabel 'test sequence_accuracy'
set xrange [-0.5:5.5]
set xtics ('none' 0, 'sinusoidal' 1, 't5_bias' 2, 'rotary' 3, 'alibi' 4, 'learned' 5) rotate by -30
set grid ytics
set key outside below maxrows 8
set offsets 0, 0, graph 0.05, graph 0.05
plot 'data/sequence_accuracy_vs_model.positions.kind.dat' index 1 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#0072b2' dt 1 title 'task.kind=copy', \
     '' index 3 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0d55e00' notitle, \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#d55e00' dt 1 title 'task.kind=reverse'
set terminal pngcairo size 800,564 noenhanced background '#ffffff'
set output png_file
replot
set output
