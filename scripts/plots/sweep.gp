# Chart 3: peak RSS over baseline against payload size, per strategy, with the fitted line.
# The slope in the legend is how many bytes the strategy holds per byte of payload.
chart_width = 1000; chart_height = 640
load plots_dir.'/common.gp'

file = data_dir.'/sweep.dat'

set title sprintf('Peak memory against payload size (%s; median, min-max whiskers)', sweep_condition) font ',14'
set xlabel 'payload (MB)'
set ylabel 'peak RSS over baseline (MB)'
set xrange [0:*]
set yrange [0:*]
set key top left reverse Left
set grid xtics

# Guides: one and two copies of the payload.
set style line 90 dt 3 lc rgb '#999999'
plot x with lines ls 90 title '1 and 2 x payload', 2 * x with lines ls 90 notitle, \
     for [i = 1:sweep_count] file index (i - 1) using 1:7 with lines lw 2 lc rgb series_color(i) notitle, \
     for [i = 1:sweep_count] file index (i - 1) using 1:2:5:6 with yerrorbars pt series_point(i) ps 1.1 lc rgb series_color(i) title sweep_title[i]
