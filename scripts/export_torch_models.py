#!/usr/bin/python3
"""Exports the "what PyTorch's exporter emits" test corpus to models/exported/ (ONNX + MANIFEST.json).

RUN WITH DEBIAN'S INTERPRETER, NOT THE PROJECT'S PYTHON:

    /usr/bin/python3 scripts/export_torch_models.py [--out models/exported] [--only NAME ...] [--list]

Why /usr/bin/python3: PyTorch is not a dependency of npusim. The only torch this script may use
is Debian's `python3-torch` (1.13.1) and `python3-torchvision` (0.14.1), which install into
Debian's own /usr/bin/python3 and are never pip-installed into the project's Python (pyenv 3.11,
which has onnx + onnxruntime but no torch). Only the OUTPUT of this script crosses into the
project: the .onnx files are committed and CI never runs torch. scripts/setup.sh does not install
torch on purpose. To check the exported files with ONNX Runtime afterwards, use the project's
python:  python3 scripts/check_exported_models.py

What the files are for: the compiler must map real exported graphs to the NPU, so every model is
exported with PyTorch's own TorchScript-based `torch.onnx.export` of 1.13 as users call it: eval
mode, static input shapes (no dynamic_axes), batch 1, do_constant_folding=True, except the
two marked `do_constant_folding=False` (users do that too; it leaves the Shape/Gather/Unsqueeze/
Concat chains in the graph). The exporter's output is written untouched.

Weights: pretrained weights cannot be downloaded here, so all weights are random but
deterministic (a fixed seed per model). Two adjustments keep the graphs numerically meaningful
for the compiler's accuracy tests, and change no graph structure:
  * parameters that the constructors initialise to a constant (zero biases, norm-layer affine
    ones/zeros, ViT's zero head and class token) are re-drawn from small random distributions,
    so no branch is numerically trivial (a zero head gives an all-zero output);
  * BatchNorm running statistics are calibrated with a few forward passes on fixed-seed random
    N(0,1) inputs (train mode, cumulative average), so activations stay in a realistic range
    for quantisation. The exporter folds eval-mode BatchNorm into the preceding Conv.

Size reductions (every file < ~6 MB, the whole directory < ~30 MB) are listed per model in
MODEL_SPECS below and recorded in MANIFEST.json ("reductions"); the common one is
num_classes=100 instead of 1000 (the classifier is the largest layer of the small CNNs).
"""
import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import warnings
import zlib

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see train_fashion_mnist.py

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torchvision.models.convnext import CNBlockConfig, ConvNeXt
from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf
from torchvision.models.mobilenetv3 import MobileNetV3, _mobilenet_v3_conf
from torchvision.models.regnet import BlockParams, RegNet
from torchvision.models.resnet import BasicBlock
from torchvision.models.swin_transformer import SwinTransformer
from torchvision.models.vgg import make_layers
from torchvision.models.vision_transformer import VisionTransformer

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(REPO, "models", "exported")
NUM_CLASSES = 100
# The reference input of every model, reproducible without torch (check_exported_models.py makes
# the same arrays): numpy.random.default_rng(REF_SEED), then per input in order float32
# standard_normal(shape) or int64 integers(0, REF_INT_HIGH, shape).
REF_SEED = 0
REF_INT_HIGH = 512
REF_SAMPLES = 16


# ----------------------------------------------------------------------------------------------
# Weight helpers


def liven_constant_params(model):
    """Re-draws parameters that the constructor set to a constant (all zeros / all ones)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            flat = p.detach().reshape(-1)
            if flat.numel() == 0 or not bool((flat == flat[0]).all()):
                continue
            value = float(flat[0])
            if value not in (0.0, 1.0):  # e.g. ConvNeXt's layer scale: a deliberate constant
                continue
            if value == 1.0 and p.dim() == 1:  # norm-layer scale
                p.uniform_(0.5, 1.5)
            elif p.dim() == 1:  # bias / norm shift
                p.normal_(0.0, 0.05)
            else:  # weight (e.g. ViT's zero-initialised head), token or embedding
                fan_in = p[0].numel() if p.dim() >= 2 else 1
                p.normal_(0.0, min(0.02, 1.0 / math.sqrt(fan_in)))


def calibrate_batchnorm(model, input_shape, batches=4, batch_size=4):
    """Sets BatchNorm running stats from forward passes on fixed-seed N(0,1) inputs."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # cumulative moving average over the calibration batches
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(batch_size, *input_shape[1:]))
    model.eval()


# ----------------------------------------------------------------------------------------------
# Hand-written models (architectures torchvision has no small constructor for)


