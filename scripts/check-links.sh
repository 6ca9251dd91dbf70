#!/usr/bin/env bash
# Checks the relative links of Markdown documents: every [text](path) and ![alt](path) outside code
# blocks names a file or folder that exists, and a #fragment names a heading of its document (as
# GitHub makes anchors of headings). Links to http(s) and mailto are not followed.
#
# Usage: scripts/check-links.sh [FILE.md ...]     (default: README.md, CONTRIBUTING.md and docs/*.md)
# Exits 0 when every link resolves, 1 naming each one that does not, 66 when a document is missing.
set -uo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C.UTF-8

if [ $# -eq 0 ]; then set -- README.md CONTRIBUTING.md docs/*.md; fi

# The document without its fenced code blocks (``` or ~~~), so that code is not read as links.
prose() { awk '/^[[:space:]]*(```|~~~)/ { fenced = !fenced; next } !fenced' "$1"; }

# anchors FILE: the anchor of each heading of FILE, one a line (GitHub: lower case, punctuation
# other than - and _ dropped, each space a hyphen).
anchors() {
  prose "$1" | sed -nE 's/^#{1,6}[[:space:]]+(.*[^[:space:]#])[[:space:]#]*$/\1/p' \
    | tr '[:upper:]' '[:lower:]' | sed -E 's/[^[:alnum:] _-]//g; s/ /-/g'
}

broken=0
for document in "$@"; do
  if [ ! -f "$document" ]; then
    echo "check-links: $document does not exist" >&2
    exit 66
  fi
  folder=$(dirname "$document")
  # Inline links and images: the target up to the closing parenthesis, a title after a space dropped.
  while IFS= read -r target; do
    case "$target" in http://*|https://*|mailto:*) continue ;; esac
    path=${target%%#*}
    fragment=
    [[ "$target" == *#* ]] && fragment=${target#*#}
    if [ -z "$path" ]; then resolved=$document; else resolved=$folder/$path; fi
    if [ ! -e "$resolved" ]; then
      echo "$document: ($target): $resolved does not exist" >&2
      broken=$((broken + 1))
      continue
    fi
    if [ -n "$fragment" ]; then
      if [[ "$resolved" != *.md ]] || [ ! -f "$resolved" ]; then
        echo "$document: ($target): a #fragment needs a Markdown file" >&2
        broken=$((broken + 1))
      elif ! anchors "$resolved" | grep -qxF -- "$fragment"; then
        echo "$document: ($target): $resolved has no heading whose anchor is #$fragment" >&2
        broken=$((broken + 1))
      fi
    fi
  done < <(prose "$document" | grep -oE '\]\([^) ]+( "[^"]*")?\)' | sed -E 's/^\]\(([^) ]+).*$/\1/')
done

if [ "$broken" -ne 0 ]; then
  echo "check-links: $broken broken link(s) in $*" >&2
  exit 1
fi
echo "check-links: every relative link of $# document(s) resolves"
