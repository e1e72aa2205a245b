#include "compiler/backend/partition.h"

#include <algorithm>
#include <map>
#include <set>

#include "compiler/backend/eltwise_plan.h"
#include "compiler/backend/move_params.h"
#include "compiler/backend/rowwise_params.h"
#include "compiler/core/npu_ops.h"
#include "compiler/core/subgraph_capture.h"
#include "compiler/quant/int8_layer_params.h"
#include "compiler/reference/float_evaluator.h"
#include "compiler/reference/node_geometry.h"
#include "isa/field_limits.h"

namespace npu::compiler {
namespace {

// What one instruction can express, from the ISA table's field widths.
using isa::Field;
using isa::Opcode;
constexpr std::int64_t kConvKernelMax = isa::field_max(Opcode::Conv, Field::kernel_h);
constexpr int kConvKernelBits = isa::field_width(Opcode::Conv, Field::kernel_h);
constexpr std::int64_t kConvStrideMax = isa::field_max(Opcode::Conv, Field::stride_h);
constexpr int kConvStrideBits = isa::field_width(Opcode::Conv, Field::stride_h);
constexpr std::int64_t kConvDilationMax = isa::field_max(Opcode::Conv, Field::dilation_h);
constexpr int kConvDilationBits = isa::field_width(Opcode::Conv, Field::dilation_h);
constexpr std::int64_t kPadMax = isa::field_max(Opcode::Conv, Field::pad_top);
constexpr int kPadBits = isa::field_width(Opcode::Conv, Field::pad_top);
constexpr std::int64_t kTileDimMax = isa::field_max(Opcode::Conv, Field::in_w);
constexpr int kTileDimBits = isa::field_width(Opcode::Conv, Field::in_w);
constexpr std::int64_t kChannelsMax = isa::field_max(Opcode::Conv, Field::in_c);
constexpr int kChannelsBits = isa::field_width(Opcode::Conv, Field::in_c);
constexpr std::int64_t kGemmKMax = isa::field_max(Opcode::Gemm, Field::k);
constexpr int kGemmKBits = isa::field_width(Opcode::Gemm, Field::k);
constexpr std::int64_t kPoolKernelMax = isa::field_max(Opcode::Pool, Field::kernel_h);
constexpr int kPoolKernelBits = isa::field_width(Opcode::Pool, Field::kernel_h);
constexpr std::int64_t kPoolStrideMax = isa::field_max(Opcode::Pool, Field::stride_h);
constexpr int kPoolStrideBits = isa::field_width(Opcode::Pool, Field::stride_h);
constexpr std::int64_t kPoolPadMax = isa::field_max(Opcode::Pool, Field::pad_bottom);
constexpr int kPoolPadBits = isa::field_width(Opcode::Pool, Field::pad_bottom);

std::string too_wide(const std::string& what, std::int64_t value, std::int64_t max, int bits) {
  return what + " " + std::to_string(value) + " exceeds the ISA's " + std::to_string(bits) +
         "-bit field (max " + std::to_string(max) + ")";
}

std::string check_window(const WindowGeometry& w, std::int64_t kmax, int kbits, std::int64_t smax,
                         int sbits, bool dilation_allowed) {
  if (w.kernel_h > kmax || w.kernel_w > kmax) return too_wide("kernel", std::max(w.kernel_h, w.kernel_w), kmax, kbits);
  if (w.stride_h > smax || w.stride_w > smax) return too_wide("stride", std::max(w.stride_h, w.stride_w), smax, sbits);
  if (!dilation_allowed && (w.dilation_h != 1 || w.dilation_w != 1)) return "dilations other than 1 have no pool instruction field";
  if (w.dilation_h > kConvDilationMax || w.dilation_w > kConvDilationMax)
    return too_wide("dilation", std::max(w.dilation_h, w.dilation_w), kConvDilationMax, kConvDilationBits);
  std::int64_t pad = std::max({w.pad_top, w.pad_left, w.pad_bottom, w.pad_right});
  if (pad > kPadMax) return too_wide("pad", pad, kPadMax, kPadBits);
  if (std::min({w.pad_top, w.pad_left, w.pad_bottom, w.pad_right}) < 0) return "negative pads";
  return "";
}

bool is_float(int t) { return t == kFloat || t == kFloat16; }

}  // namespace

namespace {

std::string batch_one(const Graph& g, const Node& n) {
  for (const auto* names : {&n.inputs, &n.outputs})
    for (const auto& v : *names)
      if (!v.empty() && !g.is_constant(v) && g.tensor(v).shape.size() == 4 && g.tensor(v).shape[0] != 1)
        return "batch " + std::to_string(g.tensor(v).shape[0]) + " (the NPU's NHWC images are batch 1)";
  return "";
}

// Data movement: strided DMA copies (codegen_move.cpp); any layout, any axis.
std::string move_rejection(const Graph& g, const Node& n) {
  const std::string& op = n.op_type;
  const auto& xs = g.tensor(n.inputs[0]).shape;
  try {
    if (op == "Slice") {
      SliceParams p = slice_params(g, n);
      for (std::size_t a = 0; a < xs.size(); ++a)
        if (p.step[a] < 0 && p.size[a] > 1) return "negative slice step (the DMA strides run forwards)";
      if (p.size != g.tensor(n.outputs[0]).shape) return "slice sizes disagree with the inferred output shape";
    } else if (op == "Gather") {
      gather_indices(g, n);
    } else if (op == "Pad") {
      PadParams p = pad_params(g, n);
      if (p.mode != "constant") return "pad mode '" + p.mode + "' (only constant padding is a fill plus a copy)";
    } else if (op == "DepthToSpace" || op == "SpaceToDepth") {
      if (xs.size() != 4) return "not 4-D";
    } else if (op == "Tile") {
      const auto& ys = g.tensor(n.outputs[0]).shape;
      for (std::size_t a = 0; a < xs.size(); ++a)
        if (xs[a] == 0 || ys[a] % xs[a]) return "tile output is not a whole multiple";
    } else if (op == "Expand") {
      const auto& ys = g.tensor(n.outputs[0]).shape;
      if (ys.size() < xs.size()) return "expand to a lower rank";
    }
  } catch (const CompileError& e) {
    std::string what = e.what();
    auto colon = what.find("): ");
    return colon == std::string::npos ? what : what.substr(colon + 3);
  }
  return "";
}

std::string fused_activation_rejection(const Node& n, bool int8) {
  const std::string act = n.get_string("activation", "");
  isa::ActFunction f;
  if (!int8 && !act.empty() && act != "Relu" && act != "Clip" && !act_function_of(act, f))
    return "activation " + act + " has no fp16 act function";
  return "";
}

// Element-wise: fp16 on act / clip / binary; int8 as a table (a function of one value), qadd /
// qbinary, or a dequantize-fp16-quantize island for Div, Pow and PRelu of two values.
std::string eltwise_rejection(const Graph& g, const Node& n, bool int8) {
  const std::string& op = n.op_type;
  if (op == "Clip")
    for (std::size_t i = 1; i < n.inputs.size(); ++i)
      if (!n.inputs[i].empty() && !g.is_constant(n.inputs[i])) return "Clip bounds are not constants";
  if (op == "Where") {
    if (!g.is_constant(n.inputs[0])) return "the condition is computed (only constant masks select by multiply-add)";
    // int8: a mask fill (-inf, float min) has no int8 code; such a Where keeps its output in
    // fp16 for the softmax after it (quantize.cpp), which must be its only kind of reader.
    if (int8 && masked_where(g, n))
      for (int c : g.consumers(n.outputs[0]))
        if (g.nodes[static_cast<std::size_t>(c)].op_type != "Softmax" && g.nodes[static_cast<std::size_t>(c)].op_type != "LogSoftmax")
          return "int8 Where with a mask fill read by a " + g.nodes[static_cast<std::size_t>(c)].op_type + " (only a softmax can take its fp16 output)";
    return "";
  }
  const int single = unary_operand(g, n);
  if (int8) {
    if (single >= 0 && !evaluator_supports(n)) return "no FP32 kernel to build its int8 table from";
    return "";
  }
  isa::ActFunction f;
  if (unary_ops().count(op) && op != "Relu" && op != "Clip" && !act_function_of(op, f)) return "op " + op + " has no fp16 act function";
  if (binary_ops().count(op) && n.inputs.size() != 2) return "needs two inputs";
  return "";
}

}  // namespace

std::string npu_rejection(const Graph& g, const Node& n, Precision precision) {
  const std::string& op = n.op_type;
  if (!n.domain.empty() && n.domain != "npusim") return "domain '" + n.domain + "' is not an NPU op set";
  int activations = 0;
  for (const auto& in : n.inputs) {
    if (in.empty()) continue;
    const Tensor& t = g.tensor(in);
    if (!t.shape_known) return "input '" + in + "' has an unknown shape";
    if (t.is_constant) continue;  // weights and parameters (shapes, indices, pads) are compiled in
    if (!is_float(t.elem_type)) return std::string("input '") + in + "' is " + elem_type_name(t.elem_type) + ", the NPU takes float models";
    ++activations;
  }
  for (const auto& out : n.outputs) {
    if (out.empty()) continue;
    const Tensor& t = g.tensor(out);
    if (!t.shape_known) return "output '" + out + "' has an unknown shape";
    if (!is_float(t.elem_type)) return std::string("output '") + out + "' is " + elem_type_name(t.elem_type);
    for (auto d : t.shape)
      if (d == 0) return "empty tensor";
  }
  if (n.inputs.empty() || n.inputs[0].empty()) return "no data input";
  if (activations == 0 && op != "FusedGemm") return "every input is a constant (nothing to run)";
  const Tensor* x = &g.tensor(n.inputs[0]);
  const auto& xs = x->shape;
  bool int8 = precision == Precision::Int8;
  if (needs_nhwc(op)) {
    auto why = batch_one(g, n);
    if (!why.empty()) return why;
  }
  if (move_ops().count(op)) return move_rejection(g, n);

  if (op == "FusedConv") {
    const Tensor& w = g.tensor(n.inputs[1]);
    if (xs.size() != 4) return "only 2-D convolution maps to the conv instruction";
    auto geo = window_geometry(n, xs, w.shape[2], w.shape[3]);
    auto why = check_window(geo, kConvKernelMax, kConvKernelBits, kConvStrideMax, kConvStrideBits, true);
    if (!why.empty()) return why;
    const bool pointwise = geo.kernel_h == 1 && geo.kernel_w == 1 && geo.stride_h == 1 && geo.stride_w == 1 &&
                           geo.pad_top == 0 && geo.pad_left == 0 && geo.pad_bottom == 0 && geo.pad_right == 0;
    if (xs[3] > kTileDimMax && !pointwise) return too_wide("input width", xs[3], kTileDimMax, kTileDimBits);
    if (xs[1] > kChannelsMax || w.shape[0] > kChannelsMax) return too_wide("channels", std::max(xs[1], w.shape[0]), kChannelsMax, kChannelsBits);
    return fused_activation_rejection(n, int8);
  }
  if (op == "FusedGemm") {
    if (xs.size() < 2) return "Gemm input is 1-D";
    if (xs.back() > kChannelsMax) return too_wide("inner dimension", xs.back(), kChannelsMax, kChannelsBits);
    return fused_activation_rejection(n, int8);
  }
  if (unary_ops().count(op) || binary_ops().count(op) || op == "Where") return eltwise_rejection(g, n, int8);
  if (op == "MaxPool" || op == "AveragePool") {
    if (xs.size() != 4) return "only 2-D pooling maps to the pool instruction";
    if (n.outputs.size() > 1 && !n.outputs[1].empty()) return "MaxPool Indices output has no instruction";
    auto k = n.get_ints("kernel_shape");
    if (k.size() != 2) return "kernel_shape is not 2-D";
    auto geo = window_geometry(n, xs, k[0], k[1]);
    auto why = check_window(geo, kPoolKernelMax, kPoolKernelBits, kPoolStrideMax, kPoolStrideBits, false);
    if (!why.empty()) return why;
    if (geo.ceil_mode) {
      // ceil_mode is floor mode with padding below and right that reaches the last window;
      // an average counting pads would count that overhang too.
      Node floor_node = n;
      floor_node.set_int("ceil_mode", 0);
      auto floor_geo = window_geometry(floor_node, xs, k[0], k[1]);
      const bool grows = floor_geo.out_h != geo.out_h || floor_geo.out_w != geo.out_w;
      if (grows && op == "AveragePool" && n.get_int("count_include_pad", 0))
        return "ceil_mode=1 with count_include_pad=1 (the overhang past the pads would be counted)";
      const std::int64_t bottom = (geo.out_h - 1) * geo.stride_h + geo.kernel_h - xs[2] - geo.pad_top;
      const std::int64_t right = (geo.out_w - 1) * geo.stride_w + geo.kernel_w - xs[3] - geo.pad_left;
      if (std::max(bottom, right) > kPoolPadMax) return too_wide("ceil-mode pad", std::max(bottom, right), kPoolPadMax, kPoolPadBits);
    }
    if (xs[3] > kTileDimMax) return too_wide("input width", xs[3], kTileDimMax, kTileDimBits);
    return "";
  }
  if (op == "Resize" || op == "Upsample") {
    if (xs.size() != 4) return "only 4-D Resize";
    std::string mode = n.get_string("mode", "nearest");
    if (mode != "nearest") return "mode '" + mode + "' (only nearest is a DMA replication)";
    const Tensor& out = g.tensor(n.outputs[0]);
    if (out.shape[0] != xs[0] || out.shape[1] != xs[1]) return "Resize changes batch or channels";
    std::string ctm = op == "Upsample" ? "asymmetric" : n.get_string("coordinate_transformation_mode", "half_pixel");
    std::string nm = op == "Upsample" ? "floor" : n.get_string("nearest_mode", "round_prefer_floor");
    for (int d = 2; d < 4; ++d) {
      if (out.shape[d] % xs[d] != 0) return "non-integer scale factor";
      std::int64_t s = out.shape[d] / xs[d];
      for (std::int64_t o = 0; o < out.shape[d]; ++o)
        if (nearest_source_index(ctm, nm, o, xs[d], out.shape[d]) != o / s)
          return "coordinate mode '" + ctm + "'/'" + nm + "' is not a plain replication";
    }
    return "";
  }
  if (is_rowwise_op(op)) {
    if (n.outputs.size() > 1)
      for (std::size_t k = 1; k < n.outputs.size(); ++k)
        if (!n.outputs[k].empty()) return "its extra outputs (mean, inverse std) have no instruction";
    std::int64_t mid = 1;
    try {
      for (auto a : rowwise_axes(g, n)) mid *= xs[static_cast<std::size_t>(a)];
      if (op == "LayerNormalization") rowwise_op(g, n, int8);  // scale and bias constant and broadcastable
    } catch (const CompileError& e) {
      std::string what = e.what();
      auto colon = what.find("): ");
      return colon == std::string::npos ? what : what.substr(colon + 3);
    }
    const std::int64_t max = op == "Softmax" || op == "LogSoftmax" ? isa::field_max(isa::Opcode::Softmax, isa::Field::cols)
                                                                   : isa::field_max(isa::Opcode::Reduce, isa::Field::length);
    if (mid > max) return "its " + std::to_string(mid) + " elements per row exceed the instruction (max " + std::to_string(max) + ")";
    return "";
  }
  if (op == "MatMul") {
    const Tensor& b = g.tensor(n.inputs[1]);
    if (xs.size() < 2 || b.shape.size() < 2) return "1-D MatMul operand";
    if (xs.back() > kGemmKMax) return too_wide("reduction length", xs.back(), kGemmKMax, kGemmKBits);
    return "";
  }
  return "op " + op + " has no NPU instruction";
}

std::vector<Fallback> assign_devices(Graph& g, Precision precision, bool strict) {
  std::vector<Fallback> fallbacks;
  for (auto& n : g.nodes) {
    std::string why = npu_rejection(g, n, precision);
    n.device = why.empty() ? Node::Device::Npu : Node::Device::Cpu;
    n.fallback_reason = why;
    if (!why.empty()) {
      if (strict)
        throw CompileError(g.source + ": --strict: node '" + n.name + "' (" + n.op_type +
                           ") would fall back to the CPU: " + why);
      fallbacks.push_back({n.name, n.op_type, why});
    }
  }
  // Kahn's algorithm preferring the device we are on: fewer NPU<->CPU switches.
  std::map<std::string, int> producer;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& o : g.nodes[i].outputs) producer[o] = static_cast<int>(i);
  std::vector<int> pending(g.nodes.size(), 0);
  std::vector<std::vector<int>> users(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    std::set<int> deps;
    for (const auto& in : values_read(g.nodes[i])) {
      auto it = producer.find(in);
      if (it != producer.end() && it->second != static_cast<int>(i)) deps.insert(it->second);
    }
    pending[i] = static_cast<int>(deps.size());
    for (int d : deps) users[d].push_back(static_cast<int>(i));
  }
  std::vector<int> ready, order;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (!pending[i]) ready.push_back(static_cast<int>(i));
  Node::Device current = g.nodes.empty() ? Node::Device::Npu : g.nodes[0].device;
  while (!ready.empty()) {
    auto pick = std::find_if(ready.begin(), ready.end(), [&](int i) { return g.nodes[i].device == current; });
    if (pick == ready.end()) pick = std::min_element(ready.begin(), ready.end());
    int i = *pick;
    ready.erase(pick);
    current = g.nodes[i].device;
    order.push_back(i);
    for (int u : users[i])
      if (--pending[u] == 0) ready.push_back(u);
  }
  std::vector<Node> sorted;
  for (int i : order) sorted.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(sorted);
  return fallbacks;
}

