# Attention weights of decoder.layers.1.multihead_attn on the first validation example
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot attention_decoder_layers_1_multihead_attn.gp
# Data: data/attention_decoder_layers_1_multihead_attn.dat

if (!exists("svg_file")) svg_file = 'attention_decoder_layers_1_multihead_attn.svg'
if (!exists("png_file")) png_file = 'attention_decoder_layers_1_multihead_attn.png'
set terminal svg size 1520,500 noenhanced background '#ffffff'
set output svg_file
set multiplot layout 1,4 title 'decoder.layers.1.multihead_attn   (trial 9c58d51f6789a210)'
set label 1 'model.positions.kind=rotary' at screen 0.5, screen 0.015 center
set palette defined (0 '#ffffff', 1 '#08306b')
set cbrange [0:1]
unset colorbox
set xtics ('0' 0, '4' 1, '8' 2, '4' 3, '4' 4, '3' 5, '0' 6, '2' 7, '5' 8) rotate by 90 right
set ytics ('<s>' 0, '5' 1, '2' 2, '0' 3, '3' 4, '4' 5, '4' 6, '8' 7, '4' 8, '0' 9)
set yrange [] reverse
set xlabel 'key'
set ylabel 'query'
set size ratio -1
set title 'head 0'
plot 'data/attention_decoder_layers_1_multihead_attn.dat' index 0 matrix with image notitle
set title 'head 1'
plot 'data/attention_decoder_layers_1_multihead_attn.dat' index 1 matrix with image notitle
set title 'head 2'
plot 'data/attention_decoder_layers_1_multihead_attn.dat' index 2 matrix with image notitle
set title 'head 3'
plot 'data/attention_decoder_layers_1_multihead_attn.dat' index 3 matrix with image notitle
unset multiplot
set output
set terminal pngcairo size 1520,500 noenhanced background '#ffffff'
set output png_file
set multiplot layout 1,4 title 'decoder.layers.1.multihead_attn   (trial 9c58d51f6789a210)'
set label 1 'model.positions.kind=rotary' at screen 0.5, screen 0.015 center
set palette defined (0 '#ffffff', 1 '#08306b')
set cbrange [0:1]
unset colorbox
set xtics ('0' 0, '4' 1, '8' 2, '4' 3, '4' 4, '3' 5, '0' 6, '2' 7, '5' 8) rotate by 90 right
set ytics ('<s>' 0, '5' 1, '2' 2, '0' 3, '3' 4, '4' 5, '4' 6, '8' 7, '4' 8, '0' 9)
set yrange [] reverse
set xlabel 'key'
set ylabel 'query'
set size ratio -1
set title 'head 0'
plot 'data/attention_decoder_layers_1_multihead_attn.dat' index 0 matrix with image notitle
set title 'head 1'
plot 'data/attention_decoder_layers_1_multihead_attn.dat' index 1 matrix with image notitle
set title 'head 2'
plot 'data/attention_decoder_layers_1_multihead_attn.dat' index 2 matrix with image notitle
set title 'head 3'
plot 'data/attention_decoder_layers_1_multihead_attn.dat' index 3 matrix with image notitle
unset multiplot
set output
