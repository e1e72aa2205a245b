#!/usr/bin/env bash
# The sanitizer stage of CI (scripts/test.sh): builds build-fuzz/ (clang, ASan + UBSan,
# libFuzzer; scripts/build_sanitized.sh), runs the C++ suite and the fuzz regression corpus
# there, then fuzzes each target for FUZZ_SECONDS (default 10) from its corpus.
# It builds only the `sanitized_suite` target (tests/CMakeLists.txt): the compiler, sim, isa,
# hwconfig and techmodel tests and the fuzz targets, not the CLI or the Python bridge.
# Not here (each runs in the Release stage): the test binaries marked RELEASE_ONLY in their
# CMakeLists.txt (determinism, runtime, report, backends, examples, estimate, engine_sim); nor long fuzzing
# runs (scripts/fuzz.sh TARGET 600, by hand; tests/fuzz/README.md). The other test binaries and
# the fuzz regression corpus run only here when scripts/test.sh drives both stages.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_seconds=${FUZZ_SECONDS:-10}
bash scripts/build_sanitized.sh sanitized_suite
# Leak checking stays on for the fuzz targets (scripts/fuzz.sh); the suite runs SystemC, whose
# coroutine stacks have guard pages that crash LeakSanitizer's heap scan at exit.
# runtime_tests is RELEASE_ONLY for a reason outside our code: it has the test that embeds
# CPython (the ONNX Runtime bridge: ASan reports a stack-use-after-scope inside CPython's own
# start-up, Py_InitializeFromConfig). SystemC's coroutine stacks, which ASan does not know, are
# handled in the model itself (sim/coroutine_stack.h).
ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-fuzz -j "$(nproc)" --output-on-failure --timeout 600
# The fuzz targets run side by side, one per core (each libFuzzer process is single-threaded).
mkdir -p build-fuzz/fuzz
targets=$(ls tests/fuzz/corpus)
for target in $targets; do
  while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n || true; done
  (
    rc=0
    FUZZ_PREBUILT=1 bash scripts/fuzz.sh "$target" "$fuzz_seconds" >"build-fuzz/fuzz/$target.log" 2>&1 || rc=$?
    echo "$rc" >"build-fuzz/fuzz/$target.rc"
  ) &
done
wait
for target in $targets; do
  log=build-fuzz/fuzz/$target.log
  if [ "$(cat "build-fuzz/fuzz/$target.rc")" != 0 ]; then
    tail -n 80 "$log"
    echo "fuzz target $target failed; the input is in build-fuzz/fuzz/$target/artifacts/" >&2
    exit 1
  fi
  echo "fuzz $target: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$') executions in ${fuzz_seconds} s"
done
