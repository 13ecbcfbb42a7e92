# Validation loss against step per sweep point.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot val_loss.gp
# Data: data/val_loss.dat

if (!exists("svg_file")) svg_file = 'val_loss.svg'
if (!exists("png_file")) png_file = 'val_loss.png'
set terminal svg size 900,884 noenhanced background '#ffffff'
set output svg_file
set title 'Validation loss (line: mean over seeds; band: min to max over seeds)'
set xlabel 'step'
set ylabel 'val_loss'
set grid
set key outside below height 1
set style fill transparent solid 0.2 noborder
plot 'data/val_loss.dat' index 0 using 1:3:4 with filledcurves lc 1 dt 1 notitle, \
     '' index 0 using 1:2 with lines lw 2 lc 1 dt 1 title 'model.norm.placement=post model.layers=2 train.lr=0.002 train.schedule.warmup=400', \
     '' index 1 using 1:3:4 with filledcurves lc 2 dt 1 notitle, \
     '' index 1 using 1:2 with lines lw 2 lc 2 dt 1 title 'model.norm.placement=post model.layers=2 train.lr=0.002 train.schedule.warmup=0', \
     '' index 2 using 1:3:4 with filledcurves lc 3 dt 1 notitle, \
     '' index 2 using 1:2 with lines lw 2 lc 3 dt 1 title 'model.norm.placement=post model.layers=2 train.lr=0.01 train.schedule.warmup=400', \
     '' index 3 using 1:3:4 with filledcurves lc 4 dt 1 notitle, \
     '' index 3 using 1:2 with lines lw 2 lc 4 dt 1 title 'model.norm.placement=post model.layers=2 train.lr=0.01 train.schedule.warmup=0', \
     '' index 4 using 1:3:4 with filledcurves lc 5 dt 1 notitle, \
     '' index 4 using 1:2 with lines lw 2 lc 5 dt 1 title 'model.norm.placement=post model.layers=6 train.lr=0.002 train.schedule.warmup=400', \
     '' index 5 using 1:3:4 with filledcurves lc 6 dt 1 notitle, \
     '' index 5 using 1:2 with lines lw 2 lc 6 dt 1 title 'model.norm.placement=post model.layers=6 train.lr=0.002 train.schedule.warmup=0', \
     '' index 6 using 1:3:4 with filledcurves lc 7 dt 1 notitle, \
     '' index 6 using 1:2 with lines lw 2 lc 7 dt 1 title 'model.norm.placement=post model.layers=6 train.lr=0.01 train.schedule.warmup=400', \
     '' index 7 using 1:3:4 with filledcurves lc 8 dt 1 notitle, \
     '' index 7 using 1:2 with lines lw 2 lc 8 dt 1 title 'model.norm.placement=post model.layers=6 train.lr=0.01 train.schedule.warmup=0', \
     '' index 8 using 1:3:4 with filledcurves lc 1 dt 2 notitle, \
     '' index 8 using 1:2 with lines lw 2 lc 1 dt 2 title 'model.norm.placement=pre model.layers=2 train.lr=0.002 train.schedule.warmup=400', \
     '' index 9 using 1:3:4 with filledcurves lc 2 dt 2 notitle, \
     '' index 9 using 1:2 with lines lw 2 lc 2 dt 2 title 'model.norm.placement=pre model.layers=2 train.lr=0.002 train.schedule.warmup=0', \
     '' index 10 using 1:3:4 with filledcurves lc 3 dt 2 notitle, \
     '' index 10 using 1:2 with lines lw 2 lc 3 dt 2 title 'model.norm.placement=pre model.layers=2 train.lr=0.01 train.schedule.warmup=400', \
     '' index 11 using 1:3:4 with filledcurves lc 4 dt 2 notitle, \
     '' index 11 using 1:2 with lines lw 2 lc 4 dt 2 title 'model.norm.placement=pre model.layers=2 train.lr=0.01 train.schedule.warmup=0', \
     '' index 12 using 1:3:4 with filledcurves lc 5 dt 2 notitle, \
     '' index 12 using 1:2 with lines lw 2 lc 5 dt 2 title 'model.norm.placement=pre model.layers=6 train.lr=0.002 train.schedule.warmup=400', \
     '' index 13 using 1:3:4 with filledcurves lc 6 dt 2 notitle, \
     '' index 13 using 1:2 with lines lw 2 lc 6 dt 2 title 'model.norm.placement=pre model.layers=6 train.lr=0.002 train.schedule.warmup=0', \
     '' index 14 using 1:3:4 with filledcurves lc 7 dt 2 notitle, \
     '' index 14 using 1:2 with lines lw 2 lc 7 dt 2 title 'model.norm.placement=pre model.layers=6 train.lr=0.01 train.schedule.warmup=400', \
     '' index 15 using 1:3:4 with filledcurves lc 8 dt 2 notitle, \
     '' index 15 using 1:2 with lines lw 2 lc 8 dt 2 title 'model.norm.placement=pre model.layers=6 train.lr=0.01 train.schedule.warmup=0'
set terminal pngcairo size 900,884 noenhanced background '#ffffff'
set output png_file
replot
set output
