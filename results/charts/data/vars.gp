# Written by `bench report` from the CSVs in results/; do not edit.
allocator_count = 2
array allocator_title[2] = ["glibc malloc", "jemalloc"]
array case_title[4] = ["data task", "download task", "data task + render", "download task + render"]
array case_article_mb[4] = [30.0000, 4.0000, 118.0000, 93.0000]
bitmap_mb = 96.0000
payload_mb = 13.1084
matrix_count = 4
array matrix_title[4] = ["download (fetch only)", "data (fetch only)", "download + full", "data + full"]
timeline_count = 4
array timeline_title[4] = ["data task", "download task", "data task + render", "download task + render"]
timeline_allocator = "glibc malloc"
sweep_count = 2
array sweep_title[2] = ["data: 2.02 B held per payload byte", "download: 0.02 B held per payload byte"]
sweep_condition = "renderer none, glibc malloc"
