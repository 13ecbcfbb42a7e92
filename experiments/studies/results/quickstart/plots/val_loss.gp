# Validation loss against step per sweep point.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot val_loss.gp
# Data: data/val_loss.dat

if (!exists("svg_file")) svg_file = 'val_loss.svg'
if (!exists("png_file")) png_file = 'val_loss.png'
set terminal svg size 900,596 noenhanced background '#ffffff'
set output svg_file
set title 'Validation loss (line: mean over seeds; band: min to max over seeds)'
set xlabel 'step'
set ylabel 'val_loss'
set grid
set key outside below height 1
set style fill transparent solid 0.2 noborder
set logscale y
plot 'data/val_loss.dat' index 0 using 1:3:4 with filledcurves lc 1 dt 1 notitle, \
     '' index 0 using 1:2 with lines lw 2 lc 1 dt 1 title 'model.attention.qk=separate model.attention.scale=sqrt_dk', \
     '' index 1 using 1:3:4 with filledcurves lc 2 dt 1 notitle, \
     '' index 1 using 1:2 with lines lw 2 lc 2 dt 1 title 'model.attention.qk=separate model.attention.scale=none', \
     '' index 2 using 1:3:4 with filledcurves lc 3 dt 1 notitle, \
     '' index 2 using 1:2 with lines lw 2 lc 3 dt 1 title 'model.attention.qk=shared model.attention.scale=sqrt_dk', \
     '' index 3 using 1:3:4 with filledcurves lc 4 dt 1 notitle, \
     '' index 3 using 1:2 with lines lw 2 lc 4 dt 1 title 'model.attention.qk=shared model.attention.scale=none'
set terminal pngcairo size 900,596 noenhanced background '#ffffff'
set output png_file
replot
set output
