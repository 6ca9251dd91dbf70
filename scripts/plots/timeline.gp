# Chart 2: memory over time for one typical run of each article case: RSS above, heap below.
# Fetch-only runs are dashed and drawn last, over the render runs that share their first part.
# The dot on each line is where the body had fully arrived and the decode began.
chart_width = 1000; chart_height = 760
load plots_dir.'/common.gp'

file = data_dir.'/timeline.dat'
marks = data_dir.'/timeline_marks.dat'
# Cases 1 and 2 of the article are fetch only, 3 and 4 add the render; draw 3, 4, then 1, 2.
# A run of fewer cases (e.g. one strategy) is drawn in file order, solid.
order(k) = timeline_count != 4 ? k : (k <= timeline_count - 2 ? k + 2 : k - (timeline_count - 2))
dashed(i) = timeline_count == 4 && i <= 2 ? 2 : 1

set multiplot layout 2, 1 title sprintf("Memory over time, the median run of each case (%s)", timeline_allocator) font ',14'
set lmargin 11; set rmargin 3
set xrange [0:*]
set yrange [0:*]
set key top left reverse Left

set ylabel 'RSS over baseline (MB)'
set format x ''
set bmargin 1
plot for [k = 1:timeline_count] file index (order(k) - 1) using 1:2 with steps lw 2 dt dashed(order(k)) \
         lc rgb series_color(order(k)) title timeline_title[order(k)], \
     for [k = 1:timeline_count] marks every ::(k - 1)::(k - 1) using 2:3 with points pt 7 ps 1.4 lc rgb series_color(k) notitle, \
     marks using 2:3 with points pt 6 ps 1.4 lc rgb '#000000' title 'body received: decode starts'

set title ''
set format x '%g'
set xlabel 'time since the baseline reading (ms)'
set ylabel 'heap allocated over baseline (MB)'
set tmargin 1; set bmargin 3.5
set key off
plot for [k = 1:timeline_count] file index (order(k) - 1) using 1:3 with steps lw 2 dt dashed(order(k)) \
         lc rgb series_color(order(k)), \
     for [k = 1:timeline_count] marks every ::(k - 1)::(k - 1) using 2:4 with points pt 7 ps 1.4 lc rgb series_color(k), \
     marks using 2:4 with points pt 6 ps 1.4 lc rgb '#000000'
unset multiplot
