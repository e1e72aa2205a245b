#!/usr/bin/env bash
# Configures and builds the sanitizer build into build-fuzz/: clang, AddressSanitizer +
# UndefinedBehaviorSanitizer on every target, libFuzzer instrumentation, the tests/fuzz targets
# linked with libFuzzer. What it is for: `ctest --test-dir build-fuzz` (the C++ suite under
# ASan+UBSan, and the fuzz regression corpus) and scripts/fuzz.sh. Arguments: the targets to
# build (default: all of them; the Python extension is not built here). NPUSIM_UNITY_BUILD as
# for scripts/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# -O1: the usual sanitizer optimisation level (readable stacks, a third of -O2's compile time
# on these sources); line tables only, for symbolized reports.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Sanitize \
  -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -gline-tables-only" \
  -DNPUSIM_SANITIZE=address,undefined -DNPUSIM_FUZZ=ON \
  -DCMAKE_UNITY_BUILD="${NPUSIM_UNITY_BUILD:-OFF}" -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 "${launcher[@]}" >/dev/null
cmake --build build-fuzz -j "$(nproc)" ${1+--target "$@"}
