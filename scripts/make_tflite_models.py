#!/usr/bin/env python3
"""Writes fixed-seed random-weight TFLite models for npusim's TFLite front end, with no TensorFlow
and no network access.

    python3 scripts/make_tflite_models.py --out DIR [--only NAME ...]

Each model is written to DIR/NAME.tflite with the Python code that `flatc --python
--gen-object-api` generates from our schema (compiler/frontend/tflite/tflite_schema.fbs; flatc
runs into a temporary directory at start) and the pip flatbuffers package. Weights are
He-initialised (LeCun for the recurrent and attention layers), so activations stay in a realistic
range. Every model has a "serving_default" SignatureDef over subgraph 0.

Models:
  cnn_float          FP32 NHWC CNN, input [1,64,64,3]: CONV_2D (SAME, stride 2, fused RELU6),
                     DEPTHWISE_CONV_2D (depth multiplier 1 and 2), MAX_POOL_2D, AVERAGE_POOL_2D
                     (SAME), ADD residual, CONCATENATION (channels), MUL by a [C] constant, PAD,
                     RESIZE_BILINEAR (half_pixel_centers), HARD_SWISH, LOGISTIC, MEAN over [1,2],
                     FULLY_CONNECTED, SOFTMAX; outputs probs [1,10] and seg [1,32,32,8].
  cnn_int8           the same network fully INT8: int8 input/outputs, per-channel int8 conv
                     (quantized_dimension 0) and depthwise (3) weights, int32 biases, per-tensor
                     activations calibrated by running cnn_float in LiteRT on random inputs
                     (needs ai_edge_litert).
  requant_int8       fully INT8, input [1,16,16,4]: QUANTIZE (int8 -> int8 onto another grid),
                     CONV_2D (fused RELU), QUANTIZE onto the output's grid; int8 output [1,16,16,8].
  cnn_fp16_weights   cnn_float with its conv/depthwise/FC weights as FLOAT16 constants behind
                     DEQUANTIZE (the converter's float16 quantization).
  cnn_sparse         cnn_float with 70 % of its conv weights pruned and stored sparse behind
                     DENSIFY: 3x3 convs as FP32 1x4 blocks along input channels (block_map [3],
                     DENSE x3 / SPARSE_CSR / DENSE), 1x1 convs as MediaPipe does (unblocked
                     FLOAT16 CSR, DENSIFY then DEQUANTIZE).
  conv_int16x8       16x8 (as the AI Edge quantiser's int16 activations): int16 input [1,16,16,4]
                     (symmetric, zero point 0), CONV_2D 3x3 (RELU) and 1x1 with per-channel int8
                     weights and int64 biases, int16 output [1,16,16,8]; calibrated as cnn_int8.
  lstm               UNIDIRECTIONAL_SEQUENCE_LSTM (batch-major [1,16,20], 32 cells, TANH, no
                     peephole/projection, variable state tensors) + FULLY_CONNECTED keep_num_dims.
  bilstm             BIDIRECTIONAL_SEQUENCE_LSTM ([1,12,16], 24 cells each way, merged outputs).
  misc_ops           EMBEDDING_LOOKUP, GATHER_ND, ADD_N, REVERSE_V2, CUMSUM, L2_POOL_2D,
                     LOCAL_RESPONSE_NORMALIZATION, TOPK_V2, and FLOOR_DIV (which npusim leaves
                     to LiteRT).
  rnn                UNIDIRECTIONAL_SEQUENCE_RNN (the same shapes) + FULLY_CONNECTED keep_num_dims.
  streaming_state    frame [1,1,40] -> [1,16]: resource-variable state (CALL_ONCE of init subgraph
                     1, VAR_HANDLE "buffer", READ_VARIABLE, CONCATENATION, SLICE dropping the
                     oldest frame, ASSIGN_VARIABLE) and FULLY_CONNECTED over the 4-frame window.
  streaming_conv     frame [1,1,1,24] -> [1,8] (float) and streaming_conv_int8 (int8 frame, state and
                     output, as micro wake-word models): resource-variable state [1,16,1,24], the
                     17-frame window, DEPTHWISE_CONV_2D with a 17x1 kernel over time (longer than
                     the conv instruction's kernel field), FULLY_CONNECTED.
  unknown_custom_op  CONV_2D, a custom op no runtime here resolves ("NpusimUnknownOp", as MediaPipe's
                     Landmarks2TransformMatrix is to LiteRT), CONV_2D (RELU), CONV_2D 1x1:
                     calibration cannot run past the custom op.
  transpose_conv     input [1,32,32,8]: CONV_2D, SPACE_TO_DEPTH, ADD, TRANSPOSE_CONV (stride 2,
                     SAME, bias), RESIZE_NEAREST_NEIGHBOR, DEPTH_TO_SPACE; output [1,128,128,3].
  transformer_block  x [1,16,64] + token_ids int32 [1,16] (GATHER of an embedding table):
                     multi-head attention (FULLY_CONNECTED keep_num_dims, RESHAPE, TRANSPOSE,
                     BATCH_MATMUL adj_y, MUL, SOFTMAX), layer norm as MEAN / SQUARED_DIFFERENCE /
                     RSQRT / SUB / MUL / ADD, GELU FFN, STRIDED_SLICE shrink_axis_mask -> FC head;
                     outputs [1,16,64] and [1,10].
  if_branches        x [1,16] and a bool input use_relu []: FC, then IF on a constant (true) condition
                     and IF on use_relu, both over subgraphs 1 (then: FC + RELU, ADD of the second
                     argument) and 2 (else: MUL, ADD of the second argument), the second argument a
                     constant of the main graph; FC head -> y [1,8].
  while_loop         x [1,16]: WHILE over TensorFlow's (loop_counter, maximum_iterations = 5, i, x),
                     cond subgraph 1 loop_counter < maximum_iterations AND i < 3, body subgraph 2
                     steps both counters by 1 and x = x * w + b (FULLY_CONNECTED); FC head -> y [1,8].
  while_dynamic      while_loop with the trip count from an int32 input n [] (not known at compile
                     time).
  while_if           x [1,16]: WHILE (i < 3) whose body holds an IF on i == 0 (subgraph 3: FC + RELU,
                     subgraph 4: x * 0.5), the body's input named x as the model's; FC head -> y.
  dynamic_batch      x [1,8] with shape_signature [-1,8] (every activation's batch dynamic): FC +
                     RELU, RESHAPE to [-1,4,4], SOFTMAX -> probs [batch,4,4].
"""
import argparse
import importlib
import os
import subprocess
import sys
import tempfile

import flatbuffers
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "compiler", "frontend", "tflite", "tflite_schema.fbs")


def generate_schema_code(directory):
    """Runs flatc on our schema and makes its Python package (`tflite`) importable."""
    subprocess.run(["flatc", "--python", "--gen-object-api", "-o", directory, SCHEMA], check=True)
    sys.path.insert(0, directory)
    importlib.invalidate_caches()


