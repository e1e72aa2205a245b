import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
NPUSIM = pathlib.Path(os.environ.get("NPUSIM", ROOT / "build" / "bin" / "npusim"))
# Every compile checks that cross-layer interleaving kept each pair of conflicting instructions
# in order (CompileOptions::check_interleave, on by default): a violation is a compile error.


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "serial: measures wall-clock latency; scripts/test.sh runs these alone, after the rest")


class Result:
    def __init__(self, proc):
        self.code = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr


def assert_one_line_error(result, *needles):
    """Bad input: a non-zero exit and exactly one line on stderr containing every needle."""
    assert result.code != 0, result.out
    lines = [l for l in result.err.splitlines() if l.strip()]
    assert len(lines) == 1, result.err
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert "terminate called" not in result.err and "Segmentation" not in result.err


def run_npusim(*args, cwd=None):
    proc = subprocess.run([str(NPUSIM), *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600)
    return Result(proc)


def calibration_reader(feeds):
    """The calibration samples ONNX Runtime's quantize_static reads: `feeds`, a list of
    {input name: array}, one sample each, in order."""
    from onnxruntime.quantization import CalibrationDataReader

    class Feeds(CalibrationDataReader):
        def __init__(self):
            self.data = iter(feeds)

        def get_next(self):
            return next(self.data, None)

    return Feeds()


def litert_reference(path, x):
    """The TFLite model's first output for `x` as its first input, by LiteRT's reference kernels
    (no XNNPACK delegate: the integer arithmetic the TFLite spec describes)."""
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    it = litert.Interpreter(model_path=str(path),
                            experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


@pytest.fixture
def npusim():
    if not NPUSIM.exists():
        pytest.fail(f"{NPUSIM} is not built; run scripts/build.sh")
    return run_npusim


@pytest.fixture
def root():
    return ROOT


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    """generated("resnet18") -> path of scripts/make_models.py's model, written once per session
    (a fresh clone has no models/generated/)."""
    import sys
    out = tmp_path_factory.mktemp("generated")

    def make(name):
        path = out / f"{name}.onnx"
        if not path.exists():
            subprocess.run([sys.executable, str(ROOT / "scripts" / "make_models.py"), "--out", str(out), "--only", name],
                           check=True, capture_output=True)
        return path
    return make
