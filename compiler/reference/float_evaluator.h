// The compiler's FP32 evaluator of the graph IR (ONNX semantics, NCHW). It calibrates INT8
// quantisation, folds float constants, and checks passes numerically (before vs after).
// Integer and bool values are held as floats (exact up to 2^24); integer Div and Cast truncate
// as ONNX does. Exact int64 shape arithmetic is constant folding's (constant_evaluator.h).
#pragma once
#include <cstdint>
#include <functional>
#include <utility>
#include <map>
#include <string>
#include <vector>

#include "compiler/core/graph.h"
#include "compiler/reference/tensor_kernels.h"

namespace npu::compiler {

using TensorMap = std::map<std::string, FloatTensor>;

// Whether evaluate_node can run this node (its op; attributes are checked when it runs).
bool evaluator_supports(const Node& node);
// The op types it runs, sorted (for messages and tests).
std::vector<std::string> evaluator_ops();

// Runs one node on its inputs (nullptr for absent optional inputs); returns its outputs.
// Throws CompileError naming the node for unsupported ops or attributes.
std::vector<FloatTensor> evaluate_node(const Graph& graph, const Node& node,
                                       const std::vector<const FloatTensor*>& inputs);

// Runs the whole graph. Returns every value computed (graph outputs included), which is what
// calibration reads activation ranges from.
// best_effort: a node the interpreter cannot run (or whose inputs are missing) is skipped and
// its outputs stay absent, instead of throwing.
// constants: from graph_constants(graph), for callers that run the graph many times
// (calibration); the weights are then not copied per run, and the result leaves them out.
TensorMap evaluate_graph(const Graph& graph, const TensorMap& inputs, bool best_effort = false,
                        const TensorMap* constants = nullptr);
TensorMap graph_constants(const Graph& graph);

// What a graph run does with a node the FP32 evaluator cannot run (no kernel, or a case its
// kernel refuses): `elsewhere` may run it instead (calibration: ONNX Runtime, through
// quant/host_node_runner.h), returning its outputs or throwing CompileError with why not; a
// node run by neither, or lacking an input, is reported to `unevaluated` (with the input it
// lacked, "" when it failed itself) and its outputs stay absent.
using NodeRunner =
    std::function<std::vector<FloatTensor>(std::size_t node_index, const std::vector<const FloatTensor*>& inputs)>;
struct UnevaluatedNodes {
  NodeRunner elsewhere;
  std::function<void(std::size_t node_index, const std::string& missing_input, const std::string& why)> unevaluated;
};

// The same run without keeping every value: `visit(name, value)` sees each value as its node
// computes it (graph inputs first), and a value is freed after its last reader. This is what
// calibration uses: a 640x640 detector's activations would otherwise all be held at once.
// Constants are converted to FP32 at their first reader and freed after their last as well, so
// a run holds the weights of the layers in flight, not a second copy of all of them (100 MB
// for ResNet-50, per calibration thread). Constants are not visited.
// Best effort, as above: nodes it cannot run are skipped (see UnevaluatedNodes).
void evaluate_graph_visiting(const Graph& graph, const TensorMap& inputs,
                             const std::function<void(const std::string&, const FloatTensor&)>& visit,
                             const UnevaluatedNodes* unevaluated = nullptr);

// min and max of the values (NaNs ignored); {+inf, -inf} when there are none.
std::pair<float, float> value_range(const std::vector<float>& values);

// Source index of output position `o` for nearest Resize along one axis (ONNX formulas).
// Returns -1 for an unsupported coordinate_transformation_mode.
std::int64_t nearest_source_index(const std::string& coordinate_mode, const std::string& nearest_mode,
                                  std::int64_t o, std::int64_t in_size, std::int64_t out_size);

FloatTensor constant_as_float(const Tensor& t);

// f(x) of a fused activation: "Relu", "Clip" (alpha=min, beta=max), "Sigmoid", "HardSigmoid",
// "HardSwish", "SiLU", "LeakyRelu", "Tanh", "Gelu" (erf), "GeluTanh", "Mish", "Elu", "" (identity).
float apply_activation(const std::string& name, float alpha, float beta, float x);

}  // namespace npu::compiler
