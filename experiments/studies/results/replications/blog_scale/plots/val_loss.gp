# Validation loss against step per sweep point and seed.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot val_loss.gp
# Data: data/val_loss.dat

if (!exists("svg_file")) svg_file = 'val_loss.svg'
if (!exists("png_file")) png_file = 'val_loss.png'
set terminal svg size 900,654 noenhanced background '#ffffff'
set output svg_file
set title "Validation loss (validation split, at each evaluation)\nthin lines: each seed; bold line: the mean over the point's seeds"
set xlabel 'step'
set ylabel 'val_loss'
set grid
set key outside below maxrows 30 title "d_k = model.attention.d_k, scale = model.attention.scale"
plot 'data/val_loss.dat' index 1 using 1:2 with lines lw 1 lc rgb '#b00072b2' notitle, \
     '' index 0 using 1:2 with lines lw 3 lc rgb '#0072b2' dt 1 title 'd_k=8 scale=sqrt_dk', \
     '' index 3 using 1:2 with lines lw 1 lc rgb '#b0d55e00' notitle, \
     '' index 2 using 1:2 with lines lw 3 lc rgb '#d55e00' dt 1 title 'd_k=8 scale={ kind = constant, value = 0.5 }', \
     '' index 5 using 1:2 with lines lw 1 lc rgb '#b0009e73' notitle, \
     '' index 4 using 1:2 with lines lw 3 lc rgb '#009e73' dt 1 title 'd_k=32 scale=sqrt_dk', \
     '' index 7 using 1:2 with lines lw 1 lc rgb '#b0cc79a7' notitle, \
     '' index 6 using 1:2 with lines lw 3 lc rgb '#cc79a7' dt 1 title 'd_k=32 scale={ kind = constant, value = 0.5 }', \
     '' index 9 using 1:2 with lines lw 1 lc rgb '#b0e69f00' notitle, \
     '' index 8 using 1:2 with lines lw 3 lc rgb '#e69f00' dt 1 title 'd_k=128 scale=sqrt_dk', \
     '' index 11 using 1:2 with lines lw 1 lc rgb '#b056b4e9' notitle, \
     '' index 10 using 1:2 with lines lw 3 lc rgb '#56b4e9' dt 1 title 'd_k=128 scale={ kind = constant, value = 0.5 }'
set terminal pngcairo size 900,654 noenhanced background '#ffffff'
set output png_file
replot
set output
