# Written by `bench report` from the CSVs in results/; do not edit.
allocator_count = 2
array allocator_title[2] = ["glibc malloc", "jemalloc"]
array case_title[4] = ["data task", "download task", "data task + render", "download task + render"]
array case_article_mb[4] = [30.0000, 4.0000, 118.0000, 93.0000]
bitmap_mb = 96.0000
payload_mb = 13.1084
matrix_count = 44
array matrix_title[44] = ["curl-file (fetch only)", "async-download (fetch only)", "download (fetch only)", "download-publisher (fetch only)", "data-stream (fetch only)", "curl-file + stream", "download + stream", "async-download + stream", "download-publisher + stream", "curl-file + thumbnail", "download-publisher + thumbnail", "download + thumbnail", "async-download + thumbnail", "data-stream + stream", "data-stream + thumbnail", "curl-memory (fetch only)", "curl-memory + stream", "curl-memory + thumbnail", "data (fetch only)", "data + stream", "data-publisher + stream", "data-publisher + thumbnail", "async-data + thumbnail", "async-data + stream", "async-data (fetch only)", "data-publisher (fetch only)", "future + thumbnail", "future + stream", "data + thumbnail", "future (fetch only)", "contents-of + stream", "contents-of + thumbnail", "contents-of (fetch only)", "curl-file + full", "async-download + full", "download + full", "download-publisher + full", "data-stream + full", "curl-memory + full", "data + full", "async-data + full", "data-publisher + full", "future + full", "contents-of + full"]
timeline_count = 4
array timeline_title[4] = ["data task", "download task", "data task + render", "download task + render"]
timeline_allocator = "glibc malloc"
sweep_count = 11
array sweep_title[11] = ["data: 2.02 B held per payload byte", "download: 0.02 B held per payload byte", "async-data: 2.02 B held per payload byte", "async-download: 0.02 B held per payload byte", "data-stream: 0.11 B held per payload byte", "data-publisher: 2.02 B held per payload byte", "download-publisher: 0.02 B held per payload byte", "future: 2.02 B held per payload byte", "contents-of: 2.01 B held per payload byte", "curl-memory: 1.00 B held per payload byte", "curl-file: 0.00 B held per payload byte"]
sweep_condition = "renderer none, glibc malloc"
