# Test sequence_accuracy by test length per sweep point, from comparisons.csv.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot sequence_accuracy_by_length.gp
# Data: data/sequence_accuracy_by_length.dat

if (!exists("svg_file")) svg_file = 'sequence_accuracy_by_length.svg'
if (!exists("png_file")) png_file = 'sequence_accuracy_by_length.png'
set terminal svg size 800,806 noenhanced background '#ffffff'
set output svg_file
set title "Test sequence_accuracy by length (higher is better)\ntest split, validation-selected step: mean and 95% interval over seeds\n(as in comparisons.csv); dots: each seed's value"
set xlabel 'test length (source tokens)'
set ylabel 'test sequence_accuracy'
set xrange [12.5:24.5]
set grid
set key outside below title "positions.kind = model.positions.kind"
plot 'data/sequence_accuracy_by_length.dat' index 1 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#0072b2' dt 1 title 'task.kind=copy positions.kind=none', \
     '' index 3 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0d55e00' notitle, \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#d55e00' dt 1 title 'task.kind=copy positions.kind=sinusoidal', \
     '' index 5 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0009e73' notitle, \
     '' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#009e73' dt 1 title 'task.kind=copy positions.kind=t5_bias', \
     '' index 7 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0cc79a7' notitle, \
     '' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#cc79a7' dt 1 title 'task.kind=copy positions.kind=rotary', \
     '' index 9 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0e69f00' notitle, \
     '' index 8 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#e69f00' dt 1 title 'task.kind=copy positions.kind=alibi', \
     '' index 11 using 1:2 with points pt 7 ps 0.5 lc rgb '#a056b4e9' notitle, \
     '' index 10 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#56b4e9' dt 1 title 'task.kind=copy positions.kind=learned', \
     '' index 13 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0000000' notitle, \
     '' index 12 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#000000' dt 1 title 'task.kind=reverse positions.kind=none', \
     '' index 15 using 1:2 with points pt 7 ps 0.5 lc rgb '#a09400d3' notitle, \
     '' index 14 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#9400d3' dt 1 title 'task.kind=reverse positions.kind=sinusoidal', \
     '' index 17 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 16 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#0072b2' dt 2 title 'task.kind=reverse positions.kind=t5_bias', \
     '' index 19 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0d55e00' notitle, \
     '' index 18 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#d55e00' dt 2 title 'task.kind=reverse positions.kind=rotary', \
     '' index 21 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0009e73' notitle, \
     '' index 20 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#009e73' dt 2 title 'task.kind=reverse positions.kind=alibi', \
     '' index 23 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0cc79a7' notitle, \
     '' index 22 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#cc79a7' dt 2 title 'task.kind=reverse positions.kind=learned'
set terminal pngcairo size 800,806 noenhanced background '#ffffff'
set output png_file
replot
set output
