server_count = 8
array server_title[8] = ["data + full, 2 render threads", "data + full, a thread per render", "data + stream, 2 render threads", "data + stream, a thread per render", "download + full, 2 render threads", "download + full, a thread per render", "download + stream, 2 render threads", "download + stream, a thread per render"]
server_allocator = "glibc"
