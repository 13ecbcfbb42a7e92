if (!exists("svg_file")) svg_file = 'study_corrected_ratio.svg'
if (!exists("png_file")) png_file = 'study_corrected_ratio.png'
set terminal svg size 800,500 noenhanced background '#ffffff'
set output svg_file
set logscale x
set logscale y
set xlabel 'divisor s'
set ylabel 'max |g| / min |g|'
set y2label 'max probability'
set y2tics
set ytics nomirror
set title 'Corrected: d CE(softmax(z/s)) / dz, z = 1..20'
plot 'data/study_corrected_ratio.dat' using 1:2 with linespoints title 'max/min', '' using 1:3 axes x1y2 with linespoints title 'max prob'
set output
set terminal pngcairo size 800,500 noenhanced background '#ffffff'
set output png_file
set logscale x
set logscale y
set xlabel 'divisor s'
set ylabel 'max |g| / min |g|'
set y2label 'max probability'
set y2tics
set ytics nomirror
set title 'Corrected: d CE(softmax(z/s)) / dz, z = 1..20'
plot 'data/study_corrected_ratio.dat' using 1:2 with linespoints title 'max/min', '' using 1:3 axes x1y2 with linespoints title 'max prob'
set output
