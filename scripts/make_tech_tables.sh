#!/usr/bin/env bash
# Regenerate configs/tech/*.yaml (area, leakage, per-access energy tables) from the
# Accelergy/AccelForge component models. Run from anywhere:
#
#   bash scripts/make_tech_tables.sh [make_tech_tables.py options, e.g. --quick --out /tmp/tech]
#
# 1. makes a Python 3.12 venv OUTSIDE the repo if missing ($HWC_VENV, default /work/venv-hwc;
#    the packages need Python >= 3.12: $HWC_PYTHON, default pyenv's 3.12.1),
# 2. pip installs the pinned model packages into it,
# 3. rebuilds the CACTI binary shipped inside hwcomponents-cacti from the C++ source in the
#    same wheel (the prebuilt one needs glibc 2.38; Debian bookworm has 2.36),
# 4. runs scripts/make_tech_tables.py with that venv.
#
# None of this is needed to build or run npusim: only the generated YAML files are in the repo.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${HWC_VENV:-/work/venv-hwc}"
python="${HWC_PYTHON:-/root/.pyenv/versions/3.12.1/bin/python3.12}"

# Pinned: the tables record these versions; change them together with a regeneration.
# hwcomponents-library imports hwcomponents_neurosim at import time without declaring it.
pins=(
  hwcomponents==1.0.114
  hwcomponents-cacti==1.0.40
  hwcomponents-library==1.0.58
  hwcomponents-neurosim==1.0.43
  PyYAML==6.0.3
)

case "$venv" in
  "$repo"|"$repo"/*) echo "make_tech_tables.sh: the venv must live outside the repo (got $venv)" >&2; exit 2 ;;
esac

if [ ! -x "$venv/bin/python" ]; then
  if [ ! -x "$python" ]; then
    echo "make_tech_tables.sh: need Python 3.12 at $python (set HWC_PYTHON)" >&2
    exit 2
  fi
  echo "== creating $venv with $python"
  "$python" -m venv "$venv"
fi

echo "== pip install ${pins[*]}"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}"

cacti="$("$venv/bin/python" -c 'import os, hwcomponents_cacti as h; print(os.path.join(os.path.dirname(h.__file__), "cacti"))')"
stamp="$cacti/.npusim-built"
needs_build=0
[ -f "$stamp" ] && [ -x "$cacti/cacti" ] || needs_build=1
probe="$(cd "$cacti" && ./cacti -h 2>&1 || true)"
case "$probe" in *GLIBC*) needs_build=1 ;; esac
if [ "$needs_build" = 1 ]; then
  echo "== rebuilding CACTI in $cacti"
  # `make clean opt` in one call fails (clean_opt deletes obj_opt after opt's prerequisite
  # made it), so two calls. OPT adds -O2 to the makefile's opt flags (which have no -O):
  # the same figures, about twice as fast. NTHREADS: CACTI's search threads (2 cores here).
  (cd "$cacti" && make clean >/dev/null 2>&1 || true)
  (cd "$cacti" && make opt NTHREADS=2 OPT="-O2 -g0 -msse2 -mfpmath=sse -DNTHREADS=2" >"$cacti/build.log" 2>&1) || {
    tail -20 "$cacti/build.log" >&2; exit 1; }
  g++ --version | head -1 >"$stamp"
fi

echo "== generating tables"
cd "$repo"
exec "$venv/bin/python" scripts/make_tech_tables.py "$@"
