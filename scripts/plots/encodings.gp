# Chart: the same picture in every encoding, peak RSS over baseline: our full decode, our
# thumbnail (libjpeg's DCT scaling or the format's cheapest path), vipsthumbnail at the same output
# size, and our stream renderer (1024 px on the long side, streaming; absent in files without it).
chart_width = 1100; chart_height = 560
load plots_dir.'/common.gp'

file = data_dir.'/encodings.dat'
set title 'What the encoding costs: the same 6000x4000 picture, peak RSS over baseline' font ',14'
set ylabel 'peak RSS over baseline (MB), median over runs'
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set yrange [0:*]
set xtics rotate by -35 scale 0 font ',10'
set key top left
set bmargin 8
plot file using 2:xtic(1) lc rgb series_color(1) title 'ours: full RGBA', \
     '' using 3 lc rgb series_color(2) title 'ours: thumbnail', \
     '' using 4 lc rgb series_color(3) title 'vipsthumbnail', \
     '' using 5 lc rgb series_color(4) title 'ours: stream'
