# Written by `bench report` from the CSVs in results/; do not edit.
allocator_count = 2
array allocator_title[2] = ["glibc malloc", "jemalloc"]
array case_title[4] = ["data task", "download task", "data task + render", "download task + render"]
array case_article_mb[4] = [30.0000, 4.0000, 118.0000, 93.0000]
bitmap_mb = 96.0000
payload_mb = 13.1084
matrix_count = 33
array matrix_title[33] = ["curl-file (fetch only)", "async-download (fetch only)", "download (fetch only)", "download-publisher (fetch only)", "data-stream (fetch only)", "curl-file + thumbnail", "async-download + thumbnail", "download + thumbnail", "download-publisher + thumbnail", "data-stream + thumbnail", "curl-memory (fetch only)", "curl-memory + thumbnail", "async-data (fetch only)", "data-publisher + thumbnail", "data (fetch only)", "future (fetch only)", "data-publisher (fetch only)", "future + thumbnail", "async-data + thumbnail", "data + thumbnail", "contents-of + thumbnail", "contents-of (fetch only)", "curl-file + full", "download + full", "download-publisher + full", "async-download + full", "data-stream + full", "curl-memory + full", "async-data + full", "data-publisher + full", "data + full", "future + full", "contents-of + full"]
timeline_count = 4
array timeline_title[4] = ["data task", "download task", "data task + render", "download task + render"]
timeline_allocator = "glibc malloc"
sweep_count = 11
array sweep_title[11] = ["data: 2.02 B held per payload byte", "download: 0.02 B held per payload byte", "async-data: 2.02 B held per payload byte", "async-download: 0.02 B held per payload byte", "data-stream: 0.18 B held per payload byte", "data-publisher: 2.02 B held per payload byte", "download-publisher: 0.02 B held per payload byte", "future: 2.02 B held per payload byte", "contents-of: 1.98 B held per payload byte", "curl-memory: 1.00 B held per payload byte", "curl-file: 0.00 B held per payload byte"]
sweep_condition = "renderer none, glibc malloc"
