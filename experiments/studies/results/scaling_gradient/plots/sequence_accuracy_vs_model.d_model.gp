# Test sequence_accuracy against model.d_model, from comparisons.csv.
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot sequence_accuracy_vs_model.d_model.gp
# Data: data/sequence_accuracy_vs_model.d_model.dat

if (!exists("svg_file")) svg_file = 'sequence_accuracy_vs_model.d_model.svg'
if (!exists("png_file")) png_file = 'sequence_accuracy_vs_model.d_model.png'
set terminal svg size 800,718 noenhanced background '#ffffff'
set output svg_file
set title "Test sequence_accuracy by model.d_model (higher is better)\ntest split, validation-selected step: mean and 95% interval over seeds\n(as in comparisons.csv); dots: each seed's value"
set xlabel 'model.d_model'
set ylabel 'test sequence_accuracy'
set xrange [-0.5:1.5]
set xtics ('128' 0, '512' 1)
set grid ytics
set key outside below maxrows 8 title "scale = model.attention.scale, heads = model.heads"
set offsets 0, 0, graph 0.05, graph 0.05
plot 'data/sequence_accuracy_vs_model.d_model.dat' index 1 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#0072b2' dt 1 title 'scale=sqrt_dk heads=32', \
     '' index 3 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0d55e00' notitle, \
     '' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#d55e00' dt 1 title 'scale=sqrt_dk heads=8', \
     '' index 5 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0009e73' notitle, \
     '' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#009e73' dt 1 title 'scale=sqrt_dk heads=2', \
     '' index 7 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0cc79a7' notitle, \
     '' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#cc79a7' dt 1 title 'scale=sqrt_dk heads=1', \
     '' index 9 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0e69f00' notitle, \
     '' index 8 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#e69f00' dt 1 title 'scale=none heads=32', \
     '' index 11 using 1:2 with points pt 7 ps 0.5 lc rgb '#a056b4e9' notitle, \
     '' index 10 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#56b4e9' dt 1 title 'scale=none heads=8', \
     '' index 13 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0000000' notitle, \
     '' index 12 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#000000' dt 1 title 'scale=none heads=2', \
     '' index 15 using 1:2 with points pt 7 ps 0.5 lc rgb '#a09400d3' notitle, \
     '' index 14 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#9400d3' dt 1 title 'scale=none heads=1', \
     '' index 17 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 16 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#0072b2' dt 2 title 'scale=dk heads=32', \
     '' index 19 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0d55e00' notitle, \
     '' index 18 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#d55e00' dt 2 title 'scale=dk heads=8', \
     '' index 21 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0009e73' notitle, \
     '' index 20 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#009e73' dt 2 title 'scale=dk heads=2', \
     '' index 23 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0cc79a7' notitle, \
     '' index 22 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#cc79a7' dt 2 title 'scale=dk heads=1', \
     '' index 25 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0e69f00' notitle, \
     '' index 24 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#e69f00' dt 2 title 'scale=0.5 heads=32', \
     '' index 27 using 1:2 with points pt 7 ps 0.5 lc rgb '#a056b4e9' notitle, \
     '' index 26 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#56b4e9' dt 2 title 'scale=0.5 heads=8', \
     '' index 29 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0000000' notitle, \
     '' index 28 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#000000' dt 2 title 'scale=0.5 heads=2', \
     '' index 31 using 1:2 with points pt 7 ps 0.5 lc rgb '#a09400d3' notitle, \
     '' index 30 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#9400d3' dt 2 title 'scale=0.5 heads=1', \
     '' index 33 using 1:2 with points pt 7 ps 0.5 lc rgb '#a00072b2' notitle, \
     '' index 32 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#0072b2' dt 3 title 'scale=learned heads=32', \
     '' index 35 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0d55e00' notitle, \
     '' index 34 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#d55e00' dt 3 title 'scale=learned heads=8', \
     '' index 37 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0009e73' notitle, \
     '' index 36 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#009e73' dt 3 title 'scale=learned heads=2', \
     '' index 39 using 1:2 with points pt 7 ps 0.5 lc rgb '#a0cc79a7' notitle, \
     '' index 38 using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb '#cc79a7' dt 3 title 'scale=learned heads=1'
set terminal pngcairo size 800,718 noenhanced background '#ffffff'
set output png_file
replot
set output
