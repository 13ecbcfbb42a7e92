# Training loss against step per sweep point and seed.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot train_loss.gp
# Data: data/train_loss.dat

if (!exists("svg_file")) svg_file = 'train_loss.svg'
if (!exists("png_file")) png_file = 'train_loss.png'
set terminal svg size 900,566 noenhanced background '#ffffff'
set output svg_file
set title "Training loss (mean over the training steps since the previous evaluation)\nthin lines: each seed; bold line: the mean over the point's seeds"
set xlabel 'step'
set ylabel 'train_loss'
set grid
set key outside below maxrows 30 title "qk = model.attention.qk"
plot 'data/train_loss.dat' index 1 using 1:2 with lines lw 1 lc rgb '#b00072b2' notitle, \
     '' index 0 using 1:2 with lines lw 3 lc rgb '#0072b2' dt 1 title 'qk=separate', \
     '' index 3 using 1:2 with lines lw 1 lc rgb '#b0d55e00' notitle, \
     '' index 2 using 1:2 with lines lw 3 lc rgb '#d55e00' dt 1 title 'qk={ bias = false, eps = 1e-06, kind = qk_norm }'
set terminal pngcairo size 900,566 noenhanced background '#ffffff'
set output png_file
replot
set output
