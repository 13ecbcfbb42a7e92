# Test mse against model.positions.kind, from comparisons.csv.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot mse_vs_model.positions.kind.gp
# Data: data/mse_vs_model.positions.kind.dat

if (!exists("svg_file")) svg_file = 'mse_vs_model.positions.kind.svg'
if (!exists("png_file")) png_file = 'mse_vs_model.positions.kind.png'
set terminal svg size 800,586 noenhanced background '#ffffff'
set output svg_file
set title "Test mse by model.positions.kind (lower is better)\ntest split, validation-selected step: mean and 95% interval over seeds\n(as in comparisons.csv); dots: each seed's value"
set xlabel 'model.positions.kind'
set ylabel 'test mse'
set xrange [-0.5:2.5]
set xtics ('sinusoidal' 0, 'learned' 1, 'none' 2)
set grid ytics
set key outside below maxrows 8 title "readout = model.readout"
set offsets 0, 0, graph 0.05, graph 0.05
plot 'data/mse_vs_model.positions.kind.dat' index 1 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#0072b2' dt 1 title 'readout=flatten', \
     '' index 3 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0d55e00' notitle, \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#d55e00' dt 1 title 'readout=mean'
set terminal pngcairo size 800,586 noenhanced background '#ffffff'
set output png_file
replot
set output
