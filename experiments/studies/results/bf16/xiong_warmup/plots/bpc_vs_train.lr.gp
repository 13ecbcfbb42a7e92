# bpc (final) against train.lr.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot bpc_vs_train.lr.gp
# Data: data/bpc_vs_train.lr.dat

if (!exists("svg_file")) svg_file = 'bpc_vs_train.lr.svg'
if (!exists("png_file")) png_file = 'bpc_vs_train.lr.png'
set terminal svg size 800,520 noenhanced background '#ffffff'
set output svg_file
set title 'bpc (final, lower is better) by train.lr'
set xlabel 'train.lr'
set ylabel 'bpc'
set xrange [-0.5:1.5]
set xtics ('0.002' 0, '0.01' 1)
set grid ytics
set key outside below height 1
set offsets 0, 0, graph 0.05, graph 0.05
plot 'data/bpc_vs_train.lr.dat' index 0 using 1:2 with points pt 7 ps 0.9 lc rgb '#60377eb8' title 'trials', \
     '' index 1 using 1:2:3 with yerrorbars pt 5 ps 1.3 lw 2 lc rgb '#e41a1c' title 'mean +/- std over all trials with this value'
set terminal pngcairo size 800,520 noenhanced background '#ffffff'
set output png_file
replot
set output
