corpus_count = 12
array corpus_title[12] = ['avif', 'heic', 'jpeg baseline 4:2:0', 'jpeg baseline 4:2:2', 'jpeg baseline 4:4:4', 'jpeg progressive 4:2:0', 'jpeg progressive 4:2:2', 'jpeg progressive 4:4:4', 'png rgb', 'png rgba interlaced', 'webp lossless', 'webp lossy']
render_count = 3
array render_name[3] = ['full', 'thumbnail', 'stream']
