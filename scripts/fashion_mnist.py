#!/usr/bin/env python3
"""Fashion-MNIST from Debian's `dataset-fashion-mnist` package, with numpy only (no torch).

    from fashion_mnist import load, normalise     # with scripts/ on sys.path
    images, labels = load("test")                 # uint8 [10000, 28, 28], uint8 [10000]
    x = normalise(images)                         # float32 [N, 1, 28, 28], the models' input

    python3 scripts/fashion_mnist.py info
    python3 scripts/fashion_mnist.py eval models/exported/fashion_mnist_cnn.onnx [--update-manifest]

The package (scripts/setup.sh installs it) holds the four IDX files, gzipped, in
/usr/share/datasets/fashion-mnist; $FASHION_MNIST_DIR overrides the folder. `eval` measures
top-1 over the full 10k test set with ONNX Runtime (project python) and, with
--update-manifest, writes it into the model's entry of models/exported/MANIFEST.json.
Used by scripts/train_fashion_mnist.py (Debian python + torch) as well, so both read the
data, and normalise it, the same way.
"""
import argparse
import gzip
import json
import os
import sys

import numpy as np

DATA_DIR = os.environ.get("FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")
FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}
CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]
# Mean and std of the training images scaled to [0, 1]; the models take (x / 255 - MEAN) / STD.
MEAN = 0.2860
STD = 0.3530
IDX_DTYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _open(path):
    for p in (path, path + ".gz"):
        if os.path.exists(p):
            return gzip.open(p, "rb") if p.endswith(".gz") else open(p, "rb")
    raise FileNotFoundError(f"{path}[.gz] not found: install the Debian package dataset-fashion-mnist "
                            f"(scripts/setup.sh) or set FASHION_MNIST_DIR")


def read_idx(path):
    """Reads one IDX file (optionally .gz) into a numpy array of its declared type and shape."""
    with _open(path) as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] not in IDX_DTYPES:
        raise ValueError(f"{path}: not an IDX file (magic {data[:4].hex()})")
    ndim = data[3]
    shape = tuple(int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim))
    dtype = np.dtype(IDX_DTYPES[data[2]])
    offset = 4 + 4 * ndim
    count = int(np.prod(shape))
    if len(data) - offset != count * dtype.itemsize:
        raise ValueError(f"{path}: {len(data) - offset} data bytes, header says {shape} of {dtype}")
    return np.frombuffer(data, dtype=dtype, count=count, offset=offset).reshape(shape)


def load(split="test", data_dir=None):
    """(images uint8 [N, 28, 28], labels uint8 [N]) of split "train" (60000) or "test" (10000)."""
    images_file, labels_file = FILES[split]
    d = data_dir or DATA_DIR
    images = read_idx(os.path.join(d, images_file))
    labels = read_idx(os.path.join(d, labels_file))
    if images.shape[0] != labels.shape[0]:
        raise ValueError(f"{split}: {images.shape[0]} images but {labels.shape[0]} labels")
    return images, labels


def normalise(images):
    """uint8 [N, 28, 28] -> float32 [N, 1, 28, 28] = (x / 255 - MEAN) / STD."""
    x = images.astype(np.float32)[:, None, :, :] / np.float32(255.0)
    return (x - np.float32(MEAN)) / np.float32(STD)


def evaluate_onnx(model_path, split="test", threads=2):
    """Top-1 accuracy of an ONNX classifier (input [1, 1, 28, 28] float) with ONNX Runtime."""
    import onnxruntime as ort

    images, labels = load(split)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    sess = ort.InferenceSession(model_path, opts, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    x = normalise(images)
    correct = 0
    for i in range(x.shape[0]):
        logits = sess.run(None, {name: x[i:i + 1]})[0]
        correct += int(np.argmax(logits[0]) == labels[i])
    return correct / x.shape[0], x.shape[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("info", help="print the files, shapes and class counts")
    ev = sub.add_parser("eval", help="test top-1 of an ONNX model with ONNX Runtime")
    ev.add_argument("model")
    ev.add_argument("--split", default="test", choices=sorted(FILES))
    ev.add_argument("--update-manifest", action="store_true",
                    help="write the accuracy into the model's entry of MANIFEST.json next to it")
    a = ap.parse_args()
    if a.cmd == "info":
        for split in FILES:
            images, labels = load(split)
            print(f"{split}: images {images.shape} {images.dtype}, labels {labels.shape}, "
                  f"per class {np.bincount(labels, minlength=10).tolist()}")
        return 0
    acc, n = evaluate_onnx(a.model, a.split)
    print(f"{os.path.basename(a.model)}: top-1 {acc * 100:.2f}% over {n} {a.split} images (ONNX Runtime, FP32)")
    if a.update_manifest:
        mpath = os.path.join(os.path.dirname(os.path.abspath(a.model)), "MANIFEST.json")
        with open(mpath) as f:
            manifest = json.load(f)
        entry = next((m for m in manifest["models"] if m["file"] == os.path.basename(a.model)), None)
        if entry is None:
            print(f"{mpath}: no entry for {os.path.basename(a.model)}", file=sys.stderr)
            return 1
        import onnxruntime as ort

        entry[f"{a.split}_top1_fp32_onnxruntime"] = {
            "accuracy": round(acc, 4), "correct": int(round(acc * n)), "images": n,
            "onnxruntime": ort.__version__, "measured_by": "python3 scripts/fashion_mnist.py eval --update-manifest"}
        with open(mpath, "w") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")
        print(f"wrote the accuracy into {mpath}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
