if (!exists("svg_file")) svg_file = 'study_literal_ratio.svg'
if (!exists("png_file")) png_file = 'study_literal_ratio.png'
set terminal svg size 800,500 noenhanced background '#ffffff'
set output svg_file
set logscale x
set logscale y
set xlabel 'divisor'
set ylabel 'max |g| / min |g|'
set title 'Blog code, literally: gradient w.r.t. the label, x = [1..20] / divisor'
plot 'data/study_literal_ratio.dat' using 1:2 with linespoints title 'max/min', '' using 1:3 with linespoints title 'max |g|'
set output
set terminal pngcairo size 800,500 noenhanced background '#ffffff'
set output png_file
set logscale x
set logscale y
set xlabel 'divisor'
set ylabel 'max |g| / min |g|'
set title 'Blog code, literally: gradient w.r.t. the label, x = [1..20] / divisor'
plot 'data/study_literal_ratio.dat' using 1:2 with linespoints title 'max/min', '' using 1:3 with linespoints title 'max |g|'
set output
