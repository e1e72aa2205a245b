// Parameters that ONNX passes as constant tensor inputs (Slice starts, Reshape shape, Split
// sizes, Clip bounds, Resize scales, Reduce/Squeeze axes, ...). In the compiler's IR they are
// attributes once known: the canonical form every pass after the static-shape front end reads,
// whatever the model's opset put them in. Export writes them back in the form its opset wants.
//
// The canonical attribute per op (IR name = ONNX's attribute name where ONNX ever had one):
//   Split: split (ints)             Slice: starts, ends, axes, steps (ints)
//   Pad: pads (ints, full rank), value (float)   Resize/Upsample: scales (floats), sizes (ints)
//   Reshape: shape (ints)           Expand: shape (ints)        Tile: repeats (ints)
//   Clip: min, max (floats)         TopK: k (int)
//   Reduce*: axes (ints)            Squeeze/Unsqueeze: axes (ints)
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/core/graph.h"
#include "compiler/core/tensor_data.h"

namespace npu::compiler {

// Moves every parameter input of `node` that is a constant into its attribute (dropping the
// input; trailing empty inputs are trimmed). Returns how many moved. A parameter whose input is
// computed stays an input. Resize's roi is dropped unless the mode reads it.
int parameters_to_attributes(Graph& graph, Node& node);

// The node in the ONNX form of `opset`: parameter attributes that this opset takes as inputs
// become inputs (Clip bounds and Pad's value in the data's type), whose constant tensors are appended to `constants` (named by `unique_name`).
Node parameters_to_inputs(const Graph& graph, const Node& node, std::int64_t opset, std::vector<Tensor>& constants,
                          const std::function<std::string(const std::string&)>& unique_name);

// Reads a parameter in whichever form the node has it: the attribute, else the constant input
// (exact int64), else the evaluated input in `inputs` (a node being evaluated). false: absent.
bool parameter_ints(const Graph& graph, const Node& node, const std::string& name, std::vector<std::int64_t>& out,
                    const std::vector<const FloatTensor*>* inputs = nullptr);
bool parameter_floats(const Graph& graph, const Node& node, const std::string& name, std::vector<float>& out,
                      const std::vector<const FloatTensor*>* inputs = nullptr);
// The input index that carries parameter `name` of node's op at `opset`, or -1.
int parameter_input(const std::string& op_type, const std::string& name, std::int64_t opset);

}  // namespace npu::compiler
