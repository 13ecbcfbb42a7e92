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
set key outside below maxrows 30 title "d_k = model.attention.d_k, scale = model.attention.scale\nlr = train.lr"
plot 'data/train_loss.dat' index 1 using 1:2 with lines lw 1 lc rgb '#b00072b2' notitle, \
     '' index 0 using 1:2 with lines lw 3 lc rgb '#0072b2' dt 1 title 'd_k=128 scale={ kind = constant, value = 0.5 } lr=0.00125'
set terminal pngcairo size 900,566 noenhanced background '#ffffff'
set output png_file
replot
set output
