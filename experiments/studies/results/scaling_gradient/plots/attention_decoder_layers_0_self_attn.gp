# Attention weights of decoder.layers.0.self_attn on the first validation example
# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit
# and run from this directory: gnuplot attention_decoder_layers_0_self_attn.gp
# Data: data/attention_decoder_layers_0_self_attn.dat

if (!exists("svg_file")) svg_file = 'attention_decoder_layers_0_self_attn.svg'
if (!exists("png_file")) png_file = 'attention_decoder_layers_0_self_attn.png'
set terminal svg size 3960,600 noenhanced background '#ffffff'
set output svg_file
set multiplot layout 1,8 title "decoder.layers.0.self_attn: attention weights on the first validation example\ntrial 672e620db93155f0 (seed 0) of scale=learned d_model=128 heads=8   (scale = model.attention.scale, d_model = model.d_model, heads = model.heads)\nthe first seed of the point with the best mean validation sequence_accuracy (last evaluation)\ngrey with a cross: masked (causal: no key after the query)" margins 0.07, 0.985, 0.16, 0.72 spacing 0.17, 0.1
set palette defined (0 '#ffffd9', 0.25 '#c7e9b4', 0.5 '#41b6c4', 0.75 '#225ea8', 1 '#081d58')
set cbrange [0:1]
set colorbox
set cblabel 'attention weight'
set cbtics 0.25
set xtics ('<s>' 0, '3' 1, '0' 2, '7' 3, '0' 4, '7' 5, '6' 6, '5' 7) rotate by 90 right
set ytics ('<s>' 0, '3' 1, '0' 2, '7' 3, '0' 4, '7' 5, '6' 6, '5' 7)
set xrange [-0.5:8-0.5]
set yrange [8-0.5:-0.5]
set xlabel 'key'
set ylabel 'query'
set size ratio -1
set title 'head 0'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 0 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
unset ylabel
set title 'head 1'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 1 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 2'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 2 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 3'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 3 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 4'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 4 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 5'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 5 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 6'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 6 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 7'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 7 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
unset multiplot
set output
set terminal pngcairo size 3960,600 noenhanced background '#ffffff'
set output png_file
set multiplot layout 1,8 title "decoder.layers.0.self_attn: attention weights on the first validation example\ntrial 672e620db93155f0 (seed 0) of scale=learned d_model=128 heads=8   (scale = model.attention.scale, d_model = model.d_model, heads = model.heads)\nthe first seed of the point with the best mean validation sequence_accuracy (last evaluation)\ngrey with a cross: masked (causal: no key after the query)" margins 0.07, 0.985, 0.16, 0.72 spacing 0.17, 0.1
set palette defined (0 '#ffffd9', 0.25 '#c7e9b4', 0.5 '#41b6c4', 0.75 '#225ea8', 1 '#081d58')
set cbrange [0:1]
set colorbox
set cblabel 'attention weight'
set cbtics 0.25
set xtics ('<s>' 0, '3' 1, '0' 2, '7' 3, '0' 4, '7' 5, '6' 6, '5' 7) rotate by 90 right
set ytics ('<s>' 0, '3' 1, '0' 2, '7' 3, '0' 4, '7' 5, '6' 6, '5' 7)
set xrange [-0.5:8-0.5]
set yrange [8-0.5:-0.5]
set xlabel 'key'
set ylabel 'query'
set size ratio -1
set title 'head 0'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 0 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
unset ylabel
set title 'head 1'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 1 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 2'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 2 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 3'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 3 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 4'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 4 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 5'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 5 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 6'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 6 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
set title 'head 7'
plot 'data/attention_decoder_layers_0_self_attn.dat' index 7 matrix with image notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' notitle, \
     'data/attention_decoder_layers_0_self_attn.dat' index 8 using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle
unset multiplot
set output
