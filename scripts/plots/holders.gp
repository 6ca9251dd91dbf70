# Chart: who holds the peak. Each article case under each allocator at its median run, one bar of its
# exact heap peak stacked by holder (holders.dat: a header of titles, then a row per bar, in MB).
chart_width = 1100; chart_height = 620
load plots_dir.'/common.gp'

file = data_dir.'/holders.dat'

set title 'Who holds the peak: the exact heap peak of each case, by the code that allocated it' font ',14'
set ylabel 'exact heap peak (MB)'
set yrange [0:*]
set style data histograms
set style histogram rowstacked
set boxwidth 0.7
set xtics scale 0 font ',10' noenhanced
set bmargin 6
set rmargin 2
set key outside top center horizontal maxrows 4 width -6 noenhanced nobox

plot for [i = 2:*] file using i:xtic(1) title columnheader(i) lc rgb series_color(i - 1)
