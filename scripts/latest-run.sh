#!/usr/bin/env bash
# Prints the folder of the newest run that has a trials.csv or an image server's server.csv:
# <runs>/latest when it has one, else the newest <runs>/<UTC time>/ with one (a sweep or list-scroll
# run has neither). Prints nothing if none.
# Usage: scripts/latest-run.sh [runs-folder]
set -uo pipefail
runs=${1:-runs}
if [ -f "$runs/latest/trials.csv" ] || [ -f "$runs/latest/server.csv" ]; then
  echo "$runs/$(readlink "$runs/latest")"
  exit 0
fi
# Folder names are UTC times: their order is their age.
for folder in $(ls -1d "$runs"/*/ 2>/dev/null | sort -r); do
  if [ -f "$folder/trials.csv" ] || [ -f "$folder/server.csv" ]; then echo "${folder%/}"; exit 0; fi
done