class _Schema:
    """Lazy access to the generated code: tfl.Conv2DOptionsT, tfl.TensorType.INT8, tfl.module("Buffer")."""

    def module(self, name):
        return importlib.import_module("tflite." + name)

    def __getattr__(self, name):
        try:
            value = getattr(self.module(name), name)  # enums and tables
        except ModuleNotFoundError:
            value = getattr(self.module(name[:-1]), name)  # object-API classes: <Table>T
        setattr(self, name, value)
        return value


tfl = _Schema()

# Option fields given as strings are enum member names.
ENUM_FIELDS = {"padding": "Padding", "fusedActivationFunction": "ActivationFunctionType"}
TENSOR_TYPES = {np.dtype(np.float32): "FLOAT32", np.dtype(np.float16): "FLOAT16",
                np.dtype(np.int32): "INT32", np.dtype(np.int8): "INT8", np.dtype(np.int64): "INT64",
                np.dtype(np.uint8): "UINT8", np.dtype(np.bool_): "BOOL"}


class Buffer:
    """A Model.buffers entry. Its data is 16-byte aligned as in LiteRT's writer (the schema's
    force_align: 16, which flatc's Python code ignores). Stands in for the generated BufferT."""

    def __init__(self, data=b""):
        self.data = data

    def Pack(self, builder):
        gen = tfl.module("Buffer")
        data = None
        if self.data:
            n = len(self.data)
            builder.StartVector(1, n, 16)
            builder.head -= n
            builder.Bytes[builder.head:builder.head + n] = self.data
            data = builder.EndVector()
        gen.BufferStart(builder)
        if data is not None:
            gen.BufferAddData(builder, data)
        return gen.BufferEnd(builder)


