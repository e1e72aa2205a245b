#!/usr/bin/env bash
# The main job on the bundled default: set up, build, then compile the bundled model
# (models/tiny_convnet.onnx, INT8) for configs/default.yaml, run it on the simulated NPU and
# print the report. Extra arguments go to `npusim run` (e.g. --json out.json --trace t.json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
build/bin/npusim run models/tiny_convnet.onnx --config configs/default.yaml "$@"
