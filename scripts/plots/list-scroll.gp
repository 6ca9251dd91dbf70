# Chart 5: list-scroll, peak RSS over baseline against --max-concurrent, per strategy and renderer.
# Reads list-scroll.csv directly (columns by name); points are runs, lines join the means per cap.
# The caller sets: csv (list-scroll.csv), plots_dir, data_dir (for common.gp), out_base, format. Every successful
# row of the CSV is drawn: bench report, run before, refuses a list-scroll.csv whose rows mix settings.
chart_width = 1000; chart_height = 600
load plots_dir.'/common.gp'
set grid xtics ytics lc rgb '#dddddd' lw 1 dt 1
set key at graph 0.5, graph 0.5 center reverse Left

set datafile separator ','
set title 'Scrolling list: peak memory against the cap on requests in progress' font ',14'
set xlabel 'max concurrent requests (fetch and decode)'
set ylabel 'peak RSS over baseline (MB)'
set logscale x 2
set xtics (1, 2, 4, 6, 8, 16)
set xrange [0.8:20]
set yrange [0:*]

array strategy[4] = ['data', 'data', 'download', 'download']
array render[4] = ['full', 'thumbnail', 'full', 'thumbnail']
picked(i) = strcol('status') eq 'ok' && strcol('strategy') eq strategy[i] && strcol('render') eq render[i]
peak_mb(i) = picked(i) ? (column('peak_rss_bytes') - column('baseline_rss_bytes')) / 1e6 : NaN

plot for [i = 1:4] csv using 'max_concurrent':(peak_mb(i)) smooth unique with lines lw 2 lc rgb series_color(i) notitle, \
     for [i = 1:4] csv using 'max_concurrent':(peak_mb(i)) with points pt series_point(i) ps 1.1 lc rgb series_color(i) \
         title strategy[i].', '.render[i].' (runs; line: mean)'
