// Model outputs that constant folding turned into constants (Constant nodes, Shape of a static
// tensor, ...): no NPU or CPU node computes them any more, so the plan gets a CPU step whose
// ONNX model holds one Constant node per such output, and the runtime returns its values.
#pragma once
#include <string>
#include <vector>

#include "compiler/frontend/onnx_io.h"

namespace npu::compiler {

// Graph outputs that are constant tensors, in output order.
std::vector<std::string> constant_outputs(const Graph& graph);

// A model without inputs whose outputs are `names` (constants of `graph`), in their own dtypes.
Subgraph export_constant_outputs(const Graph& graph, const std::vector<std::string>& names,
                                 const std::string& name);

}  // namespace npu::compiler
