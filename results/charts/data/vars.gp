# Written by `bench report` from the CSVs in results/; do not edit.
allocator_count = 2
array allocator_title[2] = ["glibc malloc", "jemalloc"]
array case_title[4] = ["data task", "download task", "data task + render", "download task + render"]
array case_article_mb[4] = [30.0000, 4.0000, 118.0000, 93.0000]
bitmap_mb = 96.0000
payload_mb = 13.1084
matrix_count = 33
array matrix_title[33] = ["curl-file (fetch only)", "async-download (fetch only)", "download (fetch only)", "download-publisher (fetch only)", "data-stream (fetch only)", "curl-file + thumbnail", "download-publisher + thumbnail", "async-download + thumbnail", "download + thumbnail", "data-stream + thumbnail", "curl-memory (fetch only)", "curl-memory + thumbnail", "future (fetch only)", "data + thumbnail", "data-publisher (fetch only)", "data (fetch only)", "data-publisher + thumbnail", "async-data (fetch only)", "async-data + thumbnail", "future + thumbnail", "contents-of + thumbnail", "contents-of (fetch only)", "curl-file + full", "download + full", "async-download + full", "download-publisher + full", "data-stream + full", "curl-memory + full", "async-data + full", "data + full", "future + full", "data-publisher + full", "contents-of + full"]
timeline_count = 4
array timeline_title[4] = ["data task", "download task", "data task + render", "download task + render"]
timeline_allocator = "glibc malloc"
sweep_count = 11
array sweep_title[11] = ["data: 2.02 B held per payload byte", "download: 0.01 B held per payload byte", "async-data: 2.02 B held per payload byte", "async-download: 0.02 B held per payload byte", "data-stream: 0.57 B held per payload byte", "data-publisher: 2.01 B held per payload byte", "download-publisher: 0.02 B held per payload byte", "future: 2.00 B held per payload byte", "contents-of: 1.97 B held per payload byte", "curl-memory: 1.00 B held per payload byte", "curl-file: 0.00 B held per payload byte"]
sweep_condition = "renderer none, glibc malloc"
