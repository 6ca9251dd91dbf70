# Chart: how much of the peak is needed. Each article case under each allocator at its median run (by peak
# RSS), two bars: its peak RSS stacked by residency category, then its exact heap peak stacked by the
# holders' roles, both over the baseline; the floor a black line across both (residency.dat, in MB: the
# floor is on each case's RSS row only, so that the line is drawn once).
chart_width = 1300; chart_height = 660
load plots_dir.'/common.gp'

file = data_dir.'/residency.dat'
# 7 categories, 6 roles, then the floor: one colour each (Okabe-Ito, then lighter tones for the roles).
array colours[13] = ['#0072B2', '#56B4E9', '#E69F00', '#009E73', '#CC79A7', '#999999', '#D55E00', \
                     '#F0E442', '#88CCEE', '#44AA99', '#AA4499', '#DDCC77', '#BBBBBB']
floor_column = 15

set title 'How much of the peak is needed: peak RSS by category beside the exact heap peak by role' font ',14'
set ylabel 'over the baseline (MB)'
set yrange [0:*]
set style data histograms
set style histogram rowstacked
set boxwidth 0.8
set xtics scale 0 font ',8' noenhanced
set bmargin 7
set rmargin 2
set key outside top center horizontal maxrows 4 width -4 noenhanced nobox

plot for [i = 2:floor_column - 1] file using i:xtic(1) title columnheader(i) lc rgb colours[i - 1], \
     file skip 1 using ($0 - 0.45):floor_column:(1.9):(0) with vectors nohead lw 2 lc rgb '#000000' title 'floor'
