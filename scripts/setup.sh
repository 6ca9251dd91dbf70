#!/usr/bin/env bash
# Installs the system packages the harness needs, and only those that are missing.
# Idempotent: a second run on a ready machine does nothing and never touches the network.
set -euo pipefail

packages=(
  libcurl4-openssl-dev   # libcurl headers: the curl-* strategies and FoundationNetworking's transport
  libjemalloc-dev        # jemalloc: the second allocator, preloaded into the measured child only
  libjpeg62-turbo-dev    # libjpeg-turbo: fixture encoding, full and DCT-scaled decoding
  libjpeg-turbo-progs    # jpegtran: the progressive and restart-marker JPEGs the stream decoder's tests and fuzz seeds use
  libpng-dev             # libpng: PNG fixtures and decoding (full and streaming thumbnail)
  libwebp-dev            # libwebp: WebP fixtures and decoding (full and scaled)
  libheif-dev            # libheif: HEIC (libde265, x265) and AVIF (dav1d, aom) fixtures and decoding
  libvips-tools          # vipsthumbnail: the peer the encodings comparison measures
  mate-backgrounds       # real photographs (JPEG, PNG) for the corpus tests and example corpus; never committed
  gnuplot-nox            # make plots
  gcc                    # gcc's ThreadSanitizer: make sanitize's threads (the toolchain's clang TSan needs libdispatch)
  webp                   # cwebp: make sanitize's WebP fixtures
  pkg-config             # finds the C libraries for the system-library targets
  clang-format           # make format and make check-shape: the C files as .clang-format writes them
  wrk                    # HTTP load from outside: the image server's --listen test
  linux-perf             # perf: the decode-time study's profile of the stream renderer by stage
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all system packages present (${packages[*]})"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "setup: missing packages: ${missing[*]}" >&2
  echo "setup: not root and no sudo; install them as root: apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
