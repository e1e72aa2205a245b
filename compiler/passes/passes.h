// The graph passes between the front end and the back end, on the canonical graph: layers the
// NPU's instructions cannot express rewritten into ones they can, BatchNorm folding, fusion of
// the layers' epilogues. Each returns a one-line detail for its PassSummary (pipeline.h).
#pragma once
#include <string>

#include "compiler/core/graph.h"

namespace npu::compiler {

// Layers the conv instruction cannot express, rewritten into ones it can (npu_lowering.cpp):
// ConvTranspose as a 1x1 Conv + DepthToSpace or zero insertion + Conv, large-stride patchify
// Conv as SpaceToDepth + 1x1 Conv.
std::string lower_for_npu(Graph& graph);

// LSTM, GRU and RNN (forward, reverse, bidirectional; default activations, no peepholes, clip
// or per-batch lengths) unrolled over their static time steps into MatMul, Slice, Sigmoid/Tanh
// and element-wise ops (recurrent_lowering.cpp).
std::string lower_recurrent_layers(Graph& graph);
bool is_recurrent(const Node& node);  // an ONNX LSTM, GRU or RNN
// Why an LSTM/GRU/RNN node is not lowered ("" when it would be).
std::string recurrent_lowering_obstacle(const Graph& graph, const Node& node);

// A batch of N > 1 images through convs and pools (the NPU's images are batch 1) as N per-image
// chains over the same constant weights, a Split where the batch enters them and a Concat
// where it leaves (batch_split.cpp). Piece i of value v is named batch_image_base's way.
std::string split_batch_into_images(Graph& graph);
bool has_batched_images(const Graph& graph);  // a conv, pool or resize reads a 4-D image of batch > 1
// "v" for a piece "v@image<i>" of a batched value, else "".
std::string batch_image_base(const std::string& name);

// A pool of a channel Concat whose other readers are convs (Inception's blocks) as a Concat of
// one pool per part, so that every reader takes the parts where they lie and the Concat is
// never copied; a Concat part that is a same-axis Concat read only there is spliced in
// (concat_pooling.cpp).
std::string pool_concat_parts(Graph& graph);
bool pools_a_concat(const Graph& graph);  // a pool reads a Concat's output

// BatchNormalization -> per-channel Mul and Add; per-channel Mul/Add by constants fold into the
// Conv/ConvTranspose/Gemm/MatMul before them or the unpadded Conv after them.
std::string fold_batchnorm(Graph& graph);

// Conv/Gemm/MatMul (+ bias) (+ activation) (+ residual Add) (+ activation) -> one
// npusim:FusedConv / npusim:FusedGemm node; attributes say which epilogue it carries.
std::string fuse_layers(Graph& graph);

}  // namespace npu::compiler
