#!/usr/bin/env bash
# Prints what a reader needs to place the results: machine, OS, toolchain and the library
# versions that are measured. `make bench` and `make sweep` save it as results/environment.txt.
set -uo pipefail

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
memory=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
os=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")
version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "not installed"; }

echo "cpu:           $cpu ($(nproc) online)"
echo "memory:        $memory"
echo "os:            $os, kernel $(uname -r) $(uname -m)"
echo "swift:         $(${SWIFT:-swift} --version 2>/dev/null | head -1)"
echo "glibc:         $(ldd --version 2>/dev/null | head -1 | awk '{ print $NF }')"
echo "jemalloc:      $(version libjemalloc2)"
echo "libcurl:       $(version libcurl4)"
echo "libjpeg-turbo: $(version libjpeg62-turbo)"
echo "libpng:        $(version libpng16-16)"
echo "libwebp:       $(version libwebp7)"
echo "libheif:       $(version libheif1) (libde265 $(version libde265-0), dav1d $(version libdav1d6), x265 $(version libx265-199), aom $(version libaom3))"
echo "libvips:       $(version libvips42) (vipsthumbnail, the encodings peer)"
