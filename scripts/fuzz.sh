#!/usr/bin/env bash
# Fuzzes one target for a while: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
# Targets: onnx_compile npuprog sim assembler config_yaml npy tensor_proto (tests/fuzz/README.md).
# Builds it in build-fuzz/ (scripts/build_sanitized.sh: clang, libFuzzer, ASan+UBSan), starts
# from the committed corpus tests/fuzz/corpus/TARGET plus what earlier runs found
# (build-fuzz/fuzz/TARGET/corpus), and stops after SECONDS. A crash, sanitizer report, leak,
# hang (one input over 30 s) or out-of-memory (over 2 GiB) stops it with exit code 1 and
# leaves the input in build-fuzz/fuzz/TARGET/artifacts/; it becomes a regression input in
# tests/fuzz/corpus/TARGET/ together with its fix.
set -euo pipefail
cd "$(dirname "$0")/.."
if (($# < 2)); then
  echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options]" >&2
  exit 2
fi
target=$1 seconds=$2
shift 2
if [ ! -d "tests/fuzz/corpus/$target" ]; then
  echo "scripts/fuzz.sh: unknown target '$target' (targets: $(ls tests/fuzz/corpus | tr '\n' ' '))" >&2
  exit 2
fi
# FUZZ_PREBUILT=1: the caller built every target (scripts/test_sanitized.sh runs several
# targets at once, and two builds in one build directory would race).
[ "${FUZZ_PREBUILT:-0}" = 1 ] || bash scripts/build_sanitized.sh "fuzz_$target" >/dev/null
work=build-fuzz/fuzz/$target
mkdir -p "$work/corpus" "$work/artifacts"
# Leak checking for every target but `sim`: it runs SystemC, whose coroutine stacks have guard
# pages that crash LeakSanitizer's scan (scripts/test_sanitized.sh runs the suite without it too).
leaks=1
[ "$target" = sim ] && leaks=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=$leaks:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# -rss_limit_mb also bounds a single allocation: a file must never make us allocate what it
# does not hold. One process, one core (the machines are shared).
"build-fuzz/bin/fuzz_$target" "$work/corpus" "tests/fuzz/corpus/$target" \
  -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$@"
