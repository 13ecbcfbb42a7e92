# Final MAE per forecast horizon per sweep point.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot mae_by_horizon.gp
# Data: data/mae_by_horizon.dat

if (!exists("svg_file")) svg_file = 'mae_by_horizon.svg'
if (!exists("png_file")) png_file = 'mae_by_horizon.png'
set terminal svg size 800,884 noenhanced background '#ffffff'
set output svg_file
set title 'Final MAE by forecast horizon (mean over seeds)'
set xlabel 'horizon (steps ahead)'
set ylabel 'MAE'
set xrange [0.5:8.5]
set xtics 1
set grid
set key outside below height 1
plot 'data/mae_by_horizon.dat' index 0 using 1:2 with linespoints lw 2 pt 7 lc 1 dt 1 title 'model.readout=flatten model.positions.kind=sinusoidal model.attention.scale=sqrt_dk', \
     '' index 1 using 1:2 with linespoints lw 2 pt 7 lc 2 dt 1 title 'model.readout=flatten model.positions.kind=sinusoidal model.attention.scale=none', \
     '' index 2 using 1:2 with linespoints lw 2 pt 7 lc 3 dt 1 title 'model.readout=flatten model.positions.kind=learned model.attention.scale=sqrt_dk', \
     '' index 3 using 1:2 with linespoints lw 2 pt 7 lc 4 dt 1 title 'model.readout=flatten model.positions.kind=learned model.attention.scale=none', \
     '' index 4 using 1:2 with linespoints lw 2 pt 7 lc 5 dt 1 title 'model.readout=flatten model.positions.kind=none model.attention.scale=sqrt_dk', \
     '' index 5 using 1:2 with linespoints lw 2 pt 7 lc 6 dt 1 title 'model.readout=flatten model.positions.kind=none model.attention.scale=none', \
     '' index 6 using 1:2 with linespoints lw 2 pt 7 lc 7 dt 1 title 'model.readout=flatten model.positions.kind=rotary model.attention.scale=sqrt_dk', \
     '' index 7 using 1:2 with linespoints lw 2 pt 7 lc 8 dt 1 title 'model.readout=flatten model.positions.kind=rotary model.attention.scale=none', \
     '' index 8 using 1:2 with linespoints lw 2 pt 7 lc 1 dt 2 title 'model.readout=mean model.positions.kind=sinusoidal model.attention.scale=sqrt_dk', \
     '' index 9 using 1:2 with linespoints lw 2 pt 7 lc 2 dt 2 title 'model.readout=mean model.positions.kind=sinusoidal model.attention.scale=none', \
     '' index 10 using 1:2 with linespoints lw 2 pt 7 lc 3 dt 2 title 'model.readout=mean model.positions.kind=learned model.attention.scale=sqrt_dk', \
     '' index 11 using 1:2 with linespoints lw 2 pt 7 lc 4 dt 2 title 'model.readout=mean model.positions.kind=learned model.attention.scale=none', \
     '' index 12 using 1:2 with linespoints lw 2 pt 7 lc 5 dt 2 title 'model.readout=mean model.positions.kind=none model.attention.scale=sqrt_dk', \
     '' index 13 using 1:2 with linespoints lw 2 pt 7 lc 6 dt 2 title 'model.readout=mean model.positions.kind=none model.attention.scale=none', \
     '' index 14 using 1:2 with linespoints lw 2 pt 7 lc 7 dt 2 title 'model.readout=mean model.positions.kind=rotary model.attention.scale=sqrt_dk', \
     '' index 15 using 1:2 with linespoints lw 2 pt 7 lc 8 dt 2 title 'model.readout=mean model.positions.kind=rotary model.attention.scale=none'
set terminal pngcairo size 800,884 noenhanced background '#ffffff'
set output png_file
replot
set output
