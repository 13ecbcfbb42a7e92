# Attention weights of decoder.layers.0.multihead_attn on the first validation example
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot attention_decoder_layers_0_multihead_attn.gp
# Data: data/attention_decoder_layers_0_multihead_attn.dat

if (!exists("svg_file")) svg_file = 'attention_decoder_layers_0_multihead_attn.svg'
if (!exists("png_file")) png_file = 'attention_decoder_layers_0_multihead_attn.png'
set terminal svg size 2040,600 noenhanced background '#ffffff'
set output svg_file
set multiplot layout 1,4 title "decoder.layers.0.multihead_attn: attention weights on the first validation example\ntrial aa309e47b81a0f4a (seed 0) of qk=separate   (qk = model.attention.qk)\nthe first seed of the point with the best mean validation per (last evaluation)" margins 0.07, 0.97, 0.16, 0.76 spacing 0.17, 0.1
set palette defined (0 '#ffffd9', 0.25 '#c7e9b4', 0.5 '#41b6c4', 0.75 '#225ea8', 1 '#081d58')
set cbrange [0:1]
set colorbox
set cblabel 'attention weight'
set cbtics 0.25
set xtics ('a' 0, 'a' 1, 'r' 2, 'h' 3, 'u' 4, 's' 5) rotate by 90 right
set ytics ('<s>' 0, 'AA' 1, 'HH' 2, 'UW' 3, 'S' 4)
set xrange [-0.5:6-0.5]
set yrange [5-0.5:-0.5]
set xlabel 'key'
set ylabel 'query'
set size ratio -1
set title 'head 0'
plot 'data/attention_decoder_layers_0_multihead_attn.dat' index 0 matrix with image notitle
unset ylabel
set title 'head 1'
plot 'data/attention_decoder_layers_0_multihead_attn.dat' index 1 matrix with image notitle
set title 'head 2'
plot 'data/attention_decoder_layers_0_multihead_attn.dat' index 2 matrix with image notitle
set title 'head 3'
plot 'data/attention_decoder_layers_0_multihead_attn.dat' index 3 matrix with image notitle
unset multiplot
set output
set terminal pngcairo size 2040,600 noenhanced background '#ffffff'
set output png_file
set multiplot layout 1,4 title "decoder.layers.0.multihead_attn: attention weights on the first validation example\ntrial aa309e47b81a0f4a (seed 0) of qk=separate   (qk = model.attention.qk)\nthe first seed of the point with the best mean validation per (last evaluation)" margins 0.07, 0.97, 0.16, 0.76 spacing 0.17, 0.1
set palette defined (0 '#ffffd9', 0.25 '#c7e9b4', 0.5 '#41b6c4', 0.75 '#225ea8', 1 '#081d58')
set cbrange [0:1]
set colorbox
set cblabel 'attention weight'
set cbtics 0.25
set xtics ('a' 0, 'a' 1, 'r' 2, 'h' 3, 'u' 4, 's' 5) rotate by 90 right
set ytics ('<s>' 0, 'AA' 1, 'HH' 2, 'UW' 3, 'S' 4)
set xrange [-0.5:6-0.5]
set yrange [5-0.5:-0.5]
set xlabel 'key'
set ylabel 'query'
set size ratio -1
set title 'head 0'
plot 'data/attention_decoder_layers_0_multihead_attn.dat' index 0 matrix with image notitle
unset ylabel
set title 'head 1'
plot 'data/attention_decoder_layers_0_multihead_attn.dat' index 1 matrix with image notitle
set title 'head 2'
plot 'data/attention_decoder_layers_0_multihead_attn.dat' index 2 matrix with image notitle
set title 'head 3'
plot 'data/attention_decoder_layers_0_multihead_attn.dat' index 3 matrix with image notitle
unset multiplot
set output
