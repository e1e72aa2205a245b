#include "compiler/frontend/opset_upgrade.h"

#include <algorithm>
#include <map>

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include "compiler/frontend/onnx_io.h"

namespace npu::compiler {
namespace {

// What the converter does not carry over: PRelu before opset 7 applied a 1-D slope per channel
// (dim 1); from 7 the slope broadcasts numpy-style from the last dim, so it becomes [C, 1, ...].
void reshape_legacy_prelu_slopes(Graph& g) {
  if (g.opset >= 7) return;
  for (auto& n : g.nodes) {
    if (n.op_type != "PRelu" || !n.domain.empty() || n.inputs.size() != 2 || !g.is_constant(n.inputs[1])) continue;
    const Tensor& x = g.tensor(n.inputs[0]);
    const Tensor& slope = g.tensor(n.inputs[1]);
    if (!x.shape_known || x.shape.size() < 3 || slope.shape.size() != 1 || slope.shape[0] != x.shape[1] || slope.shape[0] == 1)
      continue;
    Tensor per_channel = slope;
    per_channel.name = g.unique_name(slope.name + "_per_channel");
    per_channel.shape = std::vector<std::int64_t>(x.shape.size() - 1, 1);
    per_channel.shape[0] = slope.shape[0];
    n.inputs[1] = per_channel.name;
    g.tensors[per_channel.name] = std::move(per_channel);
  }
}

// Large constants (weights) go through the converter as graph inputs of the same type and
// shape: no adapter reads their values, and serialising, shape-inferring, converting and
// re-importing ResNet-50's 100 MB of weights was a second of every compile. Small constants
// stay, since adapters and shape inference read shapes, axes and scales from them.
constexpr std::int64_t kLargeConstantElements = 1024;

struct StashedConstants {
  std::map<std::string, Tensor> data;  // name -> the constant as it was
};

StashedConstants stash_large_constants(Graph& g) {
  StashedConstants stash;
  for (auto& [name, t] : g.tensors) {
    if (!t.is_constant || t.elements() <= kLargeConstantElements) continue;
    Tensor placeholder;
    placeholder.name = t.name;
    placeholder.elem_type = t.elem_type;
    placeholder.shape = t.shape;
    placeholder.shape_known = true;
    stash.data.emplace(name, std::move(t));
    t = std::move(placeholder);
    g.inputs.push_back(name);
  }
  return stash;
}

// Puts the stashed constants back into `g` (the converted graph or, after a failure, the
// original); names the converter no longer reads are dropped with it.
void restore_large_constants(Graph& g, StashedConstants& stash) {
  auto& in = g.inputs;
  in.erase(std::remove_if(in.begin(), in.end(), [&](const std::string& n) { return stash.data.count(n) != 0; }),
           in.end());
  for (auto& [name, t] : stash.data) {
    auto it = g.tensors.find(name);
    if (it != g.tensors.end()) it->second = std::move(t);
  }
  stash.data.clear();
}

}  // namespace

std::string upgrade_opset(Graph& g) {
  if (g.opset >= kCanonicalOpset) return "";
  reshape_legacy_prelu_slopes(g);
  StashedConstants stash = stash_large_constants(g);
  auto bytes = export_onnx(g);
  onnx::ModelProto m;
  if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    restore_large_constants(g, stash);
    return "the graph did not serialise";
  }
  onnx::ModelProto converted;
  try {
    // The converter reads value shapes (Softmax-13 needs the rank): the export carries ours,
    // ONNX's inference adds what it can.
    onnx::shape_inference::InferShapes(m);
    converted = onnx::version_conversion::ConvertVersion(m, static_cast<int>(kCanonicalOpset));
  } catch (const std::exception& e) {
    restore_large_constants(g, stash);
    std::string what = e.what();
    auto nl = what.find('\n');
    return nl == std::string::npos ? what : what.substr(0, nl);
  }
  std::string out;
  converted.SerializeToString(&out);
  Graph upgraded = import_onnx_bytes(std::vector<std::uint8_t>(out.begin(), out.end()), g.source);
  upgraded.name = g.name;
  restore_large_constants(upgraded, stash);
  g = std::move(upgraded);
  return "";
}

}  // namespace npu::compiler