class SmallResNet(nn.Module):
    """ResNet-10 layout (stem 7x7/2 + maxpool, four stages of one torchvision BasicBlock each)
    at a quarter of ResNet-18's widths: 16, 32, 64, 128."""

    def __init__(self, widths=(16, 32, 64, 128), num_classes=NUM_CLASSES):
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        stages, cin = [], widths[0]
        for i, w in enumerate(widths):
            stride = 1 if i == 0 else 2
            down = None
            if stride != 1 or cin != w:
                down = nn.Sequential(nn.Conv2d(cin, w, 1, stride, bias=False), nn.BatchNorm2d(w))
            stages.append(BasicBlock(cin, w, stride, down))
            cin = w
        self.layers = nn.Sequential(*stages)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layers(x)
        return self.fc(torch.flatten(self.avgpool(x), 1))


class SmallVGG(nn.Module):
    """VGG-style, old-era code: torchvision's vgg.make_layers with a narrow config, no BN, and
    the classic `x.view(x.size(0), -1)` flatten before a ReLU/Dropout MLP head."""

    CFG = [16, "M", 32, "M", 64, 64, "M", 128, 128, "M"]

    def __init__(self, num_classes=NUM_CLASSES):
        super().__init__()
        self.features = make_layers(self.CFG, batch_norm=False)
        self.avgpool = nn.AdaptiveAvgPool2d((2, 2))
        self.classifier = nn.Sequential(
            nn.Linear(128 * 2 * 2, 256), nn.ReLU(True), nn.Dropout(),
            nn.Linear(256, 256), nn.ReLU(True), nn.Dropout(),
            nn.Linear(256, num_classes))

    def forward(self, x):
        x = self.avgpool(self.features(x))
        x = x.view(x.size(0), -1)
        return self.classifier(x)


class TinyUNet(nn.Module):
    """Encoder-decoder segmentation net: 3 encoder levels (conv-BN-ReLU x2, maxpool),
    a bottleneck, ConvTranspose2d(k=2, s=2) upsampling with skip concatenation, 1x1 head."""

    def __init__(self, widths=(16, 32, 64), bottleneck=128, num_classes=4):
        super().__init__()

        def double_conv(cin, cout):
            return nn.Sequential(
                nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

        self.down = nn.ModuleList()
        cin = 3
        for w in widths:
            self.down.append(double_conv(cin, w))
            cin = w
        self.pool = nn.MaxPool2d(2)
        self.bottleneck = double_conv(cin, bottleneck)
        self.up = nn.ModuleList()
        self.dec = nn.ModuleList()
        cin = bottleneck
        for w in reversed(widths):
            self.up.append(nn.ConvTranspose2d(cin, w, kernel_size=2, stride=2))
            self.dec.append(double_conv(2 * w, w))
            cin = w
        self.head = nn.Conv2d(cin, num_classes, 1)

    def forward(self, x):
        skips = []
        for block in self.down:
            x = block(x)
            skips.append(x)
            x = self.pool(x)
        x = self.bottleneck(x)
        for up, dec, skip in zip(self.up, self.dec, reversed(skips)):
            x = dec(torch.cat([up(x), skip], dim=1))
        return self.head(x)


class GPTBlockAttention(nn.Module):
    def __init__(self, d, heads, n_positions):
        super().__init__()
        self.heads, self.head_dim = heads, d // heads
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        causal = torch.tril(torch.ones(n_positions, n_positions, dtype=torch.bool))
        self.register_buffer("causal", causal.view(1, 1, n_positions, n_positions), persistent=False)

    def split_heads(self, x):
        b, t, d = x.size()
        return x.view(b, t, self.heads, self.head_dim).transpose(1, 2)  # [B, H, T, hd]

    def forward(self, x, past_key=None, past_value=None):
        b, t, d = x.size()
        q, k, v = self.c_attn(x).split(d, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        if past_key is not None:
            k = torch.cat([past_key, k], dim=2)
            v = torch.cat([past_value, v], dim=2)
        past = k.size(2) - t
        att = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        mask = self.causal[:, :, past:past + t, :past + t]
        att = torch.where(mask, att, torch.tensor(torch.finfo(att.dtype).min, dtype=att.dtype))
        att = F.softmax(att, dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).contiguous().view(b, t, d)
        return self.c_proj(y), k, v


class GPTBlock(nn.Module):
    def __init__(self, d, heads, n_positions):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d, eps=1e-5)
        self.attn = GPTBlockAttention(d, heads, n_positions)
        self.ln_2 = nn.LayerNorm(d, eps=1e-5)
        self.c_fc = nn.Linear(d, 4 * d)
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, x, past_key=None, past_value=None):
        a, k, v = self.attn(self.ln_1(x), past_key, past_value)
        x = x + a
        x = x + self.c_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))
        return x, k, v


