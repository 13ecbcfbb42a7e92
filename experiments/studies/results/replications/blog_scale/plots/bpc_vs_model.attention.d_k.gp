# Test bpc against model.attention.d_k, from comparisons.csv.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot bpc_vs_model.attention.d_k.gp
# Data: data/bpc_vs_model.attention.d_k.dat

if (!exists("svg_file")) svg_file = 'bpc_vs_model.attention.d_k.svg'
if (!exists("png_file")) png_file = 'bpc_vs_model.attention.d_k.png'
set terminal svg size 800,586 noenhanced background '#ffffff'
set output svg_file
set title "Test bpc by model.attention.d_k (lower is better)\ntest split, validation-selected step: mean and 95% interval over seeds\n(as in comparisons.csv); dots: each seed's value"
set xlabel 'model.attention.d_k'
set ylabel 'test bpc'
set xrange [-0.5:2.5]
set xtics ('8' 0, '32' 1, '128' 2)
set grid ytics
set key outside below maxrows 8 title "scale = model.attention.scale"
set offsets 0, 0, graph 0.05, graph 0.05
plot 'data/bpc_vs_model.attention.d_k.dat' index 1 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#0072b2' dt 1 title 'scale=sqrt_dk', \
     '' index 3 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0d55e00' notitle, \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#d55e00' dt 1 title 'scale={ kind = constant, value = 0.5 }'
set terminal pngcairo size 800,586 noenhanced background '#ffffff'
set output png_file
replot
set output
