# Test bpc against train.lr, from comparisons.csv.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot bpc_vs_train.lr.gp
# Data: data/bpc_vs_train.lr.dat

if (!exists("svg_file")) svg_file = 'bpc_vs_train.lr.svg'
if (!exists("png_file")) png_file = 'bpc_vs_train.lr.png'
set terminal svg size 800,564 noenhanced background '#ffffff'
set output svg_file
set title "Test bpc by train.lr (lower is better)\ntest split, validation-selected step: mean and 95% interval over seeds\n(as in comparisons.csv); dots: each seed's value"
set xlabel 'train.lr'
set ylabel 'test bpc'
set xrange [-0.5:0.5]
set xtics ('0.00125' 0)
set grid ytics
set key outside below maxrows 8 title "d_k = model.attention.d_k, scale = model.attention.scale"
set offsets 0, 0, graph 0.05, graph 0.05
plot 'data/bpc_vs_train.lr.dat' index 1 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#0072b2' dt 1 title 'mean and 95% interval over seeds'
set terminal pngcairo size 800,564 noenhanced background '#ffffff'
set output png_file
replot
set output
