#!/usr/bin/env bash
# The main job on the bundled default: set up, build, then simulate the bundled example
# program on configs/default.yaml and print the report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
build/bin/npusim sim examples/gemm_int8_double_buffered.npuasm --config configs/default.yaml "$@"
