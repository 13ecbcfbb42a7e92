# Test bpc against model.layers, from comparisons.csv.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot bpc_vs_model.layers.gp
# Data: data/bpc_vs_model.layers.dat

if (!exists("svg_file")) svg_file = 'bpc_vs_model.layers.svg'
if (!exists("png_file")) png_file = 'bpc_vs_model.layers.png'
set terminal svg size 800,630 noenhanced background '#ffffff'
set output svg_file
set title "Test bpc by model.layers (lower is better)\ntest split, validation-selected step: mean and 95% interval over seeds\n(as in comparisons.csv); dots: each seed's value"
set xlabel 'model.layers'
set ylabel 'test bpc'
set xrange [-0.5:1.5]
set xtics ('6' 0, '2' 1)
set grid ytics
set key outside below maxrows 8 title "placement = model.norm.placement, warmup = train.schedule.warmup"
set offsets 0, 0, graph 0.05, graph 0.05
plot 'data/bpc_vs_model.layers.dat' index 1 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#0072b2' dt 1 title 'placement=post warmup=400', \
     '' index 3 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0d55e00' notitle, \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#d55e00' dt 1 title 'placement=post warmup=0', \
     '' index 5 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0009e73' notitle, \
     '' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#009e73' dt 1 title 'placement=pre warmup=400', \
     '' index 7 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0cc79a7' notitle, \
     '' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#cc79a7' dt 1 title 'placement=pre warmup=0'
set terminal pngcairo size 800,630 noenhanced background '#ffffff'
set output png_file
replot
set output
