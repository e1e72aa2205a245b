// The FP32 evaluator's kernels, one table per file (elementwise, neural-network layers, tensor
// movement); float_evaluator.cpp dispatches on op type. Internal to the compiler.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/reference/float_evaluator.h"

namespace npu::compiler {

// One node being evaluated: its graph, its inputs (nullptr for absent optional ones).
struct EvalNode {
  const Graph& graph;
  const Node& node;
  const std::vector<const FloatTensor*>& inputs;

  const FloatTensor& need(std::size_t i) const;
  const FloatTensor* optional(std::size_t i) const {
    return i < inputs.size() ? inputs[i] : nullptr;
  }
  [[noreturn]] void fail(const std::string& what) const;
  // A parameter (node_parameters.h) in whichever form the node carries it.
  bool ints(const std::string& name, std::vector<std::int64_t>& out) const;
  bool floats(const std::string& name, std::vector<float>& out) const;
  // Element type of output `o` in the graph (kFloat when unknown).
  int output_type(std::size_t o = 0) const;
  bool wants_output(std::size_t o) const {
    return o < node.outputs.size() && !node.outputs[o].empty();
  }
  // An input holding indices or a condition, as int64.
  IntTensor as_ints(std::size_t i) const;
};

using FloatOutputs = std::vector<FloatTensor>;
// A kernel's results moved into its FloatOutputs: `return {std::move(y)};` builds the vector from
// an initializer list, whose elements are const, and so copies every output tensor.
template <typename... T>
FloatOutputs outputs(T&&... tensors) {
  FloatOutputs out;
  out.reserve(sizeof...(T));
  (out.push_back(std::forward<T>(tensors)), ...);
  return out;
}
using FloatKernel = FloatOutputs (*)(const EvalNode&);
using KernelTable = std::map<std::string, FloatKernel>;

void add_elementwise_kernels(KernelTable& table);
void add_reduction_kernels(KernelTable& table);
void add_layer_kernels(KernelTable& table);
void add_tensor_kernels(KernelTable& table);

bool is_integer_elem_type(int elem_type);

// A fused activation resolved once per node (apply_activation compares strings per call).
struct ActivationFn {
  enum class Kind { Identity, Relu, Clip, Sigmoid, HardSigmoid, HardSwish, SiLU, LeakyRelu, Tanh, Gelu, GeluTanh,
                    Mish, Elu } kind = Kind::Identity;
  float alpha = 0.0f, beta = 0.0f;
  float operator()(float x) const;
  // f over a whole buffer: one switch, then a loop the compiler can inline and vectorise.
  void apply(std::vector<float>& values) const;
};
// Throws CompileError for an unknown name.
ActivationFn resolve_activation(const std::string& name, float alpha, float beta);

}  // namespace npu::compiler
