# Test bpc by evaluation context per sweep point, from comparisons.csv.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot bpc_by_context.gp
# Data: data/bpc_by_context.dat

if (!exists("svg_file")) svg_file = 'bpc_by_context.svg'
if (!exists("png_file")) png_file = 'bpc_by_context.png'
set terminal svg size 800,652 noenhanced background '#ffffff'
set output svg_file
set title "Test bpc by context (lower is better)\ntest split, validation-selected step: mean and 95% interval over seeds\n(as in comparisons.csv); dots: each seed's value"
set xlabel 'evaluation context (tokens; the first is the training context)'
set ylabel 'test bpc'
set logscale x 2
set xrange [51.2:640]
set grid
set key outside below title "kind = model.positions.kind"
plot 'data/bpc_by_context.dat' index 1 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#0072b2' dt 1 title 'kind=sinusoidal', \
     '' index 3 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0d55e00' notitle, \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#d55e00' dt 1 title 'kind=rotary', \
     '' index 5 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0009e73' notitle, \
     '' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#009e73' dt 1 title 'kind=alibi', \
     '' index 7 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0cc79a7' notitle, \
     '' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#cc79a7' dt 1 title 'kind=learned', \
     '' index 9 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0e69f00' notitle, \
     '' index 8 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '#e69f00' dt 1 title 'kind=none'
set terminal pngcairo size 800,652 noenhanced background '#ffffff'
set output png_file
replot
set output
