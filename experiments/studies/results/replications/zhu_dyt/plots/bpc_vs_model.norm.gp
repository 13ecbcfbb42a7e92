# Test bpc against model.norm, from comparisons.csv.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot bpc_vs_model.norm.gp
# Data: data/bpc_vs_model.norm.dat

if (!exists("svg_file")) svg_file = 'bpc_vs_model.norm.svg'
if (!exists("png_file")) png_file = 'bpc_vs_model.norm.png'
set terminal svg size 800,564 noenhanced background '#ffffff'
set output svg_file
set title "Test bpc by model.norm (lower is better)\ntest split, validation-selected step: mean and 95% interval over seeds\n(as in comparisons.csv); dots: each seed's value"
set xlabel 'model.norm'
set ylabel 'test bpc'
set xrange [-0.5:3.5]
set xtics ('{ kind = layer, placement = pre }' 0, '{ alpha_init = 0.5, kind = dyt, placement = pre }' 1, '{ alpha_init = 1.0, kind = dyt, placement = pre }' 2, '{ kind = none, placement = pre }' 3)
set grid ytics
set key outside below maxrows 8 title "norm = model.norm"
set offsets 0, 0, graph 0.05, graph 0.05
plot 'data/bpc_vs_model.norm.dat' index 1 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#0072b2' dt 1 title 'mean and 95% interval over seeds'
set terminal pngcairo size 800,564 noenhanced background '#ffffff'
set output png_file
replot
set output
