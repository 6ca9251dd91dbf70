# Chart 1: the article's four cases, ours (median, min-max whiskers, per allocator) beside its iOS figures.
chart_width = 1000; chart_height = 600
load plots_dir.'/common.gp'

file = data_dir.'/article.dat'
group = 0.76                          # width taken by one case's bars
bar = group / allocator_count
offset(a) = -group / 2 + bar * (a - 0.5)

set title "The article's four cases: ours on Linux beside the article's iOS figure" font ',14'
set ylabel 'peak RSS over baseline (MB)'
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set xrange [-0.55:3.55]
set xtics () scale 0 font ',12'
do for [i = 1:|case_title|] {
    set xtics add (sprintf("%s\n{/:Italic article: %.0f MB}", case_title[i], case_article_mb[i]) i - 1)
}
set bmargin 8
set key at screen 0.5, screen 0.01 center bottom maxrows 3 width 2 nobox reverse Left

# Reference lines go through the key, not labels that bars could hide.
# Value labels sit above the whisker and above the article's line, so neither crosses them.
above(a, b) = a > b ? a : b
bitmap(x) = exists('bitmap_mb') ? bitmap_mb : NaN
payload(x) = exists('payload_mb') ? payload_mb : NaN
bitmap_title = exists('bitmap_mb') ? sprintf('decoded RGBA bitmap, w x h x 4 = %.1f MB', bitmap_mb) : ''
payload_title = exists('payload_mb') ? sprintf('payload (JPEG on the wire) = %.1f MB', payload_mb) : ''

plot for [a = 1:allocator_count] file index (a - 1) using ($1 + offset(a)):3:(bar * 0.9) \
         with boxes lc rgb series_color(a) title 'ours, '.allocator_title[a].' (median, min-max over runs)', \
     for [a = 1:allocator_count] file index (a - 1) using ($1 + offset(a)):6:(0):($7 - $6) \
         with vectors heads size screen 0.006, 90 lc rgb '#222222' lw 1.2 notitle, \
     for [a = 1:allocator_count] file index (a - 1) using ($1 + offset(a)):(above($7, $2)):(sprintf('%.1f', $3)) \
         with labels offset 0, 0.7 font ',10' notitle, \
     file index 0 using ($1 - group / 2 - 0.03):2:(group + 0.06):(0) \
         with vectors nohead lw 3.5 lc rgb '#000000' title "the article (iOS, Xcode's memory gauge)", \
     bitmap(x) with lines dt 2 lw 1.2 lc rgb '#777777' title bitmap_title, \
     payload(x) with lines dt 3 lw 1.2 lc rgb '#777777' title payload_title
