#!/usr/bin/python3
"""Trains a small CNN on Fashion-MNIST and exports models/exported/fashion_mnist_cnn.onnx.

RUN WITH DEBIAN'S INTERPRETER, NOT THE PROJECT'S PYTHON:

    /usr/bin/python3 scripts/train_fashion_mnist.py [--epochs 3] [--out models/exported]
    python3 scripts/fashion_mnist.py eval models/exported/fashion_mnist_cnn.onnx --update-manifest

Why /usr/bin/python3: it needs torch, and the only torch allowed is Debian's python3-torch
(1.13.1), which lives in Debian's /usr/bin/python3; the project's python (pyenv) has no torch and
CI never runs this. Only the trained .onnx file is committed. The second command (project
python, ONNX Runtime) measures the FP32 top-1 over the full 10k test set and records it in
MANIFEST.json; this script records torch's own test accuracy next to it.

Data: Debian's dataset-fashion-mnist (IDX files in /usr/share/datasets/fashion-mnist), read by
scripts/fashion_mnist.py (numpy only). Input normalisation, applied by the caller (not in the
graph): x = (pixel / 255 - 0.2860) / 0.3530, shape [1, 1, 28, 28] float32. Output: 10 logits
(classes in fashion_mnist.CLASSES order).

Model (what an NPU quantisation study would use): 3 x [Conv3x3 + BatchNorm + ReLU] with 2x2
max-pooling after each (32, 64, 64 channels; 28 -> 14 -> 7 -> 3), flatten, FC 576 -> 128, ReLU,
Dropout 0.25 (training only), FC 128 -> 10. Training: AdamW lr 2e-3 with a one-cycle schedule,
batch 128, random horizontal flips, fixed seeds, torch.set_num_threads(2) (a few minutes on two
cores). CPU float training is deterministic for a given torch build and thread count, but not
guaranteed bit-identical across machines.
"""
import argparse
import os
import sys
import time

# Set before torch (OpenMP) starts: on a shared, loaded machine OpenMP's default spin-waiting
# made 2-thread training ~4x slower than 1 thread; passive waiting removes that.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fashion_mnist  # noqa: E402
from export_torch_models import (DEFAULT_OUT, fingerprint, io_desc, load_manifest,  # noqa: E402
                                 save_manifest, sha256, torch_versions)

SEED = 20240601
NAME = "fashion_mnist_cnn"
OPSET = 13


class FashionCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()

        def block(cin, cout):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                                 nn.ReLU(inplace=True), nn.MaxPool2d(2))

        self.features = nn.Sequential(block(1, 32), block(32, 64), block(64, 64))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(64 * 3 * 3, 128), nn.ReLU(inplace=True),
                                        nn.Dropout(0.25), nn.Linear(128, num_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


def evaluate(model, x, y, batch=1000):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, x.shape[0], batch):
            correct += int((model(x[i:i + batch]).argmax(1) == y[i:i + batch]).sum())
    return correct / x.shape[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--out", default=DEFAULT_OUT)
    a = ap.parse_args()
    torch.set_num_threads(2)
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)

    xtr, ytr = fashion_mnist.load("train")
    xte, yte = fashion_mnist.load("test")
    xtr = torch.from_numpy(fashion_mnist.normalise(xtr))
    ytr = torch.from_numpy(ytr.astype(np.int64))
    xte = torch.from_numpy(fashion_mnist.normalise(xte))
    yte = torch.from_numpy(yte.astype(np.int64))

    model = FashionCNN()
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    steps_per_epoch = (xtr.shape[0] + a.batch - 1) // a.batch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, epochs=a.epochs, steps_per_epoch=steps_per_epoch)
    t0 = time.time()
    for epoch in range(a.epochs):
        model.train()
        perm = torch.from_numpy(rng.permutation(xtr.shape[0]))
        total = 0.0
        for i in range(0, xtr.shape[0], a.batch):
            idx = perm[i:i + a.batch]
            xb, yb = xtr[idx], ytr[idx]
            flip = torch.from_numpy(rng.random(xb.shape[0]) < 0.5)
            xb = torch.where(flip[:, None, None, None], xb.flip(3), xb)
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss) * xb.shape[0]
        acc = evaluate(model, xte, yte)
        print(f"epoch {epoch + 1}/{a.epochs}: train loss {total / xtr.shape[0]:.4f}, "
              f"test top-1 {acc * 100:.2f}% ({time.time() - t0:.0f} s)", flush=True)

    model.eval()
    torch_acc = evaluate(model, xte, yte)
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, NAME + ".onnx")
    example = xte[:1].clone()
    with torch.no_grad():
        out = model(example)
    torch.onnx.export(model, (example,), path, export_params=True, opset_version=OPSET,
                      do_constant_folding=True, input_names=["input"], output_names=["logits"])
    entry = {
        "name": NAME,
        "file": NAME + ".onnx",
        "architecture": "Fashion-MNIST classifier: 3 x (Conv3x3 + BN + ReLU + MaxPool2x2) 32/64/64 ch, "
                        "Flatten, FC 576-128, ReLU, FC 128-10 (Dropout in training only); trained, not random",
        "source": "scripts/train_fashion_mnist.py FashionCNN",
        "reductions": "none (designed small); input normalisation outside the graph: "
                      f"(pixel / 255 - {fashion_mnist.MEAN}) / {fashion_mnist.STD}",
        "opset": OPSET,
        "do_constant_folding": True,
        "seed": SEED,
        "inputs": io_desc(["input"], (example,)),
        "outputs": io_desc(["logits"], (out,)),
        "reference": {"fashion_mnist_test_index": 0,
                      "torch_outputs": {"logits": fingerprint(out)}},
        "training": {"data": "Debian dataset-fashion-mnist, /usr/share/datasets/fashion-mnist",
                     "epochs": a.epochs, "batch": a.batch, "optimizer": f"AdamW lr {a.lr} one-cycle, wd 1e-4",
                     "augmentation": "random horizontal flip", "threads": 2,
                     "seconds": round(time.time() - t0)},
        "test_top1_fp32_torch": round(torch_acc, 4),
        "parameters": sum(p.numel() for p in model.parameters()),
        "file_bytes": os.path.getsize(path),
        "sha256": sha256(path),
        "exporter": "torch.onnx.export (TorchScript-based)",
        "torch_version": torch_versions(),
    }
    mpath = os.path.join(a.out, "MANIFEST.json")
    save_manifest(mpath, load_manifest(mpath), [entry], {})
    print(f"torch test top-1 {torch_acc * 100:.2f}%; wrote {path} ({entry['file_bytes'] / 1e6:.2f} MB) and {mpath}")
    print(f"now measure it with ONNX Runtime: python3 scripts/fashion_mnist.py eval {path} --update-manifest")
    return 0


if __name__ == "__main__":
    sys.exit(main())
