#!/usr/bin/env bash
# Seeds fuzz/corpus/assemble/ from fixtures/*.json.
#
# Each seed is 4 control bytes (budget u16 LE, option flags, option argument: see
# fuzz_targets/assemble.rs) followed by a fixture's JSON. Every fixture is written with a
# handful of control prefixes so the seeds cover budgets 0, 1, small and large, every
# encoding and every option. Fixtures too large for -max_len (the bench ones) are cut into
# slices of 5 results with jq, when jq is installed, and skipped otherwise.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
fixtures="$here/../fixtures"
corpus="$here/corpus/assemble"
max_len="${MAX_LEN:-16384}"
mkdir -p "$corpus"

# budget-lo budget-hi flags arg, as printf escapes, and a name for each.
prefixes=(
  'b1500-o200k:\xdc\x05\x00\x00'
  'b0-o200k:\x00\x00\x00\x00'
  'b1-cl100k:\x01\x00\x01\x00'
  'b100-cl100k:\x64\x00\x01\x00'
  'b3000-cl100k:\xb8\x0b\x01\x00'
  'b400-o200k-header-max3-hide:\x90\x01\x68\x03'
  'b200-p50k-keep-minscore:\xc8\x00\x86\x80'
  'b64-r50k-mintrunc32:\x40\x00\x13\x08'
)

write_seeds() { # name json-file
  local name="$1" json="$2" entry
  for entry in "${prefixes[@]}"; do
    { printf "${entry#*:}"; cat "$json"; } > "$corpus/$name-${entry%%:*}"
  done
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for fixture in "$fixtures"/*.json; do
  base="$(basename "$fixture" .json)"
  if [ "$(wc -c < "$fixture")" -le $((max_len - 4)) ]; then
    write_seeds "$base" "$fixture"
  elif command -v jq > /dev/null; then
    n="$(jq length "$fixture")"
    for ((i = 0; i < n; i += 5)); do
      jq -c ".[$i:$((i + 5))]" "$fixture" > "$tmp/slice.json"
      if [ "$(wc -c < "$tmp/slice.json")" -le $((max_len - 4)) ]; then
        write_seeds "$base-$i" "$tmp/slice.json"
      fi
    done
  else
    echo "seed.sh: skipping $base (over $max_len bytes; install jq to slice it)" >&2
  fi
done
echo "seed.sh: $(ls "$corpus" | wc -l) files in $corpus"