std::vector<StepNodes> group_steps(const Graph& g) {
  std::vector<StepNodes> steps;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (steps.empty() || steps.back().device != g.nodes[i].device) {
      steps.emplace_back();
      steps.back().device = g.nodes[i].device;
    }
    steps.back().nodes.push_back(static_cast<int>(i));
  }
  std::vector<std::vector<std::string>> reads(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) reads[i] = values_read(g.nodes[i]);
  for (auto& s : steps) {
    std::set<int> inside(s.nodes.begin(), s.nodes.end());
    std::set<std::string> produced, seen;
    for (int i : s.nodes)
      for (const auto& o : g.nodes[i].outputs) produced.insert(o);
    for (int i : s.nodes) {
      for (const auto& in : reads[i])  // captured outer-scope values included
        if (!produced.count(in) && !g.is_constant(in) && seen.insert(in).second)
          s.inputs.push_back(in);
      for (const auto& o : g.nodes[i].outputs) {
        if (o.empty()) continue;
        bool outside = g.is_graph_output(o);
        for (std::size_t c = 0; c < g.nodes.size() && !outside; ++c)
          if (!inside.count(static_cast<int>(c)))
            outside |= std::find(reads[c].begin(), reads[c].end(), o) != reads[c].end();
        if (outside) s.outputs.push_back(o);
      }
    }
  }
  return steps;
}

std::uint32_t count_transitions(const std::vector<StepNodes>& steps) {
  std::uint32_t t = 0;
  for (std::size_t i = 1; i < steps.size(); ++i) t += steps[i].device != steps[i - 1].device;
  return t;
}

}  // namespace npu::compiler
