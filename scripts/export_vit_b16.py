#!/usr/bin/python3
"""Exports torchvision's ViT-B/16 (224x224, 86 M parameters, fixed-seed random weights) to ONNX
for issue 32's compile benchmark (`scripts/bench_models`: compile + timing-only run <= 3 s and
<= 800 MB). 330 MB: written where the benchmark keeps its models, never committed.

RUN WITH DEBIAN'S INTERPRETER (python3-torch, python3-torchvision), as scripts/export_torch_models.py:

    /usr/bin/python3 scripts/export_vit_b16.py OUT.onnx
"""
import sys

import torch
import torchvision


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: /usr/bin/python3 scripts/export_vit_b16.py OUT.onnx")
    torch.manual_seed(0)
    model = torchvision.models.vit_b_16(weights=None).eval()
    torch.onnx.export(model, torch.randn(1, 3, 224, 224), sys.argv[1], opset_version=14,
                      input_names=["input"], output_names=["logits"])


if __name__ == "__main__":
    main()
