# Test bpc against model.attention.qk, from comparisons.csv.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot bpc_vs_model.attention.qk.gp
# Data: data/bpc_vs_model.attention.qk.dat

if (!exists("svg_file")) svg_file = 'bpc_vs_model.attention.qk.svg'
if (!exists("png_file")) png_file = 'bpc_vs_model.attention.qk.png'
set terminal svg size 800,564 noenhanced background '#ffffff'
set output svg_file
set title "Test bpc by model.attention.qk (lower is better)\ntest split, validation-selected step: mean and 95% interval over seeds\n(as in comparisons.csv); dots: each seed's value"
set xlabel 'model.attention.qk'
set ylabel 'test bpc'
set xrange [-0.5:1.5]
set xtics ('separate' 0, '{ bias = false, eps = 1e-06, kind = qk_norm }' 1)
set grid ytics
set key outside below maxrows 8 title "qk = model.attention.qk"
set offsets 0, 0, graph 0.05, graph 0.05
plot 'data/bpc_vs_model.attention.qk.dat' index 1 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#0072b2' dt 1 title 'mean and 95% interval over seeds'
set terminal pngcairo size 800,564 noenhanced background '#ffffff'
set output png_file
replot
set output
