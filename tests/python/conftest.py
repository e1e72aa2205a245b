import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
NPUSIM = pathlib.Path(os.environ.get("NPUSIM", ROOT / "build" / "bin" / "npusim"))


class Result:
    def __init__(self, proc):
        self.code = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr


def run_npusim(*args, cwd=None):
    proc = subprocess.run([str(NPUSIM), *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600)
    return Result(proc)


@pytest.fixture
def npusim():
    if not NPUSIM.exists():
        pytest.fail(f"{NPUSIM} is not built; run scripts/build.sh")
    return run_npusim


@pytest.fixture
def root():
    return ROOT
