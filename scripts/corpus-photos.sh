#!/usr/bin/env bash
# Assembles the example corpus in FOLDER (default: ~/.cache/image-memory-bench/corpus): real
# photographs and a PNG wallpaper from Debian's mate-backgrounds package (installed here if missing;
# never committed: they are tens of MB) and generated images in every encoding (bench fixture), 21 images. Idempotent: files
# already there are kept, and a ready machine touches neither apt nor the network.
#
# Usage: scripts/corpus-photos.sh [FOLDER]      (BENCH=path/to/bench, default .build/release/bench)
set -euo pipefail

folder=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/image-memory-bench/corpus}
bench=${BENCH:-.build/release/bench}
package=mate-backgrounds
source_dir=/usr/share/backgrounds/mate

# Photographs (nature/: camera pictures, one progressive; Elephants: a progressive one and a large
# baseline one, 5640x3172) and one PNG wallpaper.
photos=(
  nature/Aqua.jpg nature/Blinds.jpg nature/Dune.jpg nature/FreshFlower.jpg nature/Garden.jpg
  nature/RainDrops.jpg nature/Storm.jpg nature/TwoWings.jpg nature/Wood.jpg
  abstract/Elephants.jpg abstract/Elephants_5640x3172.jpg desktop/Ubuntu-Mate-Cold-no-logo.png
)
# Generated: WIDTH HEIGHT ENCODING (bench fixture --encoding), the project's deterministic picture.
# HEIC and AVIF are smaller: their encoders (x265, aom) take minutes at 6 MP on two cores.
generated=(
  "3000 2000 jpeg" "3000 2000 jpeg-progressive" "3000 2000 jpeg-444" "3000 2000 png-rgb"
  "3000 2000 png-rgba-interlaced" "3000 2000 webp-lossy" "3000 2000 webp-lossless"
  "1500 1000 heic" "1500 1000 avif"
)

if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
  if [ "$(id -u)" -eq 0 ]; then sudo=(); elif command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    echo "corpus-photos: $package is missing and this is not root (no sudo): apt-get install -y $package" >&2
    exit 1
  fi
  echo "corpus-photos: installing $package (the photographs)"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$package" \
    || { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$package"; }
fi

mkdir -p "$folder/photos" "$folder/generated"
for photo in "${photos[@]}"; do
  target="$folder/photos/$(basename "$photo")"
  [ -f "$target" ] || cp "$source_dir/$photo" "$target"
done
[ -x "$bench" ] || { echo "corpus-photos: $bench is not built; run 'swift build -c release' or set BENCH" >&2; exit 66; }
for spec in "${generated[@]}"; do
  read -r width height encoding <<< "$spec"
  # No extension: the format is read from the bytes, never the name.
  target="$folder/generated/${encoding}-${width}x${height}"
  [ -f "$target" ] && continue
  "$bench" fixture --width "$width" --height "$height" --encoding "$encoding" --out "$target.tmp" > /dev/null
  mv "$target.tmp" "$target"
done
echo "corpus-photos: $(find "$folder" -type f | wc -l) images in $folder"
