#!/usr/bin/env bash
# Sets up, builds and runs every test (Catch2 through ctest, then pytest), then the sanitizer
# stage: the C++ suite under ASan + UBSan, the fuzz corpus and a short run of every fuzz
# target (scripts/test_sanitized.sh). Each C++ test binary runs in one of the two stages.
set -euo pipefail
cd "$(dirname "$0")/.."
# Both builds compile eight sources to a translation unit (scripts/build.sh): half the time.
export NPUSIM_UNITY_BUILD=${NPUSIM_UNITY_BUILD:-ON}
bash scripts/setup.sh
# The Release build has only the test binaries the sanitizer stage below does not run; those run
# once, there.
NPUSIM_RELEASE_TESTS=release_only bash scripts/build.sh
ctest --test-dir build -j "$(nproc)" --output-on-failure --timeout 600
if compgen -G "tests/python/test_*.py" >/dev/null; then
  # One worker per core (pytest-xdist); the tests marked `serial` measure wall-clock latency and
  # run afterwards, alone.
  python3 -m pytest -q -n "$(nproc)" -m "not serial" tests/python
  python3 -m pytest -q -m serial tests/python
fi
bash scripts/test_sanitized.sh
