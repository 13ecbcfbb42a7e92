# Test sequence_accuracy by test length per sweep point.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot sequence_accuracy_by_length.gp
# Data: data/sequence_accuracy_by_length.dat

if (!exists("svg_file")) svg_file = 'sequence_accuracy_by_length.svg'
if (!exists("png_file")) png_file = 'sequence_accuracy_by_length.png'
set terminal svg size 800,740 noenhanced background '#ffffff'
set output svg_file
set title 'Test sequence_accuracy by length (mean over seeds)'
set xlabel 'test length (source tokens)'
set ylabel 'sequence_accuracy'
set xrange [12.5:24.5]
set grid
set key outside below height 1
plot 'data/sequence_accuracy_by_length.dat' index 0 using 1:2 with linespoints lw 2 pt 7 lc 1 dt 1 title 'task.kind=copy model.positions.kind=none', \
     '' index 1 using 1:2 with linespoints lw 2 pt 7 lc 2 dt 1 title 'task.kind=copy model.positions.kind=sinusoidal', \
     '' index 2 using 1:2 with linespoints lw 2 pt 7 lc 3 dt 1 title 'task.kind=copy model.positions.kind=learned', \
     '' index 3 using 1:2 with linespoints lw 2 pt 7 lc 4 dt 1 title 'task.kind=copy model.positions.kind=rotary', \
     '' index 4 using 1:2 with linespoints lw 2 pt 7 lc 5 dt 1 title 'task.kind=copy model.positions.kind=alibi', \
     '' index 5 using 1:2 with linespoints lw 2 pt 7 lc 6 dt 1 title 'task.kind=reverse model.positions.kind=none', \
     '' index 6 using 1:2 with linespoints lw 2 pt 7 lc 7 dt 1 title 'task.kind=reverse model.positions.kind=sinusoidal', \
     '' index 7 using 1:2 with linespoints lw 2 pt 7 lc 8 dt 1 title 'task.kind=reverse model.positions.kind=learned', \
     '' index 8 using 1:2 with linespoints lw 2 pt 7 lc 1 dt 2 title 'task.kind=reverse model.positions.kind=rotary', \
     '' index 9 using 1:2 with linespoints lw 2 pt 7 lc 2 dt 2 title 'task.kind=reverse model.positions.kind=alibi'
set terminal pngcairo size 800,740 noenhanced background '#ffffff'
set output png_file
replot
set output
