"""A transformer encoder quantised by ONNX Runtime's own quantize_static (QDQ, int8 weights and
activations, int32 biases behind DequantizeLinear) runs whole on the NPU with the model's own
scales, close to ONNX Runtime running the same QDQ model."""
import numpy as np
import onnx
import onnxruntime as ort
from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

from conftest import ROOT, calibration_reader, run_npusim

CONFIG = ROOT / "configs" / "default.yaml"
SOURCE = ROOT / "models" / "exported" / "transformer_encoder.onnx"


def test_ort_quantized_transformer_runs_whole_on_the_npu(tmp_path):
    model = onnx.load(str(SOURCE))
    name = model.graph.input[0].name
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]

    samples = [{name: np.random.default_rng(s).standard_normal(shape).astype(np.float32)} for s in (3, 2, 1, 0)]
    qdq = tmp_path / "encoder_qdq.onnx"
    quantize_static(str(SOURCE), str(qdq), calibration_reader(samples), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    biases = [n for n in onnx.load(str(qdq)).graph.node if n.op_type == "DequantizeLinear" and "bias" in n.input[0]]
    assert biases, "quantize_static wrote no int32 bias DequantizeLinear: the test no longer covers them"
    r = run_npusim("compile", qdq, "-c", CONFIG, "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in r.out, r.out
    x = np.random.default_rng(9).standard_normal(shape).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--input", f"{name}={tmp_path / 'x.npy'}",
                   "--save-outputs", tmp_path / "out", "-q")
    assert r.code == 0, r.err
    session = ort.InferenceSession(str(qdq), providers=["CPUExecutionProvider"])
    (want,) = session.run(None, {name: x})
    got = np.load(tmp_path / "out" / f"{session.get_outputs()[0].name}.npy")
    cosine = float((got * want).sum() / np.linalg.norm(got) / np.linalg.norm(want))
    assert cosine >= 0.995, cosine