class TinyGPT(nn.Module):
    """GPT-2-style decoder: token ids -> Gather(wte) + Gather(wpe), pre-LN blocks with causal
    self-attention and a GELU(tanh) MLP, final LayerNorm, LM head tied to wte. forward() returns
    logits and every layer's present key/value ([1, heads, past + T, head_dim])."""

    def __init__(self, vocab=512, d=128, heads=4, layers=2, n_positions=128):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(n_positions, d)
        self.h = nn.ModuleList(GPTBlock(d, heads, n_positions) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d, eps=1e-5)
        for name, p in self.named_parameters():
            if name.endswith("weight") and p.dim() == 2:
                nn.init.normal_(p, 0.0, 0.02)

    def forward(self, input_ids, *past):
        t = input_ids.size(1)
        past_len = past[0].size(2) if past else 0
        pos = torch.arange(past_len, past_len + t, dtype=torch.long).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(pos)
        presents = []
        for i, block in enumerate(self.h):
            pk, pv = (past[2 * i], past[2 * i + 1]) if past else (None, None)
            x, k, v = block(x, pk, pv)
            presents += [k, v]
        logits = torch.matmul(self.ln_f(x), self.wte.weight.t())
        return (logits, *presents)


class FixedPast(nn.Module):
    """Wrapper so torch.onnx.export sees the past key/values as plain positional inputs."""

    def __init__(self, gpt):
        super().__init__()
        self.gpt = gpt

    def forward(self, input_ids, *past):
        return self.gpt(input_ids, *past)


