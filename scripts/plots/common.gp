# Shared by every chart. The caller sets: plots_dir (this folder), data_dir (bench report's output), out_base (path
# without extension), format ('svg' or 'png'), and chart_width / chart_height in pixels.
load data_dir.'/vars.gp'

if (format eq 'svg') {
    set terminal svg size chart_width, chart_height dynamic enhanced font 'DejaVu Sans,13' background '#ffffff'
} else {
    set terminal pngcairo size chart_width, chart_height enhanced font 'DejaVu Sans,11' background '#ffffff'
}
set output out_base.'.'.format
set encoding utf8

# One colour per series, the same everywhere: colour-blind-safe (Okabe-Ito).
array palette[8] = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000']
series_color(i) = palette[(i - 1) % 8 + 1]
# Point shapes too, so that series past the eighth colour stay apart.
array shapes[6] = [7, 5, 9, 11, 13, 15]
series_point(i) = shapes[(i - 1) % 6 + 1]

set border 3 lc rgb '#444444'
set tics nomirror textcolor rgb '#333333'
set grid ytics lc rgb '#dddddd' lw 1 dt 1
set key noautotitle
set key opaque box lc rgb '#cccccc'
set style fill solid 0.85 noborder
