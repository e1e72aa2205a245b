// Reading ONNX files into the graph IR and writing (parts of) the IR back as ONNX models:
// the pass dumps (viewable in Netron) and the self-contained CPU fallback steps.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compiler/core/graph.h"

namespace npu::compiler {

// Parses the model, applies `input_shapes` ("name=1x3x224x224"), runs ONNX's own shape
// inference and fills tensor shapes and types. Initializers and Constant nodes become
// constant tensors. Throws CompileError naming the file (and node) on any problem.
// A tensor over `max_tensor_bytes` (as FP32) is an error naming it.
Graph import_onnx(const std::string& path, const std::vector<std::string>& input_shapes = {},
                  std::uint64_t max_tensor_bytes = kDefaultMaxTensorBytes);
Graph import_onnx_bytes(const std::vector<std::uint8_t>& bytes, const std::string& origin,
                        const std::vector<std::string>& input_shapes = {},
                        std::uint64_t max_tensor_bytes = kDefaultMaxTensorBytes);
// The same, freeing `bytes` once parsed (a model file's bytes are not held beside its tensors).
Graph import_onnx_bytes(std::vector<std::uint8_t>&& bytes, const std::string& origin,
                        const std::vector<std::string>& input_shapes = {},
                        std::uint64_t max_tensor_bytes = kDefaultMaxTensorBytes);

// The nodes of a graph attribute (an If's then_branch / else_branch, a Loop's body) ready to go
// into `g`: `bound_inputs` are the values of `g` that stand for the subgraph's inputs, in order;
// its constants (initializers, Constant nodes) are added to `g`, its own values renamed where `g`
// has the name already (`prefix`/name; node names are `prefix`/name too), and `outputs` are the
// values that stand for the subgraph's outputs, in order.
struct InlinedGraph {
  std::vector<Node> nodes;
  std::vector<std::string> outputs;
};
InlinedGraph import_graph_attribute(Graph& g, const Node& owner, const std::string& attribute,
                                    const std::vector<std::string>& bound_inputs, const std::string& prefix);

// Identity nodes that give `values` the names `outputs` (an inlined If, an unrolled Loop or Scan
// keeps its node's output names: later nodes and the graph outputs read them); empty outputs
// are skipped. Named `owner`/`tag`_i.
void rename_to_outputs(const Node& owner, const std::vector<std::string>& values, const std::vector<std::string>& outputs,
                       const std::string& tag, std::vector<Node>& nodes);

// How many nodes a graph attribute holds (0: none, or not a graph).
std::int64_t graph_attribute_nodes(const Node& owner, const std::string& attribute);

// Whether a Loop's body hands back its condition input unchanged or a constant true: then the
// loop runs exactly its trip count and may be unrolled.
bool loop_body_condition_stays_true(const Node& loop);

// A serialized onnx::TensorProto file (the node tests' test_data_set_*/input_0.pb) as a
// constant tensor; throws CompileError naming the file.
Tensor read_tensor_pb(const std::string& path);

// "name=1x3x224x224" (--input-shape) as (name, dims); throws CompileError naming `origin` and
// the spec when it is not of that form or a dim is not a positive integer.
std::pair<std::string, std::vector<std::int64_t>> parse_input_shape(const std::string& spec, const std::string& origin);

// `sub` as a graph attribute named `name` (an If branch, a Loop body), the form
// import_graph_attribute reads. Without `with_inputs` the graph lists no inputs: an If branch
// reads the enclosing graph's values by name.
Attribute graph_attribute(const std::string& name, const Graph& sub, bool with_inputs);

// The whole graph as a serialized ModelProto. Fused layers appear as ops of domain "npusim".
std::vector<std::uint8_t> export_onnx(const Graph& graph);
void write_onnx(const Graph& graph, const std::string& path);

// A self-contained FP32 model of `node_indices` (in graph order): its inputs are the values it
// consumes from outside, its outputs the values used outside (or graph outputs), its
// initializers the constants it reads.
struct Subgraph {
  std::vector<std::uint8_t> onnx_model;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};
Subgraph export_subgraph(const Graph& graph, const std::vector<int>& node_indices,
                         const std::string& name);

}  // namespace npu::compiler