def quant_params(lo, hi):
    """Asymmetric int8 (scale, zero point) covering [lo, hi] and 0."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = max(hi - lo, 1e-5) / 255.0
    return scale, int(np.clip(np.round(-128 - lo / scale), -128, 127))


def quantize_symmetric(w, axis):
    """int8 weights with zero point 0: per channel along axis, or per tensor (axis None)."""
    if axis is None:
        scale = np.array([max(np.abs(w).max(), 1e-8) / 127.0])
        shape = [1] * w.ndim
    else:
        others = tuple(i for i in range(w.ndim) if i != axis)
        scale = np.maximum(np.abs(w).max(axis=others), 1e-8) / 127.0
        shape = [-1 if i == axis else 1 for i in range(w.ndim)]
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale


def prune(w, block, fraction):
    """Zeroes the `fraction` of 1 x block groups along the last axis with the smallest L2 norm and
    rescales the rest so the output variance is kept."""
    groups = w.reshape(-1, block).copy()
    groups[np.argsort(np.linalg.norm(groups, axis=1), kind="stable")[:int(round(fraction * len(groups)))]] = 0
    return (groups / np.sqrt(1 - fraction)).reshape(w.shape).astype(w.dtype)


def index_vector(values):
    """A SparseIndexVector union member, the narrowest that holds values."""
    values = np.asarray(values)
    top = int(values.max()) if values.size else 0
    kind, dtype = (("Uint8Vector", np.uint8) if top < 256 else
                   ("Uint16Vector", np.uint16) if top < 65536 else ("Int32Vector", np.int32))
    vec = getattr(tfl, kind + "T")()
    vec.values = values.astype(dtype)
    return getattr(tfl.SparseIndexVector, kind), vec


def csr_sparsity(w, block):
    """Sparse storage of w along its last axis: every leading axis DENSE, the last one SPARSE_CSR over
    1 x block groups (plus a DENSE block level when block > 1). Returns (SparsityParametersT, values)."""
    *outer, inner = w.shape
    groups = w.reshape(-1, inner // block, block)
    nonzero = np.abs(groups).sum(axis=2) != 0
    segments = np.concatenate([[0], np.cumsum(nonzero.sum(axis=1))])

    def dim(fmt, size=0, segs=None, idx=None):
        d = tfl.DimensionMetadataT()
        d.format, d.denseSize = getattr(tfl.DimensionType, fmt), size
        if segs is not None:
            d.arraySegmentsType, d.arraySegments = index_vector(segs)
            d.arrayIndicesType, d.arrayIndices = index_vector(idx)
        return d

    dims = [dim("DENSE", n) for n in outer] + [dim("SPARSE_CSR", 0, segments, np.nonzero(nonzero)[1])]
    sp = tfl.SparsityParametersT()
    sp.blockMap = []
    if block > 1:
        dims.append(dim("DENSE", block))
        sp.blockMap = [w.ndim - 1]
    sp.traversalOrder, sp.dimMetadata = list(range(len(dims))), dims
    return sp, groups[nonzero].reshape(-1)


class Model:
    """Registers tensors, buffers and operator codes and writes operators of one .tflite model.

    mode (for the shared CNN): "float"; "int8" (activations quantized from `ranges`, tensor name ->
    (min, max) of the float model); "fp16" (weights FLOAT16 + DEQUANTIZE); "sparse" (conv weights
    pruned, sparse + DENSIFY). Layer helpers take and return tensor indices of the current subgraph.
    """

    def __init__(self, seed, mode="float", ranges=None):
        self.rng = np.random.default_rng(seed)
        self.mode = mode
        self.ranges = ranges
        self.ties = []  # groups of tensor names whose int8 kernels need one scale / zero point
        self.buffers = [Buffer()]  # buffer 0: the empty sentinel, shared by all non-constant tensors
        self.opcodes, self.opcode_index, self.subgraphs = [], {}, []
        self.subgraph("main")

    # ---- registry ----------------------------------------------------------------------------
    def subgraph(self, name):
        sg = tfl.SubGraphT()
        sg.name, sg.tensors, sg.operators, sg.inputs, sg.outputs = name, [], [], [], []
        self.subgraphs.append(sg)
        self.sg, self.count = sg, {}
        return len(self.subgraphs) - 1

    def uid(self, base):
        n = self.count.get(base, 0)
        self.count[base] = n + 1
        return f"{base}_{n}" if n else base

    def tensor(self, name, shape, ttype="FLOAT32", data=None, quant=None, variable=False, sparsity=None):
        t = tfl.TensorT()
        t.name, t.shape, t.type = self.uid(name), [int(d) for d in shape], getattr(tfl.TensorType, ttype)
        t.buffer = 0
        if data is not None:
            t.buffer = len(self.buffers)
            self.buffers.append(Buffer(data))
        t.isVariable, t.sparsity = variable, sparsity
        self.sg.tensors.append(t)
        if quant is not None:
            self.quantize(len(self.sg.tensors) - 1, *quant)
        return len(self.sg.tensors) - 1

    def quantize(self, t, scales, zero_points, axis=0):
        q = self.sg.tensors[t].quantization = tfl.QuantizationParametersT()
        q.scale = [float(s) for s in np.ravel(scales)]
        q.zeroPoint = [int(z) for z in np.ravel(zero_points)]
        q.quantizedDimension = axis

    def const(self, name, array, quant=None):
        array = np.asarray(array)
        data = array.astype(array.dtype.newbyteorder("<")).tobytes()  # C order, little endian
        return self.tensor(name, array.shape, TENSOR_TYPES[array.dtype], data, quant)

    def ints(self, name, values):
        return self.const(name, np.array(values, np.int32))

    def options(self, table, **fields):
        opts = getattr(tfl, table + "T")()
        for key, value in fields.items():
            if not hasattr(opts, key):
                raise AttributeError(f"{table} has no field {key}")
            if isinstance(value, str) and key in ENUM_FIELDS:
                value = getattr(getattr(tfl, ENUM_FIELDS[key]), value)
            setattr(opts, key, value)
        return opts

    def op(self, name, inputs, outputs, table=None, version=1, **fields):
        code = getattr(tfl.BuiltinOperator, name)
        if (code, version) not in self.opcode_index:
            oc = tfl.OperatorCodeT()
            oc.builtinCode, oc.version = code, version
            oc.deprecatedBuiltinCode = min(code, tfl.BuiltinOperator.PLACEHOLDER_FOR_GREATER_OP_CODES)
            self.opcode_index[(code, version)] = len(self.opcodes)
            self.opcodes.append(oc)
        o = tfl.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = self.opcode_index[(code, version)], list(inputs), list(outputs)
        if table is not None:
            o.builtinOptionsType = getattr(tfl.BuiltinOptions, table)
            o.builtinOptions = self.options(table, **fields)
        self.sg.operators.append(o)
        return outputs[0] if len(outputs) == 1 else outputs

    def custom(self, code, inputs, outputs):
        """An operator of custom code `code` (no options), as MediaPipe's custom ops are written."""
        key = ("CUSTOM", code)
        if key not in self.opcode_index:
            oc = tfl.OperatorCodeT()
            oc.builtinCode = oc.deprecatedBuiltinCode = tfl.BuiltinOperator.CUSTOM
            oc.customCode, oc.version = code, 1
            self.opcode_index[key] = len(self.opcodes)
            self.opcodes.append(oc)
        o = tfl.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = self.opcode_index[key], list(inputs), list(outputs)
        self.sg.operators.append(o)
        return outputs[0] if len(outputs) == 1 else outputs

    def shape(self, t):
        return list(self.sg.tensors[t].shape)

    def name(self, t):
        return self.sg.tensors[t].name

    def scales(self, t):
        return np.array(self.sg.tensors[t].quantization.scale, np.float64)

    def v(self, float_version, int8_version):
        return int8_version if self.mode in ("int8", "int16x8") else float_version

    # ---- activations -------------------------------------------------------------------------
    def act(self, name, shape, dtype="FLOAT32", fixed=None):
        """A non-constant tensor; int8 in int8 mode, with `fixed` (scale, zero point) or the
        calibrated range of the same-named float tensor."""
        if self.mode not in ("int8", "int16x8") or dtype != "FLOAT32":
            return self.tensor(name, shape, dtype)
        if self.mode == "int16x8":  # symmetric int16 (zero point 0), as TFLite's 16x8 kernels need
            t = self.tensor(name, shape, "INT16")
            lo, hi = self.ranges[self.name(t)]
            self.quantize(t, [max(abs(lo), abs(hi), 1e-5) / 32767.0], [0])
            return t
        t = self.tensor(name, shape, "INT8")
        scale, zp = fixed or quant_params(*self.ranges[self.name(t)])
        self.quantize(t, [scale], [zp])
        return t

    def tie(self, *tensors):
        self.ties.append([self.name(t) for t in tensors])

    def input(self, name, shape, dtype="FLOAT32"):
        t = self.act(name, shape, dtype)
        self.sg.inputs.append(t)
        return t

    def outputs(self, *tensors):
        self.sg.outputs.extend(tensors)

    # ---- weights -----------------------------------------------------------------------------
    def weight(self, name, w, axis=0, kind="dense"):
        """A weight tensor as the mode stores it. axis: the int8 per-channel axis (None: per tensor).
        kind "conv" lets sparse mode prune it."""
        w = w.astype(np.float32)
        if self.mode in ("int8", "int16x8"):
            q, scale = quantize_symmetric(w, axis)
            return self.const(name, q, quant=(scale, np.zeros(len(scale), np.int64), axis or 0))
        if self.mode == "fp16":
            return self.dequantize(self.const(name, w.astype(np.float16)))
        if self.mode == "sparse" and kind == "conv":
            if w.shape[1:3] == (1, 1):  # MediaPipe's form: unblocked FLOAT16 CSR, DENSIFY, DEQUANTIZE
                sp, values = csr_sparsity(prune(w, 1, 0.7).astype(np.float16), 1)
                t = self.tensor(name, w.shape, "FLOAT16", values.astype("<f2").tobytes(), sparsity=sp)
                return self.dequantize(self.densify(t))
            if w.shape[-1] % 4 == 0:  # 1x4 blocks along input channels, FP32
                sp, values = csr_sparsity(prune(w, 4, 0.7), 4)
                return self.densify(self.tensor(name, w.shape, "FLOAT32", values.astype("<f4").tobytes(), sparsity=sp))
        return self.const(name, w)

    def dequantize(self, t):
        y = self.tensor(self.name(t) + "_dequantize", self.shape(t))
        return self.op("DEQUANTIZE", [t], [y], version=3)

    def densify(self, t):
        src = self.sg.tensors[t]
        y = self.tensor(src.name + "_densified", src.shape, "FLOAT16" if src.type == tfl.TensorType.FLOAT16 else "FLOAT32")
        return self.op("DENSIFY", [t], [y])

    def bias(self, name, b, x, w):
        """FP32 bias; int8 mode: int32 with scale = input scale * weight scale (per channel);
        int16x8 mode: int64 so."""
        if self.mode not in ("int8", "int16x8"):
            return self.const(name, b.astype(np.float32))
        scale = self.scales(x)[0] * self.scales(w)  # one per tensor or one per channel, as w
        q = np.round(b / np.broadcast_to(scale, b.shape)).astype(np.int64 if self.mode == "int16x8" else np.int32)
        return self.const(name, q, quant=(scale, np.zeros(len(scale), np.int64), 0))

    # ---- layers ------------------------------------------------------------------------------
    @staticmethod
    def out_size(n, k, stride, padding):
        return -(-n // stride) if padding == "SAME" else (n - k) // stride + 1

    def conv2d(self, x, cout, k, stride=1, padding="SAME", act="NONE", name="conv"):
        n, h, w, cin = self.shape(x)
        wt = self.weight(name + "_w", self.rng.normal(0, np.sqrt(2.0 / (cin * k * k)), (cout, k, k, cin)), 0, "conv")
        bt = self.bias(name + "_b", self.rng.normal(0, 0.05, cout), x, wt)
        y = self.act(name, [n, self.out_size(h, k, stride, padding), self.out_size(w, k, stride, padding), cout])
        return self.op("CONV_2D", [x, wt, bt], [y], "Conv2DOptions", self.v(1, 3), padding=padding,
                       strideH=stride, strideW=stride, fusedActivationFunction=act)

    def depthwise(self, x, k, multiplier=1, stride=1, padding="SAME", act="NONE", name="dw"):
        n, h, w, cin = self.shape(x)
        cout = cin * multiplier
        wt = self.weight(name + "_w", self.rng.normal(0, np.sqrt(2.0 / (k * k)), (1, k, k, cout)), 3)
        bt = self.bias(name + "_b", self.rng.normal(0, 0.05, cout), x, wt)
        y = self.act(name, [n, self.out_size(h, k, stride, padding), self.out_size(w, k, stride, padding), cout])
        return self.op("DEPTHWISE_CONV_2D", [x, wt, bt], [y], "DepthwiseConv2DOptions", self.v(1, 3),
                       padding=padding, strideH=stride, strideW=stride, depthMultiplier=multiplier,
                       fusedActivationFunction=act)

    def transpose_conv(self, x, cout, k, stride, act="NONE", name="tconv"):
        n, h, w, cin = self.shape(x)
        out_shape = [n, h * stride, w * stride, cout]
        wt = self.weight(name + "_w", self.rng.normal(0, np.sqrt(2.0 * stride * stride / (cin * k * k)),
                                                      (cout, k, k, cin)), 0)
        bt = self.bias(name + "_b", self.rng.normal(0, 0.05, cout), x, wt)
        y = self.act(name, out_shape)
        return self.op("TRANSPOSE_CONV", [self.ints(name + "_output_shape", out_shape), wt, x, bt], [y],
                       "TransposeConvOptions", 4 if act != "NONE" else 3, padding="SAME", strideH=stride,
                       strideW=stride, fusedActivationFunction=act)

    def fully_connected(self, x, cout, keep_num_dims=False, act="NONE", name="fc"):
        shape = self.shape(x)
        cin = shape[-1] if keep_num_dims else int(np.prod(shape[1:]))
        wt = self.weight(name + "_w", self.rng.normal(0, np.sqrt(2.0 / cin), (cout, cin)), None)
        bt = self.bias(name + "_b", self.rng.normal(0, 0.05, cout), x, wt)
        y = self.act(name, shape[:-1] + [cout] if keep_num_dims else [shape[0], cout])
        return self.op("FULLY_CONNECTED", [x, wt, bt], [y], "FullyConnectedOptions",
                       5 if keep_num_dims else self.v(1, 4), fusedActivationFunction=act, keepNumDims=keep_num_dims)

    def pool(self, kind, x, k, stride, padding, name):
        n, h, w, c = self.shape(x)
        y = self.act(name, [n, self.out_size(h, k, stride, padding), self.out_size(w, k, stride, padding), c])
        self.tie(x, y)
        return self.op(kind, [x], [y], "Pool2DOptions", self.v(1, 2), padding=padding, strideH=stride,
                       strideW=stride, filterHeight=k, filterWidth=k)

    def binary(self, kind, a, b, act="NONE", name=None):
        sa, sb = self.shape(a), self.shape(b)
        rank = max(len(sa), len(sb))
        sa, sb = [1] * (rank - len(sa)) + sa, [1] * (rank - len(sb)) + sb
        y = self.act(name or kind.lower(), [max(p, q) for p, q in zip(sa, sb)])
        table = {"ADD": "AddOptions", "MUL": "MulOptions", "SUB": "SubOptions"}.get(kind)
        fields = {"fusedActivationFunction": act} if table else {}
        return self.op(kind, [a, b], [y], table, self.v(1, 2), **fields)

    def mul_const(self, x, c, name):
        c = np.asarray(c, np.float32)
        if self.mode == "int8":
            q, scale = quantize_symmetric(c, None)
            ct = self.const(name + "_c", q, quant=(scale, [0], 0))
        else:
            ct = self.const(name + "_c", c)
        return self.binary("MUL", x, ct, name=name)

    def concat(self, xs, axis, name="concat"):
        shape = self.shape(xs[0])
        shape[axis] = sum(self.shape(x)[axis] for x in xs)
        y = self.act(name, shape)
        self.tie(*xs, y)
        return self.op("CONCATENATION", xs, [y], "ConcatenationOptions", self.v(1, 2), axis=axis)

    def pad(self, x, pads, name="pad"):
        y = self.act(name, [d + p + q for d, (p, q) in zip(self.shape(x), pads)])
        self.tie(x, y)
        return self.op("PAD", [x, self.ints(name + "_paddings", pads)], [y], "PadOptions", self.v(1, 2))

    def resize(self, kind, x, size, name):
        n, _, _, c = self.shape(x)
        y = self.act(name, [n, size[0], size[1], c])
        self.tie(x, y)
        if kind == "RESIZE_BILINEAR":
            return self.op(kind, [x, self.ints(name + "_size", size)], [y], "ResizeBilinearOptions", 3,
                           alignCorners=False, halfPixelCenters=True)
        return self.op(kind, [x, self.ints(name + "_size", size)], [y], "ResizeNearestNeighborOptions",
                       alignCorners=False, halfPixelCenters=False)

    def unary(self, kind, x, name, version=1, fixed=None):
        return self.op(kind, [x], [self.act(name, self.shape(x), fixed=fixed)], version=version)

    def logistic(self, x, name="logistic"):
        return self.unary("LOGISTIC", x, name, self.v(1, 2), fixed=(1 / 256, -128))

    def softmax(self, x, name="softmax"):
        y = self.act(name, self.shape(x), fixed=(1 / 256, -128))
        return self.op("SOFTMAX", [x], [y], "SoftmaxOptions", self.v(1, 2), beta=1.0)

    def mean(self, x, axes, keep_dims, name="mean"):
        shape = self.shape(x)
        out = [1 if i in axes else d for i, d in enumerate(shape)] if keep_dims else \
            [d for i, d in enumerate(shape) if i not in axes]
        return self.op("MEAN", [x, self.ints(name + "_axes", axes)], [self.act(name, out)], "ReducerOptions",
                       self.v(1, 2), keepDims=keep_dims)

    def reshape(self, x, shape, name="reshape"):
        y = self.act(name, shape)
        self.tie(x, y)
        return self.op("RESHAPE", [x, self.ints(name + "_shape", shape)], [y], "ReshapeOptions", newShape=list(shape))

    def transpose(self, x, perm, name="transpose"):
        y = self.act(name, [self.shape(x)[p] for p in perm])
        self.tie(x, y)
        return self.op("TRANSPOSE", [x, self.ints(name + "_perm", perm)], [y])

    def block_op(self, kind, x, block, name):
        n, h, w, c = self.shape(x)
        shape = ([n, h // block, w // block, c * block * block] if kind == "SPACE_TO_DEPTH"
                 else [n, h * block, w * block, c // (block * block)])
        y = self.act(name, shape)
        self.tie(x, y)
        table = "SpaceToDepthOptions" if kind == "SPACE_TO_DEPTH" else "DepthToSpaceOptions"
        return self.op(kind, [x], [y], table, blockSize=block)

    # ---- writing -----------------------------------------------------------------------------
    def serialize(self, description):
        main = self.subgraphs[0]

        def tensor_maps(indices):
            maps = []
            for i in indices:
                tm = tfl.TensorMapT()
                tm.name, tm.tensorIndex = main.tensors[i].name, i
                maps.append(tm)
            return maps

        sig = tfl.SignatureDefT()
        sig.inputs, sig.outputs = tensor_maps(main.inputs), tensor_maps(main.outputs)
        sig.signatureKey, sig.subgraphIndex = "serving_default", 0
        model = tfl.ModelT()
        model.version, model.description = 3, description
        model.operatorCodes, model.subgraphs, model.buffers = self.opcodes, self.subgraphs, self.buffers
        model.signatureDefs = [sig]
        builder = flatbuffers.Builder(sum(len(b.data) + 32 for b in self.buffers) + 65536)
        builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
        return bytes(builder.Output())


# ---- models ----------------------------------------------------------------------------------
def cnn(mode="float", ranges=None):
    m = Model(10, mode, ranges)
    x = m.input("input", [1, 64, 64, 3])
    stem = m.conv2d(x, 16, 3, stride=2, act="RELU6", name="stem")              # 32x32x16
    y = m.depthwise(stem, 3, act="RELU6", name="dw1")
    y = m.conv2d(y, 16, 1, name="pw1")
    y = m.binary("ADD", stem, y, act="RELU", name="residual")
    y = m.pool("MAX_POOL_2D", y, 2, 2, "VALID", "maxpool")                       # 16x16x16
    a = m.depthwise(y, 3, multiplier=2, act="RELU", name="dw2")                   # 16x16x32
    b = m.pool("AVERAGE_POOL_2D", y, 3, 1, "SAME", "avgpool")                     # 16x16x16
    y = m.concat([a, b], axis=3, name="concat")                                   # 16x16x48
    y = m.mul_const(y, m.rng.uniform(0.5, 1.5, 48), name="channel_scale")
    y = m.pad(y, [[0, 0], [1, 1], [1, 1], [0, 0]], name="pad")                    # 18x18x48
    y = m.conv2d(y, 32, 3, padding="VALID", name="conv2")                         # 16x16x32
    feat = m.unary("HARD_SWISH", y, "hard_swish")
    up = m.resize("RESIZE_BILINEAR", feat, [32, 32], "upsample")                  # 32x32x32
    seg = m.logistic(m.conv2d(up, 8, 1, name="seg_conv"), name="seg")             # 32x32x8
    g = m.mean(feat, [1, 2], keep_dims=False, name="global_pool")                 # [1,32]
    probs = m.softmax(m.fully_connected(g, 10, name="classifier"), name="probs")
    m.outputs(probs, seg)
    return m


def calibrate(model, feeds):
    """(min, max) of every float tensor of model over the feeds (LiteRT, all tensors kept), with the
    tied groups widened to one shared range."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    it = Interpreter(model_content=model.serialize("calibration"), experimental_preserve_all_tensors=True,
                     experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    ranges = {}
    for feed in feeds:
        for d, x in zip(it.get_input_details(), feed):
            it.set_tensor(d["index"], x)
        it.invoke()
        for d in it.get_tensor_details():
            if d["dtype"] == np.float32 and d["name"]:
                a = it.get_tensor(d["index"])
                if a.size:
                    lo, hi = ranges.get(d["name"], (np.inf, -np.inf))
                    ranges[d["name"]] = (min(lo, float(a.min())), max(hi, float(a.max())))
    parent = {}

    def find(n):
        while parent.get(n, n) != n:
            n = parent[n]
        return n

    for group in model.ties:
        for n in group[1:]:
            parent[find(n)] = find(group[0])
    merged = {}
    for n, (lo, hi) in ranges.items():
        r = find(n)
        mlo, mhi = merged.get(r, (np.inf, -np.inf))
        merged[r] = (min(mlo, lo), max(mhi, hi))
    return {n: merged[find(n)] for n in ranges}


def cnn_int8():
    rng = np.random.default_rng(11)
    feeds = [[rng.uniform(-1, 1, (1, 64, 64, 3)).astype(np.float32)] for _ in range(16)]
    return cnn("int8", calibrate(cnn(), feeds))


def requant(mode="float", ranges=None):
    """int8 input -> QUANTIZE onto the conv's grid -> CONV_2D (RELU) -> QUANTIZE onto the output's
    grid -> int8 output; the float model has no QUANTIZE (it calibrates the conv)."""
    m = Model(12, mode, ranges)
    x = m.input("input", [1, 16, 16, 4])
    if mode == "int8":
        x = m.op("QUANTIZE", [x], [m.act("input_requantized", m.shape(x), fixed=(0.011, 5))])
    y = m.conv2d(x, 8, 3, act="RELU", name="conv")
    if mode == "int8":
        y = m.op("QUANTIZE", [y], [m.act("output", m.shape(y), fixed=(1.5 * m.scales(y)[0], -20))])
    m.outputs(y)
    return m


def requant_int8():
    rng = np.random.default_rng(13)
    feeds = [[rng.uniform(-1, 1, (1, 16, 16, 4)).astype(np.float32)] for _ in range(8)]
    return requant("int8", calibrate(requant(), feeds))


def conv16x8(mode="float", ranges=None):
    """int16 input [1,16,16,4] -> CONV_2D 3x3 (RELU) -> CONV_2D 1x1 -> int16 output [1,16,16,8]."""
    m = Model(14, mode, ranges)
    x = m.input("input", [1, 16, 16, 4])
    y = m.conv2d(x, 8, 3, act="RELU", name="conv")
    m.outputs(m.conv2d(y, 8, 1, name="proj"))
    return m


def conv_int16x8():
    rng = np.random.default_rng(15)
    feeds = [[rng.uniform(-1, 1, (1, 16, 16, 4)).astype(np.float32)] for _ in range(8)]
    return conv16x8("int16x8", calibrate(conv16x8(), feeds))


def lstm():
    m = Model(20)
    steps, n_in, cells = 16, 20, 32
    x = m.input("input", [1, steps, n_in])
    gates = "input", "forget", "cell", "output"
    w_in = [m.const(f"input_to_{g}_w", m.rng.normal(0, np.sqrt(1.0 / n_in), (cells, n_in)).astype(np.float32))
            for g in gates]
    w_rec = [m.const(f"recurrent_to_{g}_w", m.rng.normal(0, np.sqrt(1.0 / cells), (cells, cells)).astype(np.float32))
             for g in gates]
    biases = [m.const(f"{g}_gate_bias", np.full(cells, 1.0 if g == "forget" else 0.0, np.float32)) for g in gates]
    h = m.tensor("output_state", [1, cells], variable=True)
    c = m.tensor("cell_state", [1, cells], variable=True)
    y = m.act("lstm", [1, steps, cells])
    # 24 inputs: x, 4 input weights, 4 recurrent weights, 3 peepholes (absent), 4 biases,
    # projection weights / bias (absent), output and cell state, 4 layer-norm weights (absent).
    m.op("UNIDIRECTIONAL_SEQUENCE_LSTM", [x] + w_in + w_rec + [-1] * 3 + biases + [-1, -1, h, c] + [-1] * 4, [y],
         "UnidirectionalSequenceLSTMOptions", fusedActivationFunction="TANH", cellClip=0.0, projClip=0.0,
         timeMajor=False)
    m.outputs(m.fully_connected(y, 8, keep_num_dims=True, name="head"))
    return m


def rnn():
    m = Model(21)
    steps, n_in, units = 16, 20, 32
    x = m.input("input", [1, steps, n_in])
    w = m.const("input_w", m.rng.normal(0, np.sqrt(1.0 / n_in), (units, n_in)).astype(np.float32))
    r = m.const("recurrent_w", m.rng.normal(0, np.sqrt(0.8 / units), (units, units)).astype(np.float32))
    b = m.const("bias", m.rng.normal(0, 0.05, units).astype(np.float32))
    h = m.tensor("hidden_state", [1, units], variable=True)
    y = m.op("UNIDIRECTIONAL_SEQUENCE_RNN", [x, w, r, b, h], [m.act("rnn", [1, steps, units])],
             "SequenceRNNOptions", timeMajor=False, fusedActivationFunction="TANH")
    m.outputs(m.fully_connected(y, 8, keep_num_dims=True, name="head"))
    return m


def streaming_state():
    m = Model(30)
    features, window = 40, 4
    state_shape = [1, window - 1, features]
    frame = m.input("frame", [1, 1, features])
    m.op("CALL_ONCE", [], [], "CallOnceOptions", initSubgraphIndex=1)
    handle = m.op("VAR_HANDLE", [], [m.tensor("state_handle", [], "RESOURCE")], "VarHandleOptions",
                  container="", sharedName="buffer")
    state = m.op("READ_VARIABLE", [handle], [m.act("state", state_shape)], "ReadVariableOptions")
    win = m.concat([state, frame], axis=1, name="window")                        # [1,4,40]
    new_state = m.op("SLICE", [win, m.ints("drop_oldest_begin", [0, 1, 0]), m.ints("drop_oldest_size", state_shape)],
                     [m.act("new_state", state_shape)], "SliceOptions")
    m.op("ASSIGN_VARIABLE", [handle, new_state], [], "AssignVariableOptions")
    m.outputs(m.fully_connected(win, 16, name="fc"))                              # [1,16]
    m.subgraph("init")
    handle = m.op("VAR_HANDLE", [], [m.tensor("state_handle", [], "RESOURCE")], "VarHandleOptions",
                  container="", sharedName="buffer")
    m.op("ASSIGN_VARIABLE", [handle, m.const("state_zeros", np.zeros(state_shape, np.float32))], [],
         "AssignVariableOptions")
    return m


def streaming_conv(mode="float", ranges=None):
    m = Model(31, mode, ranges)
    channels, frames = 24, 17
    state_shape = [1, frames - 1, 1, channels]
    frame = m.input("frame", [1, 1, 1, channels])
    m.op("CALL_ONCE", [], [], "CallOnceOptions", initSubgraphIndex=1)
    handle = m.op("VAR_HANDLE", [], [m.tensor("state_handle", [], "RESOURCE")], "VarHandleOptions",
                  container="", sharedName="frames")
    state = m.op("READ_VARIABLE", [handle], [m.act("state", state_shape)], "ReadVariableOptions")
    win = m.concat([state, frame], axis=1, name="window")                        # [1,17,1,24]
    new_state = m.op("SLICE", [win, m.ints("drop_oldest_begin", [0, 1, 0, 0]), m.ints("drop_oldest_size", state_shape)],
                     [m.act("new_state", state_shape)], "SliceOptions")
    m.tie(win, new_state)
    m.op("ASSIGN_VARIABLE", [handle, new_state], [], "AssignVariableOptions")
    wt = m.weight("temporal_w", m.rng.normal(0, 0.25, (1, frames, 1, channels)), 3)
    bt = m.bias("temporal_b", m.rng.normal(0, 0.05, channels), win, wt)
    temporal = m.op("DEPTHWISE_CONV_2D", [win, wt, bt], [m.act("temporal", [1, 1, 1, channels])],
                    "DepthwiseConv2DOptions", m.v(1, 3), padding="VALID", strideH=1, strideW=1,
                    depthMultiplier=1, fusedActivationFunction="RELU")
    m.outputs(m.fully_connected(temporal, 8, name="fc"))                          # [1,8]
    m.subgraph("init")
    handle = m.op("VAR_HANDLE", [], [m.tensor("state_handle", [], "RESOURCE")], "VarHandleOptions",
                  container="", sharedName="frames")
    if mode == "int8":  # the int8 zero: the state's zero point
        scale, zp = quant_params(*ranges["state"])
        zeros = m.const("state_zeros", np.full(state_shape, zp, np.int8), quant=([scale], [zp]))
    else:
        zeros = m.const("state_zeros", np.zeros(state_shape, np.float32))
    m.op("ASSIGN_VARIABLE", [handle, zeros], [], "AssignVariableOptions")
    return m


def streaming_conv_int8():
    """Ranges from the float model over a stream of frames (its state carries over in LiteRT);
    the state shares the window's range (the concatenation and the slice keep one grid)."""
    rng = np.random.default_rng(32)
    feeds = [[rng.uniform(-1, 1, (1, 1, 1, 24)).astype(np.float32)] for _ in range(40)]
    ranges = calibrate(streaming_conv(), feeds)
    for name in ("state", "frame", "new_state"):
        ranges[name] = ranges["window"]
    return streaming_conv("int8", ranges)


def unknown_custom_op():
    m = Model(33)
    x = m.input("input", [1, 16, 16, 4])
    y = m.conv2d(x, 8, 3, act="RELU", name="before")
    y = m.custom("NpusimUnknownOp", [y], [m.act("custom_out", m.shape(y))])
    y = m.conv2d(y, 8, 3, act="RELU", name="after")
    m.outputs(m.conv2d(y, 4, 1, name="head"))
    return m


def transpose_conv():
    m = Model(40)
    x = m.input("input", [1, 32, 32, 8])
    enc = m.conv2d(x, 32, 3, stride=2, act="RELU", name="encoder")                # 16x16x32
    y = m.binary("ADD", enc, m.block_op("SPACE_TO_DEPTH", x, 2, "space_to_depth"), name="merge")
    y = m.transpose_conv(y, 16, 3, 2, act="RELU", name="decoder")                 # 32x32x16
    y = m.resize("RESIZE_NEAREST_NEIGHBOR", y, [64, 64], "upsample")              # 64x64x16
    y = m.conv2d(y, 12, 1, name="head")                                           # 64x64x12
    m.outputs(m.block_op("DEPTH_TO_SPACE", y, 2, "depth_to_space"))               # 128x128x3
    return m


def transformer_block():
    m = Model(50)
    seq, dim, heads, vocab, hidden = 16, 64, 4, 100, 128
    head_dim = dim // heads
    x = m.input("x", [1, seq, dim])
    ids = m.input("token_ids", [1, seq], "INT32")
    table = m.const("embedding", m.rng.normal(0, 1.0, (vocab, dim)).astype(np.float32))
    emb = m.op("GATHER", [table, ids], [m.act("embed", [1, seq, dim])], "GatherOptions", axis=0, batchDims=0)
    h = m.binary("ADD", x, emb, name="embed_add")

    def split_heads(t, name):
        t = m.reshape(t, [1, seq, heads, head_dim], name + "_heads")
        return m.transpose(t, [0, 2, 1, 3], name + "_transpose")                   # [1,4,16,16]

    q, k, v = (split_heads(m.fully_connected(h, dim, keep_num_dims=True, name=n), n) for n in "qkv")
    scores = m.op("BATCH_MATMUL", [q, k], [m.act("scores", [1, heads, seq, seq])], "BatchMatMulOptions",
                  adjX=False, adjY=True)
    scores = m.binary("MUL", scores, m.const("attention_scale", np.array(head_dim ** -0.5, np.float32)),
                      name="scaled_scores")
    probs = m.softmax(scores, name="attention")
    ctx = m.op("BATCH_MATMUL", [probs, v], [m.act("context", [1, heads, seq, head_dim])], "BatchMatMulOptions",
               adjX=False, adjY=False)
    ctx = m.reshape(m.transpose(ctx, [0, 2, 1, 3], "context_transpose"), [1, seq, dim], "context_merge")
    r = m.binary("ADD", h, m.fully_connected(ctx, dim, keep_num_dims=True, name="attn_out"), name="attn_residual")

    # Layer norm over the last axis.
    mu = m.mean(r, [2], keep_dims=True, name="ln_mean")
    var = m.mean(m.op("SQUARED_DIFFERENCE", [r, mu], [m.act("ln_sqdiff", [1, seq, dim])]), [2], True, "ln_var")
    var = m.binary("ADD", var, m.const("ln_eps", np.array(1e-5, np.float32)), name="ln_var_eps")
    inv = m.unary("RSQRT", var, "ln_rsqrt")
    y = m.binary("MUL", m.binary("SUB", r, mu, name="ln_center"), inv, name="ln_normalize")
    y = m.binary("MUL", y, m.const("ln_gamma", m.rng.uniform(0.8, 1.2, dim).astype(np.float32)), name="ln_scale")
    ln = m.binary("ADD", y, m.const("ln_beta", m.rng.normal(0, 0.05, dim).astype(np.float32)), name="ln_out")

    f = m.fully_connected(ln, hidden, keep_num_dims=True, name="ffn_up")
    f = m.op("GELU", [f], [m.act("gelu", [1, seq, hidden])], "GeluOptions", approximate=False)
    out = m.binary("ADD", ln, m.fully_connected(f, dim, keep_num_dims=True, name="ffn_down"), name="output")
    first = m.op("STRIDED_SLICE", [out, m.ints("cls_begin", [0, 0, 0]), m.ints("cls_end", [1, 1, dim]),
                                   m.ints("cls_strides", [1, 1, 1])],
                 [m.act("cls_token", [1, dim])], "StridedSliceOptions", shrinkAxisMask=0b010)
    m.outputs(out, m.fully_connected(first, 10, name="cls_logits"))
    return m


def bilstm():
    """BIDIRECTIONAL_SEQUENCE_LSTM with merged outputs (forward then backward features)."""
    m = Model(22)
    steps, n_in, cells = 12, 16, 24
    x = m.input("input", [1, steps, n_in])
    gates = "input", "forget", "cell", "output"

    def direction(tag):
        w_in = [m.const(f"{tag}_input_to_{g}_w", m.rng.normal(0, np.sqrt(1.0 / n_in), (cells, n_in)).astype(np.float32))
                for g in gates]
        w_rec = [m.const(f"{tag}_recurrent_to_{g}_w", m.rng.normal(0, np.sqrt(1.0 / cells), (cells, cells)).astype(np.float32))
                 for g in gates]
        biases = [m.const(f"{tag}_{g}_gate_bias", m.rng.normal(1.0 if g == "forget" else 0.0, 0.1, cells).astype(np.float32))
                  for g in gates]
        # 17 per direction: 4 input weights, 4 recurrent, 3 peepholes, 4 biases, projection w / b
        return w_in + w_rec + [-1] * 3 + biases + [-1, -1]

    states = [m.tensor(n, [1, cells], variable=True) for n in ("fw_h", "fw_c", "bw_h", "bw_c")]
    y = m.act("bilstm", [1, steps, 2 * cells])
    m.op("BIDIRECTIONAL_SEQUENCE_LSTM", [x] + direction("fw") + direction("bw") + states + [-1] * 9, [y],
         "BidirectionalSequenceLSTMOptions", fusedActivationFunction="TANH", cellClip=0.0, projClip=0.0,
         mergeOutputs=True, timeMajor=False)
    m.outputs(m.fully_connected(y, 8, keep_num_dims=True, name="head"))
    return m


def misc_ops():
    """Ops older and smaller converters emit: EMBEDDING_LOOKUP, GATHER_ND, ADD_N, REVERSE_V2,
    CUMSUM, L2_POOL_2D, LOCAL_RESPONSE_NORMALIZATION and TOPK_V2."""
    m = Model(23)
    ids = m.input("ids", [6], "INT32")
    x = m.input("image", [1, 8, 8, 16])
    table = m.const("table", m.rng.normal(0, 1, (20, 12)).astype(np.float32))
    rows = m.op("EMBEDDING_LOOKUP", [ids, table], [m.act("rows", [6, 12])])                         # [6,12]
    picked = m.op("GATHER_ND", [rows, m.ints("pairs", [[0, 1], [5, 11], [2, 3]])], [m.act("picked", [3])])
    flipped = m.op("REVERSE_V2", [rows, m.ints("flip_axis", [0])], [m.act("flipped", [6, 12])], "ReverseV2Options")
    total = m.op("ADD_N", [rows, flipped, rows], [m.act("total", [6, 12])], "AddNOptions")
    running = m.op("CUMSUM", [total, m.ints("cumsum_axis", [1])], [m.act("running", [6, 12])], "CumsumOptions",
                   exclusive=False, reverse=True)
    l2 = m.op("L2_POOL_2D", [x], [m.act("l2pool", [1, 4, 4, 16])], "Pool2DOptions", padding="VALID", strideW=2,
              strideH=2, filterWidth=2, filterHeight=2)
    lrn = m.op("LOCAL_RESPONSE_NORMALIZATION", [l2], [m.act("lrn", [1, 4, 4, 16])], "LocalResponseNormalizationOptions",
               radius=2, bias=1.0, alpha=0.1, beta=0.75)
    values, indices = m.op("TOPK_V2", [m.reshape(lrn, [16, 16], name="lrn_rows"), m.ints("k", 3)],
                           [m.act("top_values", [16, 3]), m.tensor("top_indices", [16, 3], "INT32")])
    # FLOOR_DIV has no translation: one operator LiteRT runs for npusim's CPU step.
    floored = m.op("FLOOR_DIV", [rows, m.const("divisor", np.full((12,), 0.7, np.float32))], [m.act("floored", [6, 12])],
                   "FloorDivOptions")
    m.outputs(picked, running, lrn, values, indices, floored)
    return m


def if_branches():
    m = Model(60)
    x = m.input("x", [1, 16])
    use_relu = m.input("use_relu", [], "BOOL")
    h = m.fully_connected(x, 16, name="fc_in")
    shift = m.const("shift", m.rng.normal(0, 0.1, 16).astype(np.float32))
    fixed = m.op("IF", [m.const("always", np.array(True)), h, shift], [m.act("fixed_branch", [1, 16])], "IfOptions",
                 thenSubgraphIndex=1, elseSubgraphIndex=2)
    chosen = m.op("IF", [use_relu, fixed, shift], [m.act("chosen_branch", [1, 16])], "IfOptions",
                  thenSubgraphIndex=1, elseSubgraphIndex=2)
    m.outputs(m.fully_connected(chosen, 8, name="y"))
    m.subgraph("then")
    a, b = m.input("a", [1, 16]), m.input("b", [16])
    m.outputs(m.binary("ADD", m.fully_connected(a, 16, act="RELU", name="then_fc"), b, name="then_out"))
    m.subgraph("else")
    a, b = m.input("a", [1, 16]), m.input("b", [16])
    m.outputs(m.binary("ADD", m.mul_const(a, m.rng.uniform(0.5, 1.5, 16), "else_scale"), b, name="else_out"))
    return m


def while_loop(dynamic=False):
    """TensorFlow's while_v2 form: loop variables (loop_counter, maximum_iterations, i, x), cond
    loop_counter < maximum_iterations AND i < 3 (or i < n, an input), body steps both counters."""
    m = Model(61)
    x = m.input("x", [1, 16])
    limit = m.input("n", [], "INT32") if dynamic else None
    int_scalar = lambda name: m.tensor(name, [], "INT32")
    loop_vars = [m.const("counter0", np.array(0, np.int32)), m.const("maximum_iterations", np.array(5, np.int32)),
                 m.const("i0", np.array(0, np.int32)), x] + ([limit] if dynamic else [])
    outs = [int_scalar("counter_final"), int_scalar("maximum_final"), int_scalar("i_final"), m.act("x_final", [1, 16])]
    outs += [int_scalar("n_final")] if dynamic else []
    final = m.op("WHILE", loop_vars, outs, "WhileOptions", condSubgraphIndex=1, bodySubgraphIndex=2)[3]
    m.outputs(m.fully_connected(final, 8, name="y"))

    def loop_inputs():
        vs = [m.input(name, [], "INT32") for name in ("counter", "maximum", "i")] + [m.input("x", [1, 16])]
        return vs + ([m.input("n", [], "INT32")] if dynamic else [])

    m.subgraph("cond")
    counter, maximum, i, _, *rest = loop_inputs()
    bound = rest[0] if dynamic else m.const("trips", np.array(3, np.int32))
    tests = [m.op("LESS", [counter, maximum], [m.tensor("below_maximum", [], "BOOL")]),
             m.op("LESS", [i, bound], [m.tensor("below_trips", [], "BOOL")])]
    m.outputs(m.op("LOGICAL_AND", tests, [m.tensor("more", [], "BOOL")]))
    m.subgraph("body")
    counter, maximum, i, x, *rest = loop_inputs()
    one = m.const("one", np.array(1, np.int32))
    steps = [m.op("ADD", [v, one], [int_scalar(v_name + "_next")], "AddOptions") for v, v_name in ((counter, "counter"), (i, "i"))]
    m.outputs(steps[0], maximum, steps[1], m.fully_connected(x, 16, name="x_next"), *rest)
    return m


def while_if():
    """A WHILE (i < 3) whose body holds an IF on i == 0: FC + RELU the first trip, x * 0.5 after;
    the body's input is named x like the model's."""
    m = Model(63)
    x = m.input("x", [1, 16])
    outs = [m.tensor("i_final", [], "INT32"), m.act("x_final", [1, 16])]
    final = m.op("WHILE", [m.const("i0", np.array(0, np.int32)), x], outs, "WhileOptions", condSubgraphIndex=1,
                 bodySubgraphIndex=2)[1]
    m.outputs(m.fully_connected(final, 8, name="y"))
    m.subgraph("cond")
    i, _ = m.input("i", [], "INT32"), m.input("x", [1, 16])
    m.outputs(m.op("LESS", [i, m.const("trips", np.array(3, np.int32))], [m.tensor("more", [], "BOOL")]))
    m.subgraph("body")
    i, x = m.input("i", [], "INT32"), m.input("x", [1, 16])
    first = m.op("EQUAL", [i, m.const("zero", np.array(0, np.int32))], [m.tensor("first", [], "BOOL")])
    y = m.op("IF", [first, x], [m.act("branch", [1, 16])], "IfOptions", thenSubgraphIndex=3, elseSubgraphIndex=4)
    m.outputs(m.op("ADD", [i, m.const("one", np.array(1, np.int32))], [m.tensor("i_next", [], "INT32")], "AddOptions"), y)
    m.subgraph("then")
    m.outputs(m.fully_connected(m.input("a", [1, 16]), 16, act="RELU", name="then_fc"))
    m.subgraph("else")
    m.outputs(m.mul_const(m.input("a", [1, 16]), np.full(16, 0.5), "else_half"))
    return m


def dynamic_batch():
    m = Model(62)
    x = m.input("x", [1, 8])
    h = m.fully_connected(x, 16, act="RELU", name="fc")
    probs = m.softmax(m.reshape(h, [-1, 4, 4], name="rows"), name="probs")
    m.outputs(probs)
    for t in m.sg.tensors:  # every activation's batch is dynamic
        if t.buffer == 0:
            t.shapeSignature = [-1] + list(t.shape[1:])
            t.shape = [1] + list(t.shape[1:])
    return m


MODELS = {
    "cnn_float": cnn,
    "cnn_int8": cnn_int8,
    "requant_int8": requant_int8,
    "conv_int16x8": conv_int16x8,
    "cnn_fp16_weights": lambda: cnn("fp16"),
    "cnn_sparse": lambda: cnn("sparse"),
    "lstm": lstm,
    "rnn": rnn,
    "bilstm": bilstm,
    "misc_ops": misc_ops,
    "streaming_state": streaming_state,
    "streaming_conv": streaming_conv,
    "streaming_conv_int8": streaming_conv_int8,
    "transpose_conv": transpose_conv,
    "unknown_custom_op": unknown_custom_op,
    "transformer_block": transformer_block,
    "if_branches": if_branches,
    "while_loop": while_loop,
    "while_dynamic": lambda: while_loop(dynamic=True),
    "while_if": while_if,
    "dynamic_batch": dynamic_batch,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="directory to write <name>.tflite into")
    ap.add_argument("--only", choices=sorted(MODELS), action="append", help="write just this model (repeatable)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="npusim_tflite_schema_") as gen_dir:
        generate_schema_code(gen_dir)
        for name in args.only or list(MODELS):
            model = MODELS[name]()
            data = model.serialize(f"npusim make_tflite_models.py: {name}")
            path = os.path.join(args.out, name + ".tflite")
            with open(path, "wb") as f:
                f.write(data)
            ops = sum(len(sg.operators) for sg in model.subgraphs)
            print(f"{path}: {ops} operators, {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
