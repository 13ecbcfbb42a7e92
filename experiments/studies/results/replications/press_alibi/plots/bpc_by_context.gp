# Test bpc by evaluation context per sweep point.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot bpc_by_context.gp
# Data: data/bpc_by_context.dat

if (!exists("svg_file")) svg_file = 'bpc_by_context.svg'
if (!exists("png_file")) png_file = 'bpc_by_context.png'
set terminal svg size 800,620 noenhanced background '#ffffff'
set output svg_file
set title 'Test bpc by context (mean over seeds)'
set xlabel 'evaluation context (tokens; the first is the training context)'
set ylabel 'bpc'
set logscale x 2
set xrange [51.2:640]
set grid
set key outside below height 1
plot 'data/bpc_by_context.dat' index 0 using 1:2 with linespoints lw 2 pt 7 lc 1 dt 1 title 'model.positions.kind=sinusoidal', \
     '' index 1 using 1:2 with linespoints lw 2 pt 7 lc 2 dt 1 title 'model.positions.kind=rotary', \
     '' index 2 using 1:2 with linespoints lw 2 pt 7 lc 3 dt 1 title 'model.positions.kind=alibi', \
     '' index 3 using 1:2 with linespoints lw 2 pt 7 lc 4 dt 1 title 'model.positions.kind=learned', \
     '' index 4 using 1:2 with linespoints lw 2 pt 7 lc 5 dt 1 title 'model.positions.kind=none'
set terminal pngcairo size 800,620 noenhanced background '#ffffff'
set output png_file
replot
set output
