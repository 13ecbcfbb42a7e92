# Attention weights of decoder.layers.1.self_attn on the first validation example
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot attention_decoder_layers_1_self_attn.gp
# Data: data/attention_decoder_layers_1_self_attn.dat

if (!exists("svg_file")) svg_file = 'attention_decoder_layers_1_self_attn.svg'
if (!exists("png_file")) png_file = 'attention_decoder_layers_1_self_attn.png'
set terminal svg size 2040,600 noenhanced background '#ffffff'
set output svg_file
set multiplot layout 1,4 title "decoder.layers.1.self_attn: attention weights on the first validation example\ntrial 8ed4fe54030bb9d4 (seed 0) of task.kind=reverse positions.kind=learned   (positions.kind = model.positions.kind)\nthe first seed of the point with the best mean validation sequence_accuracy (last evaluation)\ngrey with a cross: masked (causal: no key after the query)" margins 0.07, 0.97, 0.16, 0.72 spacing 0.17, 0.1
set palette defined (0 '#ffffd9', 0.25 '#c7e9b4', 0.5 '#41b6c4', 0.75 '#225ea8', 1 '#081d58')
set cbrange [0:1]
set colorbox
set cblabel 'attention weight'
set cbtics 0.25
set xtics ('10' 0, '5' 1, '8' 2, '6' 3, '12' 4, '<s>' 5, '12' 6, '6' 7, '8' 8, '5' 9, '10' 10) rotate by 90 right
set ytics ('10' 0, '5' 1, '8' 2, '6' 3, '12' 4, '<s>' 5, '12' 6, '6' 7, '8' 8, '5' 9, '10' 10)
set xrange [-0.5:11-0.5]
set yrange [11-0.5:-0.5]
set xlabel 'key'
set ylabel 'query'
set size ratio -1
set title 'head 0'
plot 'data/attention_decoder_layers_1_self_attn.dat' index 0 matrix with image notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
unset ylabel
set title 'head 1'
plot 'data/attention_decoder_layers_1_self_attn.dat' index 1 matrix with image notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 2'
plot 'data/attention_decoder_layers_1_self_attn.dat' index 2 matrix with image notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 3'
plot 'data/attention_decoder_layers_1_self_attn.dat' index 3 matrix with image notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
unset multiplot
set output
set terminal pngcairo size 2040,600 noenhanced background '#ffffff'
set output png_file
set multiplot layout 1,4 title "decoder.layers.1.self_attn: attention weights on the first validation example\ntrial 8ed4fe54030bb9d4 (seed 0) of task.kind=reverse positions.kind=learned   (positions.kind = model.positions.kind)\nthe first seed of the point with the best mean validation sequence_accuracy (last evaluation)\ngrey with a cross: masked (causal: no key after the query)" margins 0.07, 0.97, 0.16, 0.72 spacing 0.17, 0.1
set palette defined (0 '#ffffd9', 0.25 '#c7e9b4', 0.5 '#41b6c4', 0.75 '#225ea8', 1 '#081d58')
set cbrange [0:1]
set colorbox
set cblabel 'attention weight'
set cbtics 0.25
set xtics ('10' 0, '5' 1, '8' 2, '6' 3, '12' 4, '<s>' 5, '12' 6, '6' 7, '8' 8, '5' 9, '10' 10) rotate by 90 right
set ytics ('10' 0, '5' 1, '8' 2, '6' 3, '12' 4, '<s>' 5, '12' 6, '6' 7, '8' 8, '5' 9, '10' 10)
set xrange [-0.5:11-0.5]
set yrange [11-0.5:-0.5]
set xlabel 'key'
set ylabel 'query'
set size ratio -1
set title 'head 0'
plot 'data/attention_decoder_layers_1_self_attn.dat' index 0 matrix with image notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
unset ylabel
set title 'head 1'
plot 'data/attention_decoder_layers_1_self_attn.dat' index 1 matrix with image notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 2'
plot 'data/attention_decoder_layers_1_self_attn.dat' index 2 matrix with image notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 3'
plot 'data/attention_decoder_layers_1_self_attn.dat' index 3 matrix with image notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_1_self_attn.dat' index 4 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
unset multiplot
set output
