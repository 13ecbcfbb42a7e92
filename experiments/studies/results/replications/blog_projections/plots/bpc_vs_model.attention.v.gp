# Test bpc against model.attention.v, from comparisons.csv.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot bpc_vs_model.attention.v.gp
# Data: data/bpc_vs_model.attention.v.dat

if (!exists("svg_file")) svg_file = 'bpc_vs_model.attention.v.svg'
if (!exists("png_file")) png_file = 'bpc_vs_model.attention.v.png'
set terminal svg size 800,586 noenhanced background '#ffffff'
set output svg_file
set title "Test bpc by model.attention.v (lower is better)\ntest split, validation-selected step: mean and 95% interval over seeds\n(as in comparisons.csv); dots: each seed's value"
set xlabel 'model.attention.v'
set ylabel 'test bpc'
set xrange [-0.5:1.5]
set xtics ('projected' 0, 'identity' 1)
set grid ytics
set key outside below maxrows 8 title "qk = model.attention.qk"
set offsets 0, 0, graph 0.05, graph 0.05
plot 'data/bpc_vs_model.attention.v.dat' index 1 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#0072b2' dt 1 title 'qk=separate', \
     '' index 3 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0d55e00' notitle, \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#d55e00' dt 1 title 'qk=identity'
set terminal pngcairo size 800,586 noenhanced background '#ffffff'
set output png_file
replot
set output
