#!/usr/bin/env bash
# The first request of a fresh process against a warmed-up one, for every strategy, against a real
# nginx on loopback serving the article's fixture: the article measured a freshly started app, so
# how much of its download-task figure is the cost of a first request?
#
# Usage: scripts/cold-warm.sh [OUT]     (default OUT: runs/cold-warm-<UTC time>; `make reference`
#                                        writes the committed copy into results/cold-warm)
# Writes OUT/warm and OUT/cold, each a `bench run` folder (trials.csv, trials.json, ...):
#   warm  `bench run --url ...`          each child first fetches the origin's root (same origin)
#   cold  `bench run --url ... --cold`   each child's first request is the measured one
# Installs nginx from Debian's packages when it is missing (as root, or with sudo).
set -euo pipefail
cd "$(dirname "$0")/.."

bench=${BENCH:-.build/release/bench}
out=${1:-runs/cold-warm-$(date -u +%Y%m%dT%H%M%SZ)}
runs=${COLD_WARM_RUNS:-5}
[ -x "$bench" ] || { echo "cold-warm: $bench is not built; run 'make build' or set BENCH" >&2; exit 66; }

if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  echo "cold-warm: installing nginx (Debian package)"
  # Keep the package's own service from starting on port 80: only our loopback instance runs.
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee /usr/sbin/policy-rc.d >/dev/null
  "${sudo[@]}" chmod +x /usr/sbin/policy-rc.d
  trap '"${sudo[@]}" rm -f /usr/sbin/policy-rc.d' EXIT
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends nginx >/dev/null \
    || { "${sudo[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends nginx >/dev/null; }
  "${sudo[@]}" rm -f /usr/sbin/policy-rc.d
  trap - EXIT
fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d)
nginx_pid=""
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

mkdir -p "$work/www" "$work/logs"
chmod 755 "$work"  # nginx workers run as an unprivileged user
"$bench" fixture --out "$work/www/fixture.jpg" >/dev/null
chmod 644 "$work/www/fixture.jpg"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$work/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/logs/error.log;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  sendfile on;
  client_body_temp_path $work/tmp;
  server {
    listen 127.0.0.1:$port;
    root $work/www;
    # The origin's root answers 200: the default warm-up target of \`bench run --url\`.
    location = / { default_type text/plain; return 200 "warm-up\n"; }
  }
}
EOF
"$nginx_bin" -p "$work" -c "$work/nginx.conf" &
nginx_pid=$!
for _ in $(seq 50); do
  curl -sf -o /dev/null "http://127.0.0.1:$port/" && break
  sleep 0.1
done
curl -sf -o /dev/null "http://127.0.0.1:$port/fixture.jpg" || { echo "cold-warm: nginx did not start" >&2; cat "$work/logs/error.log" >&2; exit 70; }
echo "cold-warm: $("$nginx_bin" -v 2>&1) on 127.0.0.1:$port, $runs runs per cell, into $out"

url="http://127.0.0.1:$port/fixture.jpg"
# --replace: re-measuring the folders of an earlier call (results/cold-warm in make reference) is the point.
"$bench" run --url "$url" --strategy all --render none --runs "$runs" --out "$out/warm" --replace
"$bench" run --url "$url" --strategy all --render none --runs "$runs" --cold --out "$out/cold" --replace
"$nginx_bin" -v > "$out/nginx-version.txt" 2>&1
# The comparison is of peaks; every sample of every run (megabytes of CSV) is not needed.
rm -f "$out/warm/timeline.csv" "$out/cold/timeline.csv"
echo "cold-warm: wrote $out/warm and $out/cold"
