"""INT8 accuracy on real data (issue 11): the Fashion-MNIST CNN trained by
scripts/train_fashion_mnist.py, calibrated on 32 training images of Debian's
dataset-fashion-mnist, run on the simulated NPU over the first 500 test images against ONNX
Runtime's FP32 top-1 on the same images. The full 10k test set is in `scripts/bench_quant`."""
import os
import pathlib
import re
import sys

import numpy as np
import onnxruntime as ort
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
sys.path.insert(0, str(ROOT / "scripts"))
import npusim as api  # noqa: E402
from fashion_mnist import DATA_DIR, load, normalise  # noqa: E402

MODEL = ROOT / "models" / "exported" / "fashion_mnist_cnn.onnx"
CONFIG = ROOT / "configs" / "default.yaml"
IMAGES = 500

pytestmark = pytest.mark.skipif(not os.path.isdir(DATA_DIR),
                                reason=f"{DATA_DIR} missing: scripts/setup.sh installs dataset-fashion-mnist")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    train, _ = load("train")
    test, labels = load("test")
    calib = tmp_path_factory.mktemp("fm_calib")
    for i in range(32):
        np.save(calib / f"input_{i}.npy", normalise(train[i:i + 1]))
    x = normalise(test[:IMAGES])
    sess = ort.InferenceSession(str(MODEL))
    fp32 = np.concatenate([sess.run(None, {"input": x[i:i + 1]})[0] for i in range(IMAGES)]).argmax(1)
    return calib, x, labels[:IMAGES], fp32


def npu_top1(npusim, data, tmp_path, *args):
    """Top-1 (%) of the compiled program on the test images, its simulated latency (us), and
    the compile's output."""
    calib, x, labels, _ = data
    prog = tmp_path / "fm.npuprog"
    r = npusim("compile", MODEL, "-c", CONFIG, "--calib", calib, "-o", prog, *args)
    assert r.code == 0, r.err
    session = api.compile(prog, api.load_config(CONFIG))
    predicted = []
    for i in range(len(x)):
        outputs, report = session.run({"input": x[i:i + 1]})
        predicted.append(int(np.asarray(list(outputs.values())[0]).argmax()))
    return 100 * np.mean(np.array(predicted) == labels), report["latency_us"], r.out + r.err


def test_int8_top1_within_one_point_of_fp32(npusim, data, tmp_path):
    fp32 = 100 * np.mean(data[3] == data[2])
    results = {m: npu_top1(npusim, data, tmp_path, "--calib-method", m)[0] for m in ("minmax", "mse")}
    print(f"top-1 over {IMAGES} test images: FP32 {fp32:.1f} %, " +
          ", ".join(f"INT8 {m} {t:.1f} %" for m, t in results.items()))
    assert fp32 > 80  # the trained model, not an untrained one
    assert any(abs(t - fp32) <= 1.0 for t in results.values()), results


def test_mixed_precision_meets_its_target_for_little_more_time(npusim, data, tmp_path):
    int8_top1, int8_us, _ = npu_top1(npusim, data, tmp_path, "--calib-method", "minmax")
    mixed_top1, mixed_us, out = npu_top1(npusim, data, tmp_path, "--calib-method", "minmax", "--precision", "mixed",
                                         "--accuracy-target", "cosine=0.99995")
    promoted = re.search(r"mixed precision for cosine=0.99995: (\d+) layer\(s\) promoted to fp16[^\n]*", out)
    print(f"INT8 {int8_top1:.1f} % {int8_us:.1f} us; mixed {mixed_top1:.1f} % {mixed_us:.1f} us; "
          f"{promoted.group(0) if promoted else out.strip()}")
    assert promoted and int(promoted.group(1)) >= 1, out        # it promoted layers to reach the target
    assert mixed_us > int8_us                                    # fp16 layers cost time ...
    assert mixed_us <= 1.10 * int8_us                            # ... at most 10 % (the bound)
    assert mixed_top1 >= int8_top1 - 0.5


def test_ppocr_detector_mixed_precision_reaches_cosine_099(npusim, tmp_path):
    """The real PP-OCRv4 text detector (rapidocr-onnxruntime's) at 1x3x96x96: INT8 alone stays
    below 0.99 cosine against FP32 (per-tensor activations; test_real_models lists it), mixed
    precision with --accuracy-target cosine=0.99 reaches it on a test image it was not calibrated
    on."""
    import importlib.util
    spec = importlib.util.find_spec("rapidocr_onnxruntime")
    if not spec:
        pytest.skip("rapidocr-onnxruntime is not installed (scripts/requirements.txt has it)")
    det = pathlib.Path(spec.origin).parent / "models" / "ch_PP-OCRv4_det_infer.onnx"
    sys.path.insert(0, str(ROOT / "tests" / "python"))
    from test_real_models import text_like_image
    shape = (1, 3, 96, 96)
    calib = tmp_path / "calib"
    calib.mkdir()
    for s in range(1, 9):
        np.save(calib / f"x_{s}.npy", text_like_image(shape, s))
    x = text_like_image(shape, 1000)
    np.save(tmp_path / "x.npy", x)
    ref = ort.InferenceSession(str(det)).run(None, {"x": x})[0].ravel()
    prog, outs = tmp_path / "det.npuprog", tmp_path / "out"
    r = npusim("compile", det, "-c", CONFIG, "--calib", calib, "--input-shape", "x=1x3x96x96", "-o", prog,
               "--precision", "mixed", "--calib-method", "minmax", "--accuracy-target", "cosine=0.99", "--explain")
    assert r.code == 0, r.err
    # Two of the eight calibration images are held out of the search, which aims at cosine
    # 0.9925 on the other six; the held-out pair must reach the target itself.
    held = re.search(r"cosine (0\.\d+) on 2 held-out sample\(s\)", r.out)
    assert held and float(held.group(1)) >= 0.99, r.out
    r = npusim("run", prog, "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}", "--save-outputs", outs, "-q")
    assert r.code == 0, r.err
    y = np.load(next(outs.iterdir())).ravel()
    cosine = float(y @ ref / np.linalg.norm(y) / np.linalg.norm(ref))
    print(f"PP-OCRv4 det mixed precision: cosine {cosine:.4f}")
    assert cosine >= 0.99
