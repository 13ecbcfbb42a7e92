# Validation loss against step per sweep point and seed.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot val_loss.gp
# Data: data/val_loss.dat

if (!exists("svg_file")) svg_file = 'val_loss.svg'
if (!exists("png_file")) png_file = 'val_loss.png'
set terminal svg size 900,1094 noenhanced background '#ffffff'
set output svg_file
set title "Validation loss (validation split, at each evaluation)\nthin lines: each seed; bold line: the mean over the point's seeds"
set xlabel 'step'
set ylabel 'val_loss'
set grid
set key outside below maxrows 30 title "scale = model.attention.scale, d_model = model.d_model\nheads = model.heads"
plot 'data/val_loss.dat' index 1 using 1:2 with lines lw 1 lc rgb '#b00072b2' notitle, \
     '' index 0 using 1:2 with lines lw 3 lc rgb '#0072b2' dt 1 title 'scale=sqrt_dk d_model=128 heads=32', \
     '' index 3 using 1:2 with lines lw 1 lc rgb '#b0d55e00' notitle, \
     '' index 2 using 1:2 with lines lw 3 lc rgb '#d55e00' dt 1 title 'scale=sqrt_dk d_model=128 heads=8', \
     '' index 5 using 1:2 with lines lw 1 lc rgb '#b0009e73' notitle, \
     '' index 4 using 1:2 with lines lw 3 lc rgb '#009e73' dt 1 title 'scale=sqrt_dk d_model=128 heads=2', \
     '' index 7 using 1:2 with lines lw 1 lc rgb '#b0cc79a7' notitle, \
     '' index 6 using 1:2 with lines lw 3 lc rgb '#cc79a7' dt 1 title 'scale=sqrt_dk d_model=128 heads=1', \
     '' index 9 using 1:2 with lines lw 1 lc rgb '#b0e69f00' notitle, \
     '' index 8 using 1:2 with lines lw 3 lc rgb '#e69f00' dt 1 title 'scale=sqrt_dk d_model=512 heads=2', \
     '' index 11 using 1:2 with lines lw 1 lc rgb '#b056b4e9' notitle, \
     '' index 10 using 1:2 with lines lw 3 lc rgb '#56b4e9' dt 1 title 'scale=none d_model=128 heads=32', \
     '' index 13 using 1:2 with lines lw 1 lc rgb '#b0000000' notitle, \
     '' index 12 using 1:2 with lines lw 3 lc rgb '#000000' dt 1 title 'scale=none d_model=128 heads=8', \
     '' index 15 using 1:2 with lines lw 1 lc rgb '#b09400d3' notitle, \
     '' index 14 using 1:2 with lines lw 3 lc rgb '#9400d3' dt 1 title 'scale=none d_model=128 heads=2', \
     '' index 17 using 1:2 with lines lw 1 lc rgb '#b00072b2' notitle, \
     '' index 16 using 1:2 with lines lw 3 lc rgb '#0072b2' dt 2 title 'scale=none d_model=128 heads=1', \
     '' index 19 using 1:2 with lines lw 1 lc rgb '#b0d55e00' notitle, \
     '' index 18 using 1:2 with lines lw 3 lc rgb '#d55e00' dt 2 title 'scale=none d_model=512 heads=2', \
     '' index 21 using 1:2 with lines lw 1 lc rgb '#b0009e73' notitle, \
     '' index 20 using 1:2 with lines lw 3 lc rgb '#009e73' dt 2 title 'scale=dk d_model=128 heads=32', \
     '' index 23 using 1:2 with lines lw 1 lc rgb '#b0cc79a7' notitle, \
     '' index 22 using 1:2 with lines lw 3 lc rgb '#cc79a7' dt 2 title 'scale=dk d_model=128 heads=8', \
     '' index 25 using 1:2 with lines lw 1 lc rgb '#b0e69f00' notitle, \
     '' index 24 using 1:2 with lines lw 3 lc rgb '#e69f00' dt 2 title 'scale=dk d_model=128 heads=2', \
     '' index 27 using 1:2 with lines lw 1 lc rgb '#b056b4e9' notitle, \
     '' index 26 using 1:2 with lines lw 3 lc rgb '#56b4e9' dt 2 title 'scale=dk d_model=128 heads=1', \
     '' index 29 using 1:2 with lines lw 1 lc rgb '#b0000000' notitle, \
     '' index 28 using 1:2 with lines lw 3 lc rgb '#000000' dt 2 title 'scale=dk d_model=512 heads=2', \
     '' index 31 using 1:2 with lines lw 1 lc rgb '#b09400d3' notitle, \
     '' index 30 using 1:2 with lines lw 3 lc rgb '#9400d3' dt 2 title 'scale=0.5 d_model=128 heads=32', \
     '' index 33 using 1:2 with lines lw 1 lc rgb '#b00072b2' notitle, \
     '' index 32 using 1:2 with lines lw 3 lc rgb '#0072b2' dt 3 title 'scale=0.5 d_model=128 heads=8', \
     '' index 35 using 1:2 with lines lw 1 lc rgb '#b0d55e00' notitle, \
     '' index 34 using 1:2 with lines lw 3 lc rgb '#d55e00' dt 3 title 'scale=0.5 d_model=128 heads=2', \
     '' index 37 using 1:2 with lines lw 1 lc rgb '#b0009e73' notitle, \
     '' index 36 using 1:2 with lines lw 3 lc rgb '#009e73' dt 3 title 'scale=0.5 d_model=128 heads=1', \
     '' index 39 using 1:2 with lines lw 1 lc rgb '#b0cc79a7' notitle, \
     '' index 38 using 1:2 with lines lw 3 lc rgb '#cc79a7' dt 3 title 'scale=0.5 d_model=512 heads=2', \
     '' index 41 using 1:2 with lines lw 1 lc rgb '#b0e69f00' notitle, \
     '' index 40 using 1:2 with lines lw 3 lc rgb '#e69f00' dt 3 title 'scale=learned d_model=128 heads=32', \
     '' index 43 using 1:2 with lines lw 1 lc rgb '#b056b4e9' notitle, \
     '' index 42 using 1:2 with lines lw 3 lc rgb '#56b4e9' dt 3 title 'scale=learned d_model=128 heads=8', \
     '' index 45 using 1:2 with lines lw 1 lc rgb '#b0000000' notitle, \
     '' index 44 using 1:2 with lines lw 3 lc rgb '#000000' dt 3 title 'scale=learned d_model=128 heads=2', \
     '' index 47 using 1:2 with lines lw 1 lc rgb '#b09400d3' notitle, \
     '' index 46 using 1:2 with lines lw 3 lc rgb '#9400d3' dt 3 title 'scale=learned d_model=128 heads=1', \
     '' index 49 using 1:2 with lines lw 1 lc rgb '#b00072b2' notitle, \
     '' index 48 using 1:2 with lines lw 3 lc rgb '#0072b2' dt 4 title 'scale=learned d_model=512 heads=2'
set terminal pngcairo size 900,1094 noenhanced background '#ffffff'
set output png_file
replot
set output
