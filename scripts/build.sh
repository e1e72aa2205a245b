#!/usr/bin/env bash
# Configures and builds everything into build/ (binaries in build/bin/).
# NPUSIM_RELEASE_TESTS=release_only leaves out the test binaries the sanitizer stage runs
# (scripts/test.sh sets it; tests/CMakeLists.txt); the default, all, builds every one.
# NPUSIM_UNITY_BUILD=ON compiles the sources eight to a translation unit (CMAKE_UNITY_BUILD): a
# clean build takes half the time, an edit recompiles its whole batch. scripts/test.sh (CI) sets
# it; the default, OFF, keeps rebuilds after an edit small. A unity build needs the names in a
# file's anonymous namespace to differ from its batch neighbours' (a shared helper belongs in a
# header anyway).
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNPUSIM_RELEASE_TESTS="${NPUSIM_RELEASE_TESTS:-all}" \
  -DCMAKE_UNITY_BUILD="${NPUSIM_UNITY_BUILD:-OFF}" -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 "${launcher[@]}" >/dev/null
cmake --build build -j "$(nproc)"
