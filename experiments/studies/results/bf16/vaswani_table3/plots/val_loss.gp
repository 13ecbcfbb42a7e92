# Validation loss against step per sweep point.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot val_loss.gp
# Data: data/val_loss.dat

if (!exists("svg_file")) svg_file = 'val_loss.svg'
if (!exists("png_file")) png_file = 'val_loss.png'
set terminal svg size 900,692 noenhanced background '#ffffff'
set output svg_file
set title 'Validation loss (line: mean over seeds; band: min to max over seeds)'
set xlabel 'step'
set ylabel 'val_loss'
set grid
set key outside below height 1
set style fill transparent solid 0.2 noborder
plot 'data/val_loss.dat' index 0 using 1:3:4 with filledcurves lc 1 dt 1 notitle, \
     '' index 0 using 1:2 with lines lw 2 lc 1 dt 1 title 'model.heads=4 model.attention.d_k=16 model.attention.d_v=16 model.positions.kind=sinusoidal', \
     '' index 1 using 1:3:4 with filledcurves lc 2 dt 1 notitle, \
     '' index 1 using 1:2 with lines lw 2 lc 2 dt 1 title 'model.heads=1 model.attention.d_k=64 model.attention.d_v=64 model.positions.kind=sinusoidal', \
     '' index 2 using 1:3:4 with filledcurves lc 3 dt 1 notitle, \
     '' index 2 using 1:2 with lines lw 2 lc 3 dt 1 title 'model.heads=2 model.attention.d_k=32 model.attention.d_v=32 model.positions.kind=sinusoidal', \
     '' index 3 using 1:3:4 with filledcurves lc 4 dt 1 notitle, \
     '' index 3 using 1:2 with lines lw 2 lc 4 dt 1 title 'model.heads=8 model.attention.d_k=8 model.attention.d_v=8 model.positions.kind=sinusoidal', \
     '' index 4 using 1:3:4 with filledcurves lc 5 dt 1 notitle, \
     '' index 4 using 1:2 with lines lw 2 lc 5 dt 1 title 'model.heads=16 model.attention.d_k=4 model.attention.d_v=4 model.positions.kind=sinusoidal', \
     '' index 5 using 1:3:4 with filledcurves lc 6 dt 1 notitle, \
     '' index 5 using 1:2 with lines lw 2 lc 6 dt 1 title 'model.heads=4 model.attention.d_k=4 model.attention.d_v=16 model.positions.kind=sinusoidal', \
     '' index 6 using 1:3:4 with filledcurves lc 7 dt 1 notitle, \
     '' index 6 using 1:2 with lines lw 2 lc 7 dt 1 title 'model.heads=4 model.attention.d_k=8 model.attention.d_v=16 model.positions.kind=sinusoidal', \
     '' index 7 using 1:3:4 with filledcurves lc 8 dt 1 notitle, \
     '' index 7 using 1:2 with lines lw 2 lc 8 dt 1 title 'model.heads=4 model.attention.d_k=16 model.attention.d_v=16 model.positions.kind=learned'
set terminal pngcairo size 900,692 noenhanced background '#ffffff'
set output png_file
replot
set output
