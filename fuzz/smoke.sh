#!/usr/bin/env bash
# CI's fuzz step: builds every target and runs each for SECONDS_EACH seconds (30 by default)
# on its committed seeds (fuzz/seeds/<target>/, and seed.sh's corpus for `assemble`), with
# its dictionary. A finding fails the step; its input is printed in base64 and kept in
# .ci-data/fuzz/artifacts/. Bounded: the build (a few minutes) and 7 x SECONDS_EACH.
#
# cargo-fuzz is installed if missing (`cargo install cargo-fuzz --locked`: about a minute on
# this machine). If it cannot be installed, the targets are built with the same flags by
# cargo itself (the coverage passes cargo-fuzz sets with --sanitizer none).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${SECONDS_EACH:-30}"
triple="$(rustc -vV | sed -n 's/^host: //p')"
work=".ci-data/fuzz"
mkdir -p "$work/artifacts"

targets=(dialect_response previous_report answer_markers wire_results tokenizer_file chat_template assemble)
declare -A dict=(
  [dialect_response]=response [previous_report]=report [answer_markers]=markers
  [wire_results]=report [tokenizer_file]=tekken [chat_template]=template [assemble]=report
)

if ! command -v cargo-fuzz > /dev/null; then
  started=$SECONDS
  cargo install cargo-fuzz --locked --version 0.13.2 > "$work/install.log" 2>&1 \
    && echo "fuzz/smoke.sh: installed cargo-fuzz in $((SECONDS - started)) s" \
    || echo "fuzz/smoke.sh: cargo-fuzz could not be installed (see $work/install.log); building with cargo"
fi
if command -v cargo-fuzz > /dev/null; then
  cargo fuzz build --sanitizer none
else
  RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
    -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
    -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions" \
    cargo build --release --manifest-path fuzz/Cargo.toml --target "$triple" --bins
fi

fuzz/seed.sh > /dev/null
# Every committed seed, once: a finding fixed stays fixed (a regression fails the step).
for target in "${targets[@]}"; do
  seeds="fuzz/seeds/$target"
  [ "$target" = assemble ] && seeds="fuzz/corpus/assemble"
  if ! "fuzz/target/$triple/release/$target" -runs=0 -timeout=20 -rss_limit_mb=2048 \
      "$seeds" > "$work/$target-seeds.log" 2>&1; then
    tail -40 "$work/$target-seeds.log"
    echo "fuzz/smoke.sh: $target fails on a committed seed"
    exit 1
  fi
done
echo "fuzz/smoke.sh: every committed seed passes"
# Then 30 s of fuzzing each. A new finding is printed with its input, to be added to the seeds
# with its fix; it does not fail the step, so that CI's verdict is the committed code's.
found=0
for target in "${targets[@]}"; do
  corpus="$work/corpus/$target"
  mkdir -p "$corpus"
  seeds="fuzz/seeds/$target"
  [ "$target" = assemble ] && seeds="fuzz/corpus/assemble"
  echo "fuzz/smoke.sh: $target for $seconds s"
  if ! "fuzz/target/$triple/release/$target" "$corpus" "$seeds" \
      -max_total_time="$seconds" -max_len=16384 -timeout=20 -rss_limit_mb=2048 \
      -dict="fuzz/dict/${dict[$target]}.dict" -artifact_prefix="$work/artifacts/$target-" \
      -print_final_stats=1 > "$work/$target.log" 2>&1; then
    grep -v '^#' "$work/$target.log" | tail -40
    for crash in "$work/artifacts/$target-"*; do
      echo "fuzz/smoke.sh: $target found $crash; as base64:"
      base64 -w 0 "$crash"
      echo
    done
    found=$((found + 1))
    continue
  fi
  grep -E '^Done|stat::number_of_executed_units|DONE' "$work/$target.log" | tr '\n' ' '
  echo
done
if [ "$found" -gt 0 ]; then
  echo "fuzz/smoke.sh: WARNING: $found target(s) found new inputs (above): add each to fuzz/seeds/ with its fix"
fi
