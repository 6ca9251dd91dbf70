# Chart 6: the image server under load. Left: the exact heap peak over the server's baseline against
# the requests in flight at it, one series per strategy + renderer and render threads (one allocator's)
# (points: runs; solid: their mean by requests in flight; dashed: the floor those requests must hold).
# Right: throughput against that peak, the cost of each request/s in memory.
# The caller sets: plots_dir, data_dir (server.dat and server_vars.gp from bench report or bench-reference), out_base, format.
chart_width = 1400; chart_height = 720
load plots_dir.'/common.gp'
load data_dir.'/server_vars.gp'

file = data_dir.'/server.dat'
set multiplot layout 1, 2 title 'An image server under load: memory per request in flight ('.server_allocator.')' font ',14'

set title 'Heap peak against requests in flight (dashed: the floor)'
set xlabel 'requests in flight at the heap peak'
set ylabel 'exact heap peak over the baseline (MB)'
set logscale xy 2
set xrange [0.8:*]
set key below left reverse Left maxrows 4 font ',10'
plot for [i = 1:server_count] file index (i - 1) using 1:2 smooth unique with lines lw 2 lc rgb series_color(i) notitle, \
     for [i = 1:server_count] file index (i - 1) using 1:3 smooth unique with lines lw 1 dt 2 lc rgb series_color(i) notitle, \
     for [i = 1:server_count] file index (i - 1) using 1:2 with points pt series_point(i) ps 1 lc rgb series_color(i) \
         title server_title[i]

unset logscale
set logscale x 2
set title 'Throughput against the heap peak'
set xlabel 'exact heap peak over the baseline (MB)'
set ylabel 'requests answered a second'
set xrange [*:*]
set yrange [0:*]
set key off
plot for [i = 1:server_count] file index (i - 1) using 2:5 with points pt series_point(i) ps 1 lc rgb series_color(i) notitle

unset multiplot
