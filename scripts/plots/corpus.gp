# The corpus chart: each image's peak RSS over baseline against its pixel count, one colour per
# encoding, one point shape per renderer (filled: the first, e.g. full; open: the second, e.g. thumbnail).
# Guides: 4 bytes a pixel (one RGBA bitmap) and 7 (a bitmap plus a progressive JPEG's coefficients).
chart_width = 1000; chart_height = 640
load plots_dir.'/common.gp'

file = data_dir.'/corpus.dat'
set datafile missing '?'
set title 'Corpus: peak memory against pixel count, by encoding (median of runs)' font ',14'
set xlabel 'image size (megapixels)'
set ylabel 'peak RSS over baseline (MB)'
set xrange [0:*]
set yrange [0:*]
set key top left reverse Left
set style line 90 dt 3 lc rgb '#999999'
array open_shape[6] = [6, 4, 8, 10, 12, 14]
plot 4 * x with lines ls 90 title '4 and 7 bytes a pixel', 7 * x with lines ls 90 notitle, \
     for [r = 1:render_count] for [i = 1:corpus_count] file index (i - 1) using 1:(column(r + 1)) \
         with points pt (r == 1 ? series_point(i) : open_shape[(i - 1) % 6 + 1]) ps 1.3 lc rgb series_color(i) \
         title corpus_title[i].' ('.render_name[r].')'
