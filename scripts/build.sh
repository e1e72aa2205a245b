#!/usr/bin/env bash
# Configures and builds everything into build/ (binaries in build/bin/).
# NPUSIM_RELEASE_TESTS=release_only leaves out the test binaries the sanitizer stage runs
# (scripts/test.sh sets it; tests/CMakeLists.txt); the default, all, builds every one.
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNPUSIM_RELEASE_TESTS="${NPUSIM_RELEASE_TESTS:-all}" "${launcher[@]}" >/dev/null
cmake --build build -j "$(nproc)"