class RMSNorm(nn.Module):
    """Llama's RMSNorm as Hugging Face writes it: x * rsqrt(mean(x^2) + eps) * weight."""

    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(variance + self.eps))


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class LlamaAttention(nn.Module):
    """Grouped-query attention with rotary position embeddings: cos/sin tables indexed by the
    position ids (a Gather by run-time ids), K/V heads repeated to the query heads (expand +
    reshape), a causal mask from triu, past/present K/V of the KV heads only."""

    def __init__(self, d, heads, kv_heads, n_positions, theta=10000.0):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, d // heads
        self.q_proj = nn.Linear(d, heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(d, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(d, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(heads * self.head_dim, d, bias=False)
        inv_freq = 1.0 / (theta ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim))
        freqs = torch.outer(torch.arange(n_positions).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def repeat_kv(self, x):
        b, h, t, hd = x.shape
        n = self.heads // self.kv_heads
        return x[:, :, None, :, :].expand(b, h, n, t, hd).reshape(b, h * n, t, hd)

    def forward(self, x, position_ids, past_key=None, past_value=None):
        b, t, _ = x.size()
        q = self.q_proj(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        cos = self.cos_cached[position_ids].unsqueeze(1)  # [b, 1, t, hd]
        sin = self.sin_cached[position_ids].unsqueeze(1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if past_key is not None:
            k = torch.cat([past_key, k], dim=2)
            v = torch.cat([past_value, v], dim=2)
        s = k.size(2)
        att = torch.matmul(q, self.repeat_kv(k).transpose(2, 3)) / math.sqrt(self.head_dim)
        mask = torch.triu(torch.full((t, s), torch.finfo(att.dtype).min), diagonal=s - t + 1)
        att = F.softmax(att + mask, dim=-1)
        y = torch.matmul(att, self.repeat_kv(v)).transpose(1, 2).reshape(b, t, -1)
        return self.o_proj(y), k, v


class LlamaBlock(nn.Module):
    def __init__(self, d, heads, kv_heads, ffn, n_positions):
        super().__init__()
        self.input_layernorm = RMSNorm(d)
        self.self_attn = LlamaAttention(d, heads, kv_heads, n_positions)
        self.post_attention_layernorm = RMSNorm(d)
        self.gate_proj = nn.Linear(d, ffn, bias=False)
        self.up_proj = nn.Linear(d, ffn, bias=False)
        self.down_proj = nn.Linear(ffn, d, bias=False)

    def forward(self, x, position_ids, past_key=None, past_value=None):
        a, k, v = self.self_attn(self.input_layernorm(x), position_ids, past_key, past_value)
        x = x + a
        h = self.post_attention_layernorm(x)
        x = x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))
        return x, k, v


class TinyLlama(nn.Module):
    """Llama-style decoder: int64 token and position ids, Gather embedding, RMSNorm, rotary
    embeddings, grouped-query attention, SiLU-gated MLP, untied LM head. forward() returns logits
    and every layer's present key/value ([1, kv_heads, past + T, head_dim])."""

    def __init__(self, vocab=512, d=128, heads=4, kv_heads=2, layers=2, ffn=344, n_positions=128):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(LlamaBlock(d, heads, kv_heads, ffn, n_positions) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        for name, p in self.named_parameters():
            if name.endswith("weight") and p.dim() == 2:
                nn.init.normal_(p, 0.0, 0.02)

    def forward(self, input_ids, position_ids, *past):
        x = self.embed_tokens(input_ids)
        presents = []
        for i, layer in enumerate(self.layers):
            pk, pv = (past[2 * i], past[2 * i + 1]) if past else (None, None)
            x, k, v = layer(x, position_ids, pk, pv)
            presents += [k, v]
        return (self.lm_head(self.norm(x)), *presents)


# ----------------------------------------------------------------------------------------------
# The corpus. Each builder returns (model, example_args, input_names, output_names).

GPT_CFG = dict(vocab=512, d=128, heads=4, layers=2, n_positions=128)
GPT_PREFILL_T = 32
GPT_PAST_LEN = 127


def image(n, c=3):
    return (torch.randn(1, c, n, n),)


def b_shufflenet():
    m = torchvision.models.shufflenet_v2_x0_5(num_classes=NUM_CLASSES)
    return m, image(128), ["input"], ["logits"]


def b_mobilenet_v3_small():
    setting, last = _mobilenet_v3_conf("mobilenet_v3_small", width_mult=0.5)
    m = MobileNetV3(setting, last, num_classes=NUM_CLASSES)
    return m, image(128), ["input"], ["logits"]


def b_efficientnet():
    setting, last = _efficientnet_conf("efficientnet_b0", width_mult=0.5, depth_mult=1.0)
    m = EfficientNet(setting, 0.2, num_classes=NUM_CLASSES, last_channel=last)
    return m, image(128), ["input"], ["logits"]


def b_squeezenet():
    m = torchvision.models.squeezenet1_1(num_classes=NUM_CLASSES)
    return m, image(128), ["input"], ["logits"]


def b_regnet():
    params = BlockParams.from_init_params(depth=8, w_0=24, w_a=24.48, w_m=2.54, group_width=16)
    m = RegNet(params, num_classes=NUM_CLASSES)
    return m, image(128), ["input"], ["logits"]


def b_resnet():
    return SmallResNet(), image(128), ["input"], ["logits"]


def b_vgg():
    return SmallVGG(), image(64), ["input"], ["logits"]


def b_vit():
    m = VisionTransformer(image_size=64, patch_size=8, num_layers=4, num_heads=4, hidden_dim=64,
                          mlp_dim=128, num_classes=NUM_CLASSES)
    return m, image(64), ["input"], ["logits"]


def b_transformer_encoder():
    layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True)
    m = nn.TransformerEncoder(layer, num_layers=2)
    return m, (torch.randn(1, 32, 64),), ["src"], ["output"]


def b_convnext():
    setting = [CNBlockConfig(24, 48, 1), CNBlockConfig(48, 96, 1), CNBlockConfig(96, 192, 2),
               CNBlockConfig(192, None, 1)]
    m = ConvNeXt(setting, stochastic_depth_prob=0.0, layer_scale=0.1, num_classes=NUM_CLASSES)
    return m, image(128), ["input"], ["logits"]


def b_swin():
    m = SwinTransformer(patch_size=[4, 4], embed_dim=32, depths=[2, 2], num_heads=[2, 4],
                        window_size=[4, 4], stochastic_depth_prob=0.0, num_classes=NUM_CLASSES)
    return m, image(64), ["input"], ["logits"]


def gpt_output_names():
    names = ["logits"]
    for i in range(GPT_CFG["layers"]):
        names += [f"present_key_{i}", f"present_value_{i}"]
    return names


def b_gpt_prefill():
    m = FixedPast(TinyGPT(**GPT_CFG))
    ids = torch.randint(0, GPT_CFG["vocab"], (1, GPT_PREFILL_T), dtype=torch.long)
    return m, (ids,), ["input_ids"], gpt_output_names()


def b_gpt_decode():
    m = FixedPast(TinyGPT(**GPT_CFG))
    ids = torch.randint(0, GPT_CFG["vocab"], (1, 1), dtype=torch.long)
    hd = GPT_CFG["d"] // GPT_CFG["heads"]
    past, names = [], ["input_ids"]
    for i in range(GPT_CFG["layers"]):
        past += [torch.randn(1, GPT_CFG["heads"], GPT_PAST_LEN, hd) for _ in range(2)]
        names += [f"past_key_{i}", f"past_value_{i}"]
    return m, (ids, *past), names, gpt_output_names()


LLAMA_CFG = dict(vocab=512, d=128, heads=4, kv_heads=2, layers=2, ffn=344, n_positions=512)


def llama_output_names():
    names = ["logits"]
    for i in range(LLAMA_CFG["layers"]):
        names += [f"present_key_{i}", f"present_value_{i}"]
    return names


def b_llama_prefill():
    m = TinyLlama(**LLAMA_CFG)
    ids = torch.randint(0, LLAMA_CFG["vocab"], (1, GPT_PREFILL_T), dtype=torch.long)
    pos = torch.arange(GPT_PREFILL_T, dtype=torch.long).unsqueeze(0)
    return m, (ids, pos), ["input_ids", "position_ids"], llama_output_names()


def b_llama_decode():
    m = TinyLlama(**LLAMA_CFG)
    ids = torch.randint(0, LLAMA_CFG["vocab"], (1, 1), dtype=torch.long)
    pos = torch.tensor([[GPT_PAST_LEN]], dtype=torch.long)
    hd = LLAMA_CFG["d"] // LLAMA_CFG["heads"]
    past, names = [], ["input_ids", "position_ids"]
    for i in range(LLAMA_CFG["layers"]):
        past += [torch.randn(1, LLAMA_CFG["kv_heads"], GPT_PAST_LEN, hd) for _ in range(2)]
        names += [f"past_key_{i}", f"past_value_{i}"]
    return m, (ids, pos, *past), names, llama_output_names()


def gpt_dynamic_axes(prefill):
    """Hugging Face Optimum's axes: the prompt length of a prefill, the cache length of a decode
    step (`npusim generate` compiles the decode graph once per cache length)."""
    axes = {"input_ids": {1: "sequence"}} if prefill else {}
    for i in range(GPT_CFG["layers"]):
        for kind in ("key", "value"):
            axes[f"present_{kind}_{i}"] = {2: "total_sequence"}
            if not prefill:
                axes[f"past_{kind}_{i}"] = {2: "past_sequence"}
    if prefill:
        axes["logits"] = {1: "sequence"}
    return axes


def b_gpt_dynamic_prefill():
    return (*b_gpt_prefill(), gpt_dynamic_axes(True))


def b_gpt_dynamic_decode():
    return (*b_gpt_decode(), gpt_dynamic_axes(False))


def b_unet():
    return TinyUNet(), image(128), ["input"], ["logits"]


# name, builder, opset, do_constant_folding, seed name (models sharing weights share it),
# architecture, source constructor, reductions
MODEL_SPECS = [
    ("shufflenet_v2_x0_5", b_shufflenet, 13, True, None,
     "ShuffleNetV2 0.5x: channel split (Split) + Transpose/Reshape channel shuffle, depthwise convs",
     "torchvision.models.shufflenet_v2_x0_5(num_classes=100)",
     "num_classes 100 (not 1000); input 128x128 (not 224)"),
    ("mobilenet_v3_small", b_mobilenet_v3_small, 13, True, None,
     "MobileNetV3-Small: hardswish/hardsigmoid, squeeze-excitation blocks, depthwise convs",
     "torchvision.models.mobilenetv3.MobileNetV3(*_mobilenet_v3_conf('mobilenet_v3_small', width_mult=0.5), num_classes=100)",
     "width_mult 0.5 (not 1.0); num_classes 100; input 128x128"),
    ("efficientnet_b0_w050", b_efficientnet, 13, True, None,
     "EfficientNet-B0 layout (all 16 MBConv blocks) at half width: SiLU, squeeze-excitation",
     "torchvision.models.efficientnet.EfficientNet(*_efficientnet_conf('efficientnet_b0', width_mult=0.5, depth_mult=1.0), dropout=0.2, num_classes=100)",
     "width_mult 0.5 (not 1.0), depth unchanged; num_classes 100; input 128x128"),
    ("squeezenet1_1", b_squeezenet, 12, True, None,
     "SqueezeNet 1.1: Fire modules (1x1 squeeze, 1x1/3x3 expand, Concat), conv classifier",
     "torchvision.models.squeezenet1_1(num_classes=100)",
     "num_classes 100; input 128x128"),
    ("regnet_x_small", b_regnet, 14, True, None,
     "RegNetX: residual bottleneck blocks with grouped 3x3 convs (group width 16)",
     "torchvision.models.regnet.RegNet(BlockParams.from_init_params(depth=8, w_0=24, w_a=24.48, w_m=2.54, group_width=16), num_classes=100)",
     "regnet_x_400mf parameters with depth 8 instead of 22 (3 stages: widths 32/64/160, depths 1/2/5); num_classes 100; input 128x128"),
    ("resnet_small_opset11", b_resnet, 11, True, None,
     "ResNet-10-style: 7x7 stem, maxpool, 4 stages of one BasicBlock (widths 16/32/64/128), GAP, FC",
     "scripts/export_torch_models.py SmallResNet (torchvision.models.resnet.BasicBlock)",
     "ResNet-18 at quarter width and one block per stage; num_classes 100; input 128x128; opset 11 (old exporter era)"),
    ("vgg_small_opset9", b_vgg, 9, False, None,
     "VGG-style: 6 conv3x3+ReLU, 4 maxpools, AdaptiveAvgPool(2x2), view(x.size(0), -1), 3 FC with Dropout",
     "scripts/export_torch_models.py SmallVGG (torchvision.models.vgg.make_layers)",
     "widths 16..128 (not 64..512), 6 convs (VGG-11: 8), FC 512-256-256-100 (not 25088-4096-4096-1000); input 64x64; opset 9; do_constant_folding=False"),
    ("vit_tiny_opset14", b_vit, 14, True, "vit_tiny",
     "Vision Transformer: patch conv, class token, 4 pre-LN encoder blocks (MultiheadAttention, GELU erf MLP); LayerNorm decomposed at opset 14",
     "torchvision.models.vision_transformer.VisionTransformer(image_size=64, patch_size=8, num_layers=4, num_heads=4, hidden_dim=64, mlp_dim=128, num_classes=100)",
     "image 64, patch 8, 4 layers, hidden 64, 4 heads, mlp 128 (ViT-B/16: 224, 16, 12, 768, 12, 3072)"),
    ("vit_tiny_opset17", b_vit, 17, True, "vit_tiny",
     "the same Vision Transformer (same weights) exported at opset 17: LayerNormalization op",
     "torchvision.models.vision_transformer.VisionTransformer(image_size=64, patch_size=8, num_layers=4, num_heads=4, hidden_dim=64, mlp_dim=128, num_classes=100)",
     "as vit_tiny_opset14"),
    ("transformer_encoder", b_transformer_encoder, 14, True, "transformer_encoder",
     "nn.TransformerEncoder: 2 post-LN layers (MultiheadAttention, ReLU FFN 128), batch_first, seq 32",
     "torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True), num_layers=2)",
     "d_model 64, 4 heads, FFN 128, 2 layers, seq 32; opset 14 (the 1.13 default)"),
    ("transformer_encoder_nofold", b_transformer_encoder, 14, False, "transformer_encoder",
     "the same TransformerEncoder (same weights) exported with do_constant_folding=False",
     "torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True), num_layers=2)",
     "as transformer_encoder; do_constant_folding=False"),
    ("convnext_small_opset17", b_convnext, 17, True, None,
     "ConvNeXt: 4x4/4 patchify stem, depthwise 7x7, Permute + LayerNorm over channels + Linear MLP with GELU, layer scale, LayerNorm2d downsampling",
     "torchvision.models.convnext.ConvNeXt([CNBlockConfig(24, 48, 1), CNBlockConfig(48, 96, 1), CNBlockConfig(96, 192, 2), CNBlockConfig(192, None, 1)], stochastic_depth_prob=0.0, layer_scale=0.1, num_classes=100)",
     "widths 24/48/96/192 (convnext_tiny: 96..768), depths 1/1/2/1 (3/3/9/3); layer_scale 0.1 (not 1e-6, which makes every block an identity numerically); num_classes 100; input 128x128"),
    ("swin_tiny_reduced", b_swin, 14, True, None,
     "Swin Transformer: patch embedding, shifted-window attention with relative position bias (roll, window partition reshapes), PatchMerging",
     "torchvision.models.swin_transformer.SwinTransformer(patch_size=[4, 4], embed_dim=32, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4], stochastic_depth_prob=0.0, num_classes=100)",
     "embed 32 (swin_t: 96), 2 stages of 2 blocks (4 stages 2/2/6/2), window 4 (7); input 64x64; num_classes 100"),
    ("gpt_tiny_prefill", b_gpt_prefill, 14, True, "gpt_tiny",
     "GPT-2-style decoder, prefill: int64 ids -> Gather embeddings, 2 pre-LN blocks, causal attention (Where mask), GELU tanh MLP, tied LM head; outputs present K/V",
     "scripts/export_torch_models.py TinyGPT(vocab=512, d=128, heads=4, layers=2, n_positions=128)",
     "vocab 512, d 128, 4 heads, 2 blocks, 128 positions; T=32"),
    ("gpt_tiny_decode", b_gpt_decode, 14, True, "gpt_tiny",
     "the same GPT (same weights), decode step: 1 new token + KV cache of 127 per layer as inputs, present K/V (length 128) as outputs",
     "scripts/export_torch_models.py TinyGPT(vocab=512, d=128, heads=4, layers=2, n_positions=128)",
     "as gpt_tiny_prefill; T=1, past length 127"),
    ("llama_tiny_prefill", b_llama_prefill, 14, True, "llama_tiny",
     "Llama-style decoder, prefill: int64 token and position ids, Gather embedding, RMSNorm (Pow/ReduceMean/Sqrt/Div), rotary embeddings from cos/sin tables gathered by position id, grouped-query attention (2 KV heads for 4: Expand + Reshape), causal mask from Trilu, SiLU-gated MLP, untied LM head; outputs present K/V",
     "scripts/export_torch_models.py TinyLlama(vocab=512, d=128, heads=4, kv_heads=2, layers=2, ffn=344, n_positions=512)",
     "vocab 512, d 128, 4 heads / 2 KV heads, 2 blocks, FFN 344, 512 rotary positions; T=32"),
    ("llama_tiny_decode", b_llama_decode, 14, True, "llama_tiny",
     "the same Llama (same weights), decode step: 1 new token at position 127 + KV cache of 127 per layer (2 KV heads) as inputs, present K/V (length 128) as outputs",
     "scripts/export_torch_models.py TinyLlama(vocab=512, d=128, heads=4, kv_heads=2, layers=2, ffn=344, n_positions=512)",
     "as llama_tiny_prefill; T=1, past length 127"),
    ("gpt_tiny_dynamic_prefill", b_gpt_dynamic_prefill, 14, True, "gpt_tiny",
     "gpt_tiny_prefill (same weights) exported with a dynamic prompt length (input_ids axis 1), as Optimum exports decoders",
     "scripts/export_torch_models.py TinyGPT(vocab=512, d=128, heads=4, layers=2, n_positions=128); dynamic_axes",
     "as gpt_tiny_prefill; prompt length dynamic (--input-shape input_ids=1xN, npusim generate --prompt N)"),
    ("gpt_tiny_dynamic_decode", b_gpt_dynamic_decode, 14, True, "gpt_tiny",
     "gpt_tiny_decode (same weights) exported with a dynamic cache length (past K/V axis 2): one graph for every step of a generation",
     "scripts/export_torch_models.py TinyGPT(vocab=512, d=128, heads=4, layers=2, n_positions=128); dynamic_axes",
     "as gpt_tiny_decode; past length dynamic (at most 127: 128 positions)"),
    ("unet_tiny", b_unet, 13, True, None,
     "U-Net-style segmentation: 3-level encoder (conv-BN-ReLU x2, maxpool), ConvTranspose2d 2x2/2 upsampling, skip Concat, 1x1 head (4 classes)",
     "scripts/export_torch_models.py TinyUNet(widths=(16, 32, 64), bottleneck=128, num_classes=4)",
     "widths 16/32/64 + bottleneck 128 (U-Net: 64..1024); input 128x128"),
]


# ----------------------------------------------------------------------------------------------
# Manifest


def torch_versions():
    versions = {"torch": torch.__version__, "torchvision": torchvision.__version__}
    for pkg in ("python3-torch", "python3-torchvision"):
        try:
            versions[pkg] = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], check=True,
                                           capture_output=True, text=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            versions[pkg] = "unknown"
    return versions


def load_manifest(path):
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {"models": []}


def save_manifest(path, manifest, entries, failures):
    """Replaces the manifest entries of the files in `entries`, keeps every other entry."""
    by_file = {m["file"]: m for m in manifest.get("models", [])}
    for e in entries:
        by_file[e["file"]] = e
    manifest["models"] = [by_file[k] for k in sorted(by_file)]
    manifest["about"] = ("ONNX files exported by PyTorch's own torch.onnx.export (TorchScript-based, "
                         "torch 1.13, Debian python3-torch); written by scripts/export_torch_models.py "
                         "and scripts/train_fashion_mnist.py, run with /usr/bin/python3. Checked with "
                         "scripts/check_exported_models.py (project python: onnx + onnxruntime).")
    manifest["export_failures"] = {**manifest.get("export_failures", {}), **failures}
    for e in entries:
        manifest["export_failures"].pop(e["name"], None)
    with open(path, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=False)
        f.write("\n")


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def reference_inputs(args):
    rng = np.random.default_rng(REF_SEED)
    out = []
    for a in args:
        if a.dtype == torch.long:
            out.append(torch.from_numpy(rng.integers(0, REF_INT_HIGH, size=tuple(a.shape)).astype(np.int64)))
        else:
            out.append(torch.from_numpy(rng.standard_normal(tuple(a.shape)).astype(np.float32)))
    return tuple(out)


def fingerprint(y):
    """Mean, std, max |y| and REF_SAMPLES values at evenly spaced flat indices of one output."""
    flat = y.detach().reshape(-1).double().numpy()
    idx = np.linspace(0, flat.size - 1, min(REF_SAMPLES, flat.size)).astype(np.int64)
    return {"mean": float(flat.mean()), "std": float(flat.std()), "abs_max": float(np.abs(flat).max()),
            "sample_index": idx.tolist(), "sample": [float(v) for v in flat[idx]]}


def io_desc(names, tensors):
    return [{"name": n, "shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}
            for n, t in zip(names, tensors)]


def export_one(spec, out_dir, versions):
    name, builder, opset, fold, seed_name, arch, source, reductions = spec
    seed = zlib.crc32((seed_name or name).encode()) & 0x7FFFFFFF
    torch.manual_seed(seed)
    model, args, in_names, out_names, *dynamic = builder()
    dynamic_axes = dynamic[0] if dynamic else None
    args = reference_inputs(args)  # same shapes and dtypes; values reproducible with numpy alone
    liven_constant_params(model)
    if args[0].dim() == 4:
        calibrate_batchnorm(model, args[0].shape)
    model.eval()
    with torch.no_grad():
        outs = model(*args)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    path = os.path.join(out_dir, name + ".onnx")
    # Not wrapped in torch.no_grad(): exporting as users do (grad enabled, parameters that require
    # grad) keeps nn.MultiheadAttention / TransformerEncoderLayer off their fused inference fast
    # path, whose aten ops (_native_multi_head_attention, _transformer_encoder_layer_fwd) have no
    # ONNX symbolic in 1.13.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, path, export_params=True, opset_version=opset,
                          do_constant_folding=fold, input_names=in_names, output_names=out_names,
                          dynamic_axes=dynamic_axes)
    return {
        "name": name,
        "file": name + ".onnx",
        "architecture": arch,
        "source": source,
        "reductions": reductions,
        "opset": opset,
        "do_constant_folding": fold,
        **({"dynamic_axes": dynamic_axes} if dynamic_axes else {}),
        "seed": seed,
        "inputs": io_desc(in_names, args),
        "outputs": io_desc(out_names, outs),
        "reference": {"seed": REF_SEED, "int_high": REF_INT_HIGH,
                      "torch_outputs": {n: fingerprint(y) for n, y in zip(out_names, outs)}},
        "parameters": sum(p.numel() for p in model.parameters()),
        "file_bytes": os.path.getsize(path),
        "sha256": sha256(path),
        "exporter": "torch.onnx.export (TorchScript-based)",
        "torch_version": versions,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--only", nargs="*", help="export only these model names")
    ap.add_argument("--list", action="store_true", help="list the model names and exit")
    a = ap.parse_args()
    if a.list:
        for s in MODEL_SPECS:
            print(s[0])
        return 0
    torch.set_num_threads(2)
    os.makedirs(a.out, exist_ok=True)
    versions = torch_versions()
    specs = [s for s in MODEL_SPECS if not a.only or s[0] in a.only]
    unknown = set(a.only or []) - {s[0] for s in MODEL_SPECS}
    if unknown:
        ap.error(f"unknown model(s): {', '.join(sorted(unknown))}")
    entries, failures = [], {}
    for spec in specs:
        try:
            e = export_one(spec, a.out, versions)
        except Exception as ex:  # record and go on: a failed export is a finding, not a crash
            msg = f"{type(ex).__name__}: {str(ex).strip().splitlines()[0] if str(ex).strip() else ''}"
            failures[spec[0]] = msg
            print(f"FAILED {spec[0]}: {msg}", file=sys.stderr)
            continue
        entries.append(e)
        print(f"{e['file']:34s} opset {e['opset']:2d} fold={str(e['do_constant_folding']):5s} "
              f"{e['parameters']:9,d} params {e['file_bytes'] / 1e6:6.2f} MB")
    mpath = os.path.join(a.out, "MANIFEST.json")
    save_manifest(mpath, load_manifest(mpath), entries, failures)
    print(f"wrote {len(entries)} model(s) and {mpath}; {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
