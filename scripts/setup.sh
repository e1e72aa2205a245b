#!/usr/bin/env bash
# Installs everything npusim needs from Debian and PyPI. Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBIAN_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libsystemc-dev libyaml-cpp-dev libfmt-dev libboost-program-options-dev
  catch2 nlohmann-json3-dev pybind11-dev libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  # TFLite models: flatc generates the reader from compiler/frontend/tflite/tflite_schema.fbs
  libflatbuffers-dev flatbuffers-compiler
  # The sanitizer and fuzzing build (scripts/build_sanitized.sh): clang with libFuzzer and the
  # ASan/UBSan runtimes, llvm-symbolizer for readable reports
  clang libclang-rt-14-dev llvm-14
  # Fashion-MNIST IDX files in /usr/share/datasets/fashion-mnist (scripts/fashion_mnist.py reads them)
  dataset-fashion-mnist
)

missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null
fi

if [ -f scripts/requirements.txt ]; then
  python3 -m pip install -q --disable-pip-version-check -r scripts/requirements.txt
fi
# Real pretrained models whose wheels depend on PyTorch for their own Python code, which the tests
# never import: only the ONNX files inside are read (tests/python/test_silero_vad.py), so the
# wheels go in without their dependencies (PyPI's torch is gigabytes of GPU libraries).
python3 -m pip install -q --disable-pip-version-check --no-deps -r scripts/requirements-models.txt
