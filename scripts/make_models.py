#!/usr/bin/env python3
"""Writes fixed-seed random-weight ONNX models (opset 13) for npusim, with no network access.

    python3 scripts/make_models.py --out DIR [--only NAME] [--input-size N]

Models: tiny_convnet (the bundled default, models/tiny_convnet.onnx), resnet18, resnet50,
mobilenetv2, yolo_style; with --only also squeezenet11 (SqueezeNet 1.1) and inception_v3
(299 x 299), the models of the public device figures in configs/measurements/, and googlenet and
densenet121 (concat-heavy graphs). Weights are He-initialised and BatchNorm statistics are random but
sane, so activations stay in a realistic range for quantisation. --input-size N makes the
image input N x N (the weights stay the same) for fast tests.
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
INPUT_SIZE = {}  # model name -> N for an N x N input instead of the default (--input-size)


def image_shape(name, default):
    n = INPUT_SIZE.get(name, default)
    return [1, 3, n, n]


class Builder:
    """Accumulates nodes and initializers; names are unique and readable in Netron."""

    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.inits = []
        self.count = {}

    def uid(self, base):
        n = self.count.get(base, 0)
        self.count[base] = n + 1
        return f"{base}{n}" if n else base

    def const(self, base, array):
        name = self.uid(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, base, **attrs):
        name = self.uid(base)
        out = name + "_out"
        self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out

    def conv(self, x, cin, cout, k, stride=1, group=1, bias=False, base="conv", valid=False):
        """k: an int (k x k) or (kh, kw); padded to keep the size ("same"), unless valid."""
        kh, kw = (k, k) if isinstance(k, int) else k
        fan_in = cin // group * kh * kw
        w = self.rng.normal(0, np.sqrt(2.0 / fan_in), (cout, cin // group, kh, kw)).astype(np.float32)
        inputs = [x, self.const(base + "_w", w)]
        if bias:
            inputs.append(self.const(base + "_b", self.rng.normal(0, 0.05, cout).astype(np.float32)))
        ph, pw = (0, 0) if valid else (kh // 2, kw // 2)
        return self.node("Conv", inputs, base, kernel_shape=[kh, kw], strides=[stride, stride],
                         pads=[ph, pw, ph, pw], group=group)

    def bn(self, x, c, base="bn"):
        scale = self.rng.uniform(0.5, 1.0, c).astype(np.float32)
        shift = self.rng.normal(0, 0.1, c).astype(np.float32)
        mean = self.rng.normal(0, 0.1, c).astype(np.float32)
        var = self.rng.uniform(0.5, 1.5, c).astype(np.float32)
        ins = [x] + [self.const(base + s, v) for s, v in
                     (("_scale", scale), ("_shift", shift), ("_mean", mean), ("_var", var))]
        return self.node("BatchNormalization", ins, base, epsilon=1e-5)

    def cbr(self, x, cin, cout, k, stride=1, group=1, act="Relu", base="layer", valid=False):
        y = self.bn(self.conv(x, cin, cout, k, stride, group, base=base + "_conv", valid=valid), cout,
                    base=base + "_bn")
        if act == "Relu":
            return self.node("Relu", [y], base + "_relu")
        if act == "Relu6":
            lo = self.const(base + "_min", np.array(0.0, np.float32))
            hi = self.const(base + "_max", np.array(6.0, np.float32))
            return self.node("Clip", [y, lo, hi], base + "_relu6")
        if act == "SiLU":
            s = self.node("Sigmoid", [y], base + "_sigmoid")
            return self.node("Mul", [y, s], base + "_silu")
        return y

    def gemm(self, x, cin, cout, base="fc"):
        w = self.rng.normal(0, np.sqrt(1.0 / cin), (cout, cin)).astype(np.float32)
        b = self.rng.normal(0, 0.01, cout).astype(np.float32)
        return self.node("Gemm", [x, self.const(base + "_w", w), self.const(base + "_b", b)], base, transB=1)

    def model(self, inp, shape, outputs):
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info(inp, TensorProto.FLOAT, shape)],
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
            self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="npusim-make_models")
        m.ir_version = 8
        m = onnx.shape_inference.infer_shapes(m)
        onnx.checker.check_model(m)
        return m


def tiny_convnet():
    b = Builder("tiny_convnet", 1)
    x = b.cbr("input", 3, 8, 3, base="stem")
    x = b.cbr(x, 8, 16, 3, stride=2, base="block1")
    x = b.node("MaxPool", [x], "pool", kernel_shape=[2, 2], strides=[2, 2])
    x = b.cbr(x, 16, 32, 3, base="block2")
    x = b.node("GlobalAveragePool", [x], "gap")
    x = b.node("Flatten", [x], "flatten", axis=1)
    y = b.gemm(x, 32, 10)
    return b.model("input", image_shape("tiny_convnet", 32), [y])


def resnet(depth):
    b = Builder(f"resnet{depth}", depth)
    blocks = {18: [2, 2, 2, 2], 50: [3, 4, 6, 3]}[depth]
    bottleneck = depth >= 50
    x = b.cbr("input", 3, 64, 7, stride=2, base="stem")
    x = b.node("MaxPool", [x], "stem_pool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, n in enumerate(blocks):
        width = 64 * 2 ** stage
        cout = width * 4 if bottleneck else width
        for i in range(n):
            stride = 2 if i == 0 and stage > 0 else 1
            base = f"s{stage + 1}b{i + 1}"
            if bottleneck:
                y = b.cbr(x, cin, width, 1, base=base + "_a")
                y = b.cbr(y, width, width, 3, stride=stride, base=base + "_b")
                y = b.cbr(y, width, cout, 1, act=None, base=base + "_c")
            else:
                y = b.cbr(x, cin, width, 3, stride=stride, base=base + "_a")
                y = b.cbr(y, width, cout, 3, act=None, base=base + "_b")
            if stride != 1 or cin != cout:
                x = b.cbr(x, cin, cout, 1, stride=stride, act=None, base=base + "_down")
            x = b.node("Relu", [b.node("Add", [y, x], base + "_add")], base + "_relu")
            cin = cout
    x = b.node("GlobalAveragePool", [x], "gap")
    x = b.node("Flatten", [x], "flatten", axis=1)
    y = b.gemm(x, cin, 1000)
    return b.model("input", image_shape(f"resnet{depth}", 224), [y])


def mobilenetv2():
    b = Builder("mobilenetv2", 2)
    x = b.cbr("input", 3, 32, 3, stride=2, act="Relu6", base="stem")
    cin = 32
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1)]
    idx = 0
    for t, c, n, s in settings:
        for i in range(n):
            stride = s if i == 0 else 1
            base = f"ir{idx}"
            hidden = cin * t
            y = x if t == 1 else b.cbr(x, cin, hidden, 1, act="Relu6", base=base + "_expand")
            y = b.cbr(y, hidden, hidden, 3, stride=stride, group=hidden, act="Relu6", base=base + "_dw")
            y = b.cbr(y, hidden, c, 1, act=None, base=base + "_project")
            if stride == 1 and cin == c:
                y = b.node("Add", [y, x], base + "_add")
            x, cin = y, c
            idx += 1
    x = b.cbr(x, cin, 1280, 1, act="Relu6", base="head")
    x = b.node("GlobalAveragePool", [x], "gap")
    x = b.node("Flatten", [x], "flatten", axis=1)
    y = b.gemm(x, 1280, 1000)
    return b.model("input", image_shape("mobilenetv2", 224), [y])


def squeezenet11():
    """SqueezeNet 1.1 (Iandola et al. 2016; the torchvision variant): fire modules, biased convs
    without BatchNorm, a 1x1 conv classifier."""
    b = Builder("squeezenet11", 11)

    def relu_conv(x, cin, cout, k, base, stride=1, valid=False):
        return b.node("Relu", [b.conv(x, cin, cout, k, stride, bias=True, base=base, valid=valid)], base + "_relu")

    def fire(x, cin, squeeze, expand, base):
        s = relu_conv(x, cin, squeeze, 1, base + "_squeeze")
        return b.node("Concat", [relu_conv(s, squeeze, expand, 1, base + "_e1"),
                                 relu_conv(s, squeeze, expand, 3, base + "_e3")], base + "_concat", axis=1)

    def pool(x, base):
        return b.node("MaxPool", [x], base, kernel_shape=[3, 3], strides=[2, 2])

    x = pool(relu_conv("input", 3, 64, 3, "stem", stride=2, valid=True), "pool1")
    x = fire(x, 64, 16, 64, "fire2")
    x = pool(fire(x, 128, 16, 64, "fire3"), "pool3")
    x = fire(x, 128, 32, 128, "fire4")
    x = pool(fire(x, 256, 32, 128, "fire5"), "pool5")
    for i, (cin, sq, ex) in enumerate([(256, 48, 192), (384, 48, 192), (384, 64, 256), (512, 64, 256)]):
        x = fire(x, cin, sq, ex, f"fire{6 + i}")
    x = relu_conv(x, 512, 1000, 1, "classifier")
    x = b.node("GlobalAveragePool", [x], "gap")
    y = b.node("Flatten", [x], "flatten", axis=1)
    return b.model("input", image_shape("squeezenet11", 224), [y])


def inception_v3():
    """Inception-v3 (Szegedy et al. 2015; the torchvision layout without the auxiliary head) at
    299 x 299: factorised 1xn / nx1 convolutions, average-pool branches, concats of 4 branches."""
    b = Builder("inception_v3", 3)

    def cbr(x, cin, cout, k, base, stride=1, valid=False):
        return b.cbr(x, cin, cout, k, stride, base=base, valid=valid)

    def concat(parts, base):
        return b.node("Concat", parts, base + "_concat", axis=1)

    def avg_branch(x, cin, cout, base):
        p = b.node("AveragePool", [x], base + "_avg", kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1],
                   count_include_pad=1)
        return cbr(p, cin, cout, 1, base)

    def max_pool(x, base):
        return b.node("MaxPool", [x], base, kernel_shape=[3, 3], strides=[2, 2])

    def block_a(x, cin, pool_features, base):
        d = cbr(cbr(cbr(x, cin, 64, 1, base + "_d1"), 64, 96, 3, base + "_d2"), 96, 96, 3, base + "_d3")
        return concat([cbr(x, cin, 64, 1, base + "_1x1"),
                       cbr(cbr(x, cin, 48, 1, base + "_5a"), 48, 64, 5, base + "_5b"),
                       d, avg_branch(x, cin, pool_features, base + "_pool")], base), 224 + pool_features

    def block_b(x, cin, base):
        d = cbr(cbr(cbr(x, cin, 64, 1, base + "_d1"), 64, 96, 3, base + "_d2"), 96, 96, 3, base + "_d3",
                stride=2, valid=True)
        return concat([cbr(x, cin, 384, 3, base + "_3x3", stride=2, valid=True), d, max_pool(x, base + "_max")],
                      base), cin + 480

    def block_c(x, c7, base):
        s = cbr(cbr(cbr(x, 768, c7, 1, base + "_7a"), c7, c7, (1, 7), base + "_7b"), c7, 192, (7, 1), base + "_7c")
        d = cbr(x, 768, c7, 1, base + "_d1")
        for i, k in enumerate([(7, 1), (1, 7), (7, 1)]):
            d = cbr(d, c7, c7, k, base + f"_d{i + 2}")
        d = cbr(d, c7, 192, (1, 7), base + "_d5")
        return concat([cbr(x, 768, 192, 1, base + "_1x1"), s, d, avg_branch(x, 768, 192, base + "_pool")], base)

    def block_d(x, base):
        t = cbr(cbr(x, 768, 192, 1, base + "_3a"), 192, 320, 3, base + "_3b", stride=2, valid=True)
        s = cbr(cbr(cbr(x, 768, 192, 1, base + "_7a"), 192, 192, (1, 7), base + "_7b"), 192, 192, (7, 1), base + "_7c")
        s = cbr(s, 192, 192, 3, base + "_7d", stride=2, valid=True)
        return concat([t, s, max_pool(x, base + "_max")], base)

    def block_e(x, cin, base):
        t = cbr(x, cin, 384, 1, base + "_3a")
        d = cbr(cbr(x, cin, 448, 1, base + "_d1"), 448, 384, 3, base + "_d2")
        return concat([cbr(x, cin, 320, 1, base + "_1x1"),
                       cbr(t, 384, 384, (1, 3), base + "_3b"), cbr(t, 384, 384, (3, 1), base + "_3c"),
                       cbr(d, 384, 384, (1, 3), base + "_d3"), cbr(d, 384, 384, (3, 1), base + "_d4"),
                       avg_branch(x, cin, 192, base + "_pool")], base)

    x = cbr("input", 3, 32, 3, "stem1", stride=2, valid=True)
    x = cbr(x, 32, 32, 3, "stem2", valid=True)
    x = max_pool(cbr(x, 32, 64, 3, "stem3"), "stem_pool1")
    x = cbr(x, 64, 80, 1, "stem4")
    x = max_pool(cbr(x, 80, 192, 3, "stem5", valid=True), "stem_pool2")
    cin = 192
    for i, pool_features in enumerate([32, 64, 64]):
        x, cin = block_a(x, cin, pool_features, f"mixed5{'bcd'[i]}")
    x, cin = block_b(x, cin, "mixed6a")
    for i, c7 in enumerate([128, 160, 160, 192]):
        x = block_c(x, c7, f"mixed6{'bcde'[i]}")
    x = block_d(x, "mixed7a")
    x = block_e(x, 1280, "mixed7b")
    x = block_e(x, 2048, "mixed7c")
    x = b.node("GlobalAveragePool", [x], "gap")
    x = b.node("Flatten", [x], "flatten", axis=1)
    y = b.gemm(x, 2048, 1000)
    return b.model("input", image_shape("inception_v3", 299), [y])


def googlenet():
    """GoogLeNet (Szegedy et al. 2014; the torchvision layout without the auxiliary heads, its
    "5x5" branch a 3x3 as there) at 224 x 224: nine inception blocks of four branches, the fourth
    a max pool of the block input, the stride-2 max pools (ceil mode in torchvision) padded one
    row and column at the bottom right, which gives the same sizes."""
    b = Builder("googlenet", 5)

    def cbr(x, cin, cout, k, base, stride=1):
        return b.cbr(x, cin, cout, k, stride, base=base)

    def down(x, base, k=3):
        pads = [0, 0, 1, 1] if k == 3 else [0, 0, 0, 0]
        return b.node("MaxPool", [x], base, kernel_shape=[k, k], strides=[2, 2], pads=pads)

    def inception(x, cin, c1, c3r, c3, c5r, c5, pool_proj, base):
        pool = b.node("MaxPool", [x], base + "_pool", kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1])
        parts = [cbr(x, cin, c1, 1, base + "_1x1"),
                 cbr(cbr(x, cin, c3r, 1, base + "_3r"), c3r, c3, 3, base + "_3x3"),
                 cbr(cbr(x, cin, c5r, 1, base + "_5r"), c5r, c5, 3, base + "_5x5"),
                 cbr(pool, cin, pool_proj, 1, base + "_proj")]
        return b.node("Concat", parts, base + "_concat", axis=1), c1 + c3 + c5 + pool_proj

    x = down(cbr("input", 3, 64, 7, "conv1", stride=2), "pool1")
    x = down(cbr(cbr(x, 64, 64, 1, "conv2"), 64, 192, 3, "conv3"), "pool2")
    cin = 192
    for name, cfg in (("3a", (64, 96, 128, 16, 32, 32)), ("3b", (128, 128, 192, 32, 96, 64)), ("pool3", None),
                      ("4a", (192, 96, 208, 16, 48, 64)), ("4b", (160, 112, 224, 24, 64, 64)),
                      ("4c", (128, 128, 256, 24, 64, 64)), ("4d", (112, 144, 288, 32, 64, 64)),
                      ("4e", (256, 160, 320, 32, 128, 128)), ("pool4", None),
                      ("5a", (256, 160, 320, 32, 128, 128)), ("5b", (384, 192, 384, 48, 128, 128))):
        if cfg is None:
            x = down(x, name, k=3 if name == "pool3" else 2)
        else:
            x, cin = inception(x, cin, *cfg, "inception" + name)
    x = b.node("Flatten", [b.node("GlobalAveragePool", [x], "gap")], "flatten", axis=1)
    return b.model("input", image_shape("googlenet", 224), [b.gemm(x, 1024, 1000)])


def densenet121():
    """DenseNet-121 (Huang et al. 2017; torchvision's layout) at 224 x 224: four dense blocks of 6,
    12, 24 and 16 layers, growth 32; each layer concatenates every earlier feature map of its
    block and normalises it (BatchNorm, ReLU) before a 1x1 and a 3x3 conv, so every layer reads
    a wider Concat; transitions halve the channels (1x1 conv) and the size (2x2 average pool)."""
    b = Builder("densenet121", 6)

    def bn_relu(x, c, base):
        return b.node("Relu", [b.bn(x, c, base + "_bn")], base + "_relu")

    x = b.cbr("input", 3, 64, 7, stride=2, base="conv0")
    x = b.node("MaxPool", [x], "pool0", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    c = 64
    for i, layers in enumerate((6, 12, 24, 16)):
        features = [x]
        for j in range(layers):
            base = f"block{i + 1}_layer{j + 1}"
            cat = features[0] if len(features) == 1 else b.node("Concat", features, base + "_cat", axis=1)
            cin = c + 32 * j
            y = b.conv(bn_relu(cat, cin, base + "_norm1"), cin, 128, 1, base=base + "_conv1")
            features.append(b.conv(bn_relu(y, 128, base + "_norm2"), 128, 32, 3, base=base + "_conv2"))
        x = b.node("Concat", features, f"block{i + 1}_out", axis=1)
        c += 32 * layers
        if i < 3:
            x = b.conv(bn_relu(x, c, f"transition{i + 1}"), c, c // 2, 1, base=f"transition{i + 1}_conv")
            x = b.node("AveragePool", [x], f"transition{i + 1}_pool", kernel_shape=[2, 2], strides=[2, 2])
            c //= 2
    x = b.node("Flatten", [b.node("GlobalAveragePool", [bn_relu(x, c, "norm5")], "gap")], "flatten", axis=1)
    return b.model("input", image_shape("densenet121", 224), [b.gemm(x, c, 1000)])


def yolo_style():
    b = Builder("yolo_style", 5)

    def c3(x, cin, cout, n, base):
        hidden = cout // 2
        a = b.cbr(x, cin, hidden, 1, act="SiLU", base=base + "_cv1")
        for i in range(n):
            y = b.cbr(a, hidden, hidden, 1, act="SiLU", base=f"{base}_m{i}_cv1")
            y = b.cbr(y, hidden, hidden, 3, act="SiLU", base=f"{base}_m{i}_cv2")
            a = b.node("Add", [a, y], f"{base}_m{i}_add")
        c = b.cbr(x, cin, hidden, 1, act="SiLU", base=base + "_cv2")
        cat = b.node("Concat", [a, c], base + "_cat", axis=1)
        return b.cbr(cat, 2 * hidden, cout, 1, act="SiLU", base=base + "_cv3")

    def sppf(x, c, base):
        h = c // 2
        a = b.cbr(x, c, h, 1, act="SiLU", base=base + "_cv1")
        p1 = b.node("MaxPool", [a], base + "_pool", kernel_shape=[5, 5], strides=[1, 1], pads=[2, 2, 2, 2])
        p2 = b.node("MaxPool", [p1], base + "_pool", kernel_shape=[5, 5], strides=[1, 1], pads=[2, 2, 2, 2])
        p3 = b.node("MaxPool", [p2], base + "_pool", kernel_shape=[5, 5], strides=[1, 1], pads=[2, 2, 2, 2])
        cat = b.node("Concat", [a, p1, p2, p3], base + "_cat", axis=1)
        return b.cbr(cat, 4 * h, c, 1, act="SiLU", base=base + "_cv2")

    def upsample(x, base):
        scales = b.const(base + "_scales", np.array([1, 1, 2, 2], np.float32))
        return b.node("Resize", [x, "", scales], base, mode="nearest",
                      coordinate_transformation_mode="asymmetric", nearest_mode="floor")

    x = b.cbr("input", 3, 16, 3, stride=2, act="SiLU", base="stem")
    x = b.cbr(x, 16, 32, 3, stride=2, act="SiLU", base="down1")
    x = c3(x, 32, 32, 1, "c3_1")
    x = b.cbr(x, 32, 64, 3, stride=2, act="SiLU", base="down2")
    p3 = c3(x, 64, 64, 2, "c3_2")
    x = b.cbr(p3, 64, 128, 3, stride=2, act="SiLU", base="down3")
    p4 = c3(x, 128, 128, 2, "c3_3")
    x = b.cbr(p4, 128, 256, 3, stride=2, act="SiLU", base="down4")
    x = c3(x, 256, 256, 1, "c3_4")
    p5 = sppf(x, 256, "sppf")
    # top-down neck
    h5 = b.cbr(p5, 256, 128, 1, act="SiLU", base="neck_h5")
    u = b.node("Concat", [upsample(h5, "up1"), p4], "neck_cat1", axis=1)
    n4 = c3(u, 256, 128, 1, "neck_c3_1")
    h4 = b.cbr(n4, 128, 64, 1, act="SiLU", base="neck_h4")
    u = b.node("Concat", [upsample(h4, "up2"), p3], "neck_cat2", axis=1)
    n3 = c3(u, 128, 64, 1, "neck_c3_2")
    # bottom-up
    d = b.cbr(n3, 64, 64, 3, stride=2, act="SiLU", base="pan_down1")
    n4b = c3(b.node("Concat", [d, h4], "pan_cat1", axis=1), 128, 128, 1, "pan_c3_1")
    d = b.cbr(n4b, 128, 128, 3, stride=2, act="SiLU", base="pan_down2")
    n5b = c3(b.node("Concat", [d, h5], "pan_cat2", axis=1), 256, 256, 1, "pan_c3_2")
    outputs = []
    for i, (feat, c) in enumerate(((n3, 64), (n4b, 128), (n5b, 256))):
        outputs.append(b.conv(feat, c, 3 * 85, 1, bias=True, base=f"head{i}"))
    return b.model("input", image_shape("yolo_style", 320), outputs)


MODELS = {
    "tiny_convnet": tiny_convnet,
    "resnet18": lambda: resnet(18),
    "resnet50": lambda: resnet(50),
    "mobilenetv2": mobilenetv2,
    "yolo_style": yolo_style,
    "squeezenet11": squeezenet11,
    "inception_v3": inception_v3,
    "googlenet": googlenet,
    "densenet121": densenet121,
}
# Written without --only: the models the tests and benchmarks use. The others (the public
# figures' models of configs/measurements/) are written on request.
DEFAULT_MODELS = ["tiny_convnet", "resnet18", "resnet50", "mobilenetv2", "yolo_style"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="directory to write <name>.onnx into")
    ap.add_argument("--only", choices=sorted(MODELS), action="append",
                    help="write just this model (repeatable)")
    ap.add_argument("--input-size", type=int, metavar="N",
                    help="N x N image input instead of each model's default (same weights)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.only or DEFAULT_MODELS:
        if args.input_size:
            INPUT_SIZE[name] = args.input_size
        model = MODELS[name]()
        path = os.path.join(args.out, name + ".onnx")
        onnx.save(model, path)
        print(f"{path}: {len(model.graph.node)} nodes, {os.path.getsize(path)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
