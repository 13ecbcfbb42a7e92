# Validation MAE per forecast horizon per sweep point.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot mae_by_horizon.gp
# Data: data/mae_by_horizon.dat

if (!exists("svg_file")) svg_file = 'mae_by_horizon.svg'
if (!exists("png_file")) png_file = 'mae_by_horizon.png'
set terminal svg size 800,654 noenhanced background '#ffffff'
set output svg_file
set title "Validation MAE by forecast horizon (lower is better)\nvalidation split, at the step validation selected (the test set has no per-horizon MAE); thin lines: each seed; bold: the mean over seeds"
set xlabel 'horizon (steps ahead)'
set ylabel 'validation MAE'
set xrange [0.5:8.5]
set xtics 1
set grid
set key outside below title "readout = model.readout, kind = model.positions.kind"
plot 'data/mae_by_horizon.dat' index 1 using 1:2 with lines lw 1 lc rgb '#b00072b2' notitle, \
     '' index 0 using 1:2 with linespoints lw 2 pt 7 lc rgb '#0072b2' dt 1 title 'readout=flatten kind=sinusoidal', \
     '' index 3 using 1:2 with lines lw 1 lc rgb '#b0d55e00' notitle, \
     '' index 2 using 1:2 with linespoints lw 2 pt 7 lc rgb '#d55e00' dt 1 title 'readout=flatten kind=learned', \
     '' index 5 using 1:2 with lines lw 1 lc rgb '#b0009e73' notitle, \
     '' index 4 using 1:2 with linespoints lw 2 pt 7 lc rgb '#009e73' dt 1 title 'readout=flatten kind=none', \
     '' index 7 using 1:2 with lines lw 1 lc rgb '#b0cc79a7' notitle, \
     '' index 6 using 1:2 with linespoints lw 2 pt 7 lc rgb '#cc79a7' dt 1 title 'readout=mean kind=sinusoidal', \
     '' index 9 using 1:2 with lines lw 1 lc rgb '#b0e69f00' notitle, \
     '' index 8 using 1:2 with linespoints lw 2 pt 7 lc rgb '#e69f00' dt 1 title 'readout=mean kind=learned', \
     '' index 11 using 1:2 with lines lw 1 lc rgb '#b056b4e9' notitle, \
     '' index 10 using 1:2 with linespoints lw 2 pt 7 lc rgb '#56b4e9' dt 1 title 'readout=mean kind=none'
set terminal pngcairo size 800,654 noenhanced background '#ffffff'
set output png_file
replot
set output
