# Test bpc against model.attention.d_v, from comparisons.csv.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot bpc_vs_model.attention.d_v.gp
# Data: data/bpc_vs_model.attention.d_v.dat

if (!exists("svg_file")) svg_file = 'bpc_vs_model.attention.d_v.svg'
if (!exists("png_file")) png_file = 'bpc_vs_model.attention.d_v.png'
set terminal svg size 800,718 noenhanced background '#ffffff'
set output svg_file
set title "Test bpc by model.attention.d_v (lower is better)\ntest split, validation-selected step: mean and 95% interval over seeds\n(as in comparisons.csv); dots: each seed's value"
set xlabel 'model.attention.d_v'
set ylabel 'test bpc'
set xrange [-0.5:4.5]
set xtics ('16' 0, '64' 1, '32' 2, '8' 3, '4' 4)
set grid ytics
set key outside below maxrows 8 title "heads = model.heads, d_k = model.attention.d_k\nkind = model.positions.kind"
set offsets 0, 0, graph 0.05, graph 0.05
plot 'data/bpc_vs_model.attention.d_v.dat' index 1 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#0072b2' dt 1 title 'heads=4 d_k=16 kind=sinusoidal', \
     '' index 3 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0d55e00' notitle, \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#d55e00' dt 1 title 'heads=1 d_k=64 kind=sinusoidal', \
     '' index 5 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0009e73' notitle, \
     '' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#009e73' dt 1 title 'heads=2 d_k=32 kind=sinusoidal', \
     '' index 7 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0cc79a7' notitle, \
     '' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#cc79a7' dt 1 title 'heads=8 d_k=8 kind=sinusoidal', \
     '' index 9 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0e69f00' notitle, \
     '' index 8 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#e69f00' dt 1 title 'heads=16 d_k=4 kind=sinusoidal', \
     '' index 11 using 1:2 with points pt 7 ps 0.5 lc rgb '#a056b4e9' notitle, \
     '' index 10 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#56b4e9' dt 1 title 'heads=1 d_k=16 kind=sinusoidal', \
     '' index 13 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0000000' notitle, \
     '' index 12 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#000000' dt 1 title 'heads=2 d_k=16 kind=sinusoidal', \
     '' index 15 using 1:2 with points pt 7 ps 0.5 lc rgb '#a09400d3' notitle, \
     '' index 14 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#9400d3' dt 1 title 'heads=8 d_k=16 kind=sinusoidal', \
     '' index 17 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 16 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#0072b2' dt 2 title 'heads=16 d_k=16 kind=sinusoidal', \
     '' index 19 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0d55e00' notitle, \
     '' index 18 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#d55e00' dt 2 title 'heads=4 d_k=4 kind=sinusoidal', \
     '' index 21 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0009e73' notitle, \
     '' index 20 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#009e73' dt 2 title 'heads=4 d_k=8 kind=sinusoidal', \
     '' index 23 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0cc79a7' notitle, \
     '' index 22 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#cc79a7' dt 2 title 'heads=4 d_k=16 kind=learned'
set terminal pngcairo size 800,718 noenhanced background '#ffffff'
set output png_file
replot
set output
