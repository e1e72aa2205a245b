"""`npusim run --misalign-inputs N`: the model input moves N bytes past a 4 KiB boundary; with
dma.min_alignment_bytes above N's alignment its reads bounce, results stay the same."""
import json

import numpy as np

from conftest import assert_one_line_error


def run_json(npusim, tmp_path, root, cfg, *args):
    out = tmp_path / "r.json"
    saved = tmp_path / "outs"
    r = npusim("run", root / "models" / "tiny_convnet.onnx", "--config", cfg, "--json", out, "--save-outputs", saved,
               "--quiet", *args)
    assert r.code == 0, r.err
    return json.loads(out.read_text()), np.load(saved / "fc_out.npy")


def test_misaligned_input_bounces_with_the_same_outputs(npusim, tmp_path, root):
    cfg = tmp_path / "aligned32.yaml"
    cfg.write_text(f"base: {root}/configs/default.yaml\nname: aligned32\ndma:\n  min_alignment_bytes: 32\n")
    aligned, y0 = run_json(npusim, tmp_path, root, cfg)
    shifted, y1 = run_json(npusim, tmp_path, root, cfg, "--misalign-inputs", 16)
    on_grid, y2 = run_json(npusim, tmp_path, root, cfg, "--misalign-inputs", 64)
    bounces = lambda rep: sum(d["bounce_copies"] for d in rep["dma_channels"])  # noqa: E731
    assert bounces(aligned) == 0 and bounces(on_grid) == 0
    assert bounces(shifted) > 0
    assert shifted["cycles"] > aligned["cycles"]
    assert np.array_equal(y0, y1) and np.array_equal(y0, y2)
    assert any("16 bytes past a 4096 byte boundary" in n for n in shifted["notes"])


def test_misalignment_must_stay_below_a_page(npusim, root):
    assert_one_line_error(npusim("run", root / "models" / "tiny_convnet.onnx", "--config",
                                 root / "configs" / "default.yaml", "--misalign-inputs", 4096),
                          "input misalignment 4096 bytes", "must be below 4096")
