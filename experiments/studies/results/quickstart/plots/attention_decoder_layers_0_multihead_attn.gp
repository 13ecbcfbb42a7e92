# Attention weights of decoder.layers.0.multihead_attn on the first validation example
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot attention_decoder_layers_0_multihead_attn.gp
# Data: data/attention_decoder_layers_0_multihead_attn.dat

if (!exists("svg_file")) svg_file = 'attention_decoder_layers_0_multihead_attn.svg'
if (!exists("png_file")) png_file = 'attention_decoder_layers_0_multihead_attn.png'
set terminal svg size 820,500 noenhanced background '#ffffff'
set output svg_file
set multiplot layout 1,2 title 'decoder.layers.0.multihead_attn   (trial 03ea886aff6217a9)'
set label 1 'model.attention.qk=shared model.attention.scale=sqrt_dk' at screen 0.5, screen 0.015 center
set palette defined (0 '#ffffff', 1 '#08306b')
set cbrange [0:1]
unset colorbox
set xtics ('3' 0, '3' 1, '3' 2, '1' 3, '9' 4) rotate by 90 right
set ytics ('<s>' 0, '9' 1, '1' 2, '3' 3, '3' 4, '3' 5)
set yrange [] reverse
set xlabel 'key'
set ylabel 'query'
set size ratio -1
set title 'head 0'
plot 'data/attention_decoder_layers_0_multihead_attn.dat' index 0 matrix with image notitle
set title 'head 1'
plot 'data/attention_decoder_layers_0_multihead_attn.dat' index 1 matrix with image notitle
unset multiplot
set output
set terminal pngcairo size 820,500 noenhanced background '#ffffff'
set output png_file
set multiplot layout 1,2 title 'decoder.layers.0.multihead_attn   (trial 03ea886aff6217a9)'
set label 1 'model.attention.qk=shared model.attention.scale=sqrt_dk' at screen 0.5, screen 0.015 center
set palette defined (0 '#ffffff', 1 '#08306b')
set cbrange [0:1]
unset colorbox
set xtics ('3' 0, '3' 1, '3' 2, '1' 3, '9' 4) rotate by 90 right
set ytics ('<s>' 0, '9' 1, '1' 2, '3' 3, '3' 4, '3' 5)
set yrange [] reverse
set xlabel 'key'
set ylabel 'query'
set size ratio -1
set title 'head 0'
plot 'data/attention_decoder_layers_0_multihead_attn.dat' index 0 matrix with image notitle
set title 'head 1'
plot 'data/attention_decoder_layers_0_multihead_attn.dat' index 1 matrix with image notitle
unset multiplot
set output
