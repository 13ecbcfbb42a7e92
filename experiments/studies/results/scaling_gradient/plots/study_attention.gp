if (!exists("svg_file")) svg_file = 'study_attention.svg'
if (!exists("png_file")) png_file = 'study_attention.png'
set terminal svg size 1200,500 noenhanced background '#ffffff'
set output svg_file
set logscale x 2
set xlabel 'd_k'
set key outside bottom center horizontal
set multiplot layout 1,3
set title 'mean entropy (nats)'
plot 'data/study_attention.dat' index 0 using 1:2 with linespoints title 'c = 0.5', 'data/study_attention.dat' index 1 using 1:2 with linespoints title 'c = 1', 'data/study_attention.dat' index 2 using 1:2 with linespoints title 'c = 1/d_k', 'data/study_attention.dat' index 3 using 1:2 with linespoints title 'c = 1/sqrt(d_k)'
set title 'mean max probability'
plot 'data/study_attention.dat' index 0 using 1:3 with linespoints title 'c = 0.5', 'data/study_attention.dat' index 1 using 1:3 with linespoints title 'c = 1', 'data/study_attention.dat' index 2 using 1:3 with linespoints title 'c = 1/d_k', 'data/study_attention.dat' index 3 using 1:3 with linespoints title 'c = 1/sqrt(d_k)'
set title 'mean softmax Jacobian norm'
plot 'data/study_attention.dat' index 0 using 1:4 with linespoints title 'c = 0.5', 'data/study_attention.dat' index 1 using 1:4 with linespoints title 'c = 1', 'data/study_attention.dat' index 2 using 1:4 with linespoints title 'c = 1/d_k', 'data/study_attention.dat' index 3 using 1:4 with linespoints title 'c = 1/sqrt(d_k)'
unset multiplot
set output
set terminal pngcairo size 1200,500 noenhanced background '#ffffff'
set output png_file
set logscale x 2
set xlabel 'd_k'
set key outside bottom center horizontal
set multiplot layout 1,3
set title 'mean entropy (nats)'
plot 'data/study_attention.dat' index 0 using 1:2 with linespoints title 'c = 0.5', 'data/study_attention.dat' index 1 using 1:2 with linespoints title 'c = 1', 'data/study_attention.dat' index 2 using 1:2 with linespoints title 'c = 1/d_k', 'data/study_attention.dat' index 3 using 1:2 with linespoints title 'c = 1/sqrt(d_k)'
set title 'mean max probability'
plot 'data/study_attention.dat' index 0 using 1:3 with linespoints title 'c = 0.5', 'data/study_attention.dat' index 1 using 1:3 with linespoints title 'c = 1', 'data/study_attention.dat' index 2 using 1:3 with linespoints title 'c = 1/d_k', 'data/study_attention.dat' index 3 using 1:3 with linespoints title 'c = 1/sqrt(d_k)'
set title 'mean softmax Jacobian norm'
plot 'data/study_attention.dat' index 0 using 1:4 with linespoints title 'c = 0.5', 'data/study_attention.dat' index 1 using 1:4 with linespoints title 'c = 1', 'data/study_attention.dat' index 2 using 1:4 with linespoints title 'c = 1/d_k', 'data/study_attention.dat' index 3 using 1:4 with linespoints title 'c = 1/sqrt(d_k)'
unset multiplot
set output
