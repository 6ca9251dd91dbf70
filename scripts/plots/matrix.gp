# Chart 4: every strategy x renderer cell, ranked by peak RSS over baseline (smallest at the top).
# Works with whatever cells the results hold: rows and labels come from vars.gp.
load data_dir.'/vars.gp'  # the chart's height depends on how many rows there are
rows_height = matrix_count * (14 + 14 * allocator_count)
chart_width = 1000; chart_height = 190 + (rows_height > 260 ? rows_height : 260)
load plots_dir.'/common.gp'

file = data_dir.'/matrix.dat'
group = 0.8
bar = group / allocator_count
offset(a) = -group / 2 + bar * (a - 0.5)

set title 'Every strategy and renderer, ranked by peak RSS over baseline' font ',14'
set xlabel 'peak RSS over baseline (MB); median, whiskers min-max over runs'
set xrange [0:*]
set offsets 0, graph 0.06, 0, 0
set yrange [matrix_count - 0.5:-0.5]
set ytics () scale 0 font ',11'
do for [i = 1:matrix_count] { set ytics add (matrix_title[i] i - 1) }
unset grid
set grid xtics lc rgb '#dddddd'
set border 1
set lmargin 32  # room for the longest label, "download-publisher + thumbnail"
set key at screen 0.5, screen 0.01 center bottom horizontal nobox reverse Left width 1
set bmargin 7

bitmap(y) = exists('bitmap_mb') ? bitmap_mb : NaN
payload(y) = exists('payload_mb') ? payload_mb : NaN
set parametric
set trange [-0.5:matrix_count - 0.5]

plot for [a = 1:allocator_count] file index (a - 1) using ($2 / 2):($1 + offset(a)):(0):2:($1 + offset(a) - bar * 0.45):($1 + offset(a) + bar * 0.45) \
         with boxxyerror lc rgb series_color(a) title allocator_title[a], \
     for [a = 1:allocator_count] file index (a - 1) using 5:($1 + offset(a)):($6 - $5):(0) \
         with vectors heads size screen 0.005, 90 lc rgb '#222222' notitle, \
     for [a = 1:allocator_count] file index (a - 1) using 6:($1 + offset(a)):(sprintf(' %.1f', $2)) \
         with labels left font ',9' notitle, \
     bitmap(t), t with lines dt 2 lc rgb '#777777' title 'RGBA bitmap', \
     payload(t), t with lines dt 3 lc rgb '#777777' title 'payload'
