// Internal to shape inference: the context one rule sees, and the rules for tensor and shape
// ops (shape_inference_tensor.cpp); shape_inference.cpp holds the layer rules.
#pragma once
#include <string>
#include <vector>

#include "compiler/core/graph.h"
#include "compiler/core/node_parameters.h"

namespace npu::compiler {

struct ShapeContext {
  Graph& g;
  Node& n;
  int& changed;  // outputs whose shape or type this sweep set or changed

  const Tensor* in(std::size_t i) const {
    if (i >= n.inputs.size() || n.inputs[i].empty()) return nullptr;
    return &g.tensor(n.inputs[i]);
  }
  std::string where() const { return g.source + ": node '" + n.name + "' (" + n.op_type + ")"; }
  // elem_type 0 keeps the tensor's type.
  void set(std::size_t index, std::vector<std::int64_t> shape, int elem_type) {
    if (index >= n.outputs.size() || n.outputs[index].empty()) return;
    Tensor& t = g.tensor(n.outputs[index]);
    if (t.is_constant) return;
    if (!t.shape_known || t.shape != shape || (elem_type && t.elem_type != elem_type)) ++changed;
    t.shape = std::move(shape);
    t.shape_known = true;
    t.dim_names.clear();
    if (elem_type) t.elem_type = elem_type;
  }
  bool ints(const std::string& name, std::vector<std::int64_t>& out) const { return parameter_ints(g, n, name, out); }
  bool floats(const std::string& name, std::vector<float>& out) const { return parameter_floats(g, n, name, out); }
};

// Shape, Reshape, Slice, Gather, Concat, Resize, Reduce*, ... Returns false when the op is not
// one of them or its output depends on values not known yet.
bool infer_tensor_op(ShapeContext& c);

}  // namespace npu::compiler
