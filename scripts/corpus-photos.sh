#!/usr/bin/env bash
# Assembles the example corpus in FOLDER (default: ~/.cache/image-memory-bench/corpus): real
# photographs from Debian's mate-backgrounds package (installed here if missing; never committed:
# they are tens of MB) and generated JPEGs (bench fixture), about 20 images. Idempotent: files
# already there are kept, and a ready machine touches neither apt nor the network.
#
# Usage: scripts/corpus-photos.sh [FOLDER]      (BENCH=path/to/bench, default .build/release/bench)
set -euo pipefail

folder=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/image-memory-bench/corpus}
bench=${BENCH:-.build/release/bench}
package=mate-backgrounds
source_dir=/usr/share/backgrounds/mate

# Photographs (nature/: camera pictures, two of them progressive) and a large one (5640x3172).
photos=(
  nature/Aqua.jpg nature/Blinds.jpg nature/Dune.jpg nature/FreshFlower.jpg nature/Garden.jpg
  nature/GreenMeadow.jpg nature/LadyBird.jpg nature/RainDrops.jpg nature/Storm.jpg nature/TwoWings.jpg
  nature/Wood.jpg nature/YellowFlower.jpg abstract/Elephants.jpg abstract/Elephants_5640x3172.jpg
)
# Generated: WIDTHxHEIGHT and encoding, the project's deterministic fixture (bench fixture).
generated=(
  "1500 1000 baseline" "1500 1000 progressive" "3000 2000 baseline" "3000 2000 progressive"
  "6000 4000 baseline" "6000 4000 progressive"
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
  target="$folder/generated/fixture-${width}x${height}-$encoding.jpg"
  [ -f "$target" ] && continue
  flag=(); [ "$encoding" = progressive ] && flag=(--progressive)
  "$bench" fixture --width "$width" --height "$height" "${flag[@]}" --out "$target" > /dev/null
done
echo "corpus-photos: $(find "$folder" -type f | wc -l) images in $folder"
