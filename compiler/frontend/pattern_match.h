// Helpers the canonicalisation and pattern passes share: who reads a value, constant operands,
// and removing the nodes a rewrite made unused. Internal to compiler/passes.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/core/graph.h"

namespace npu::compiler::patterns {

// Readers of each value (node indices; a graph output counts as one extra use).
class Uses {
 public:
  explicit Uses(const Graph& g);
  int count(const std::string& value) const;
  // The one node reading `value`, or -1 (none, several, or a graph output).
  int sole_reader(const std::string& value) const;
  const std::vector<int>& readers(const std::string& value) const;

 private:
  std::map<std::string, std::vector<int>> readers_;
  std::set<std::string> outputs_;
  std::vector<int> none_;
};

bool is_float_type(int elem_type);
// A float constant with every element equal (a scalar after broadcasting); its value in `v`.
bool uniform_constant(const Graph& g, const std::string& name, float& v);
// Whether any node of `g` is ONNX op `op` (domain ""): the guards passes run under.
bool has_onnx_op(const Graph& g, const std::string& op);
// Index of the producer of `value` if it is op `op` (domain ""), else -1.
int producer_of(const Graph& g, const std::string& value, const std::string& op);
// The non-constant input of a two-input node whose other input is constant; "" otherwise.
std::string variable_operand(const Graph& g, const Node& n, std::string* constant = nullptr);
// The float elements of a constant (ints converted).
std::vector<float> constant_values(const Tensor& t);

// Keeps g.nodes except those marked, in order.
void erase_nodes(Graph& g, const std::set<int>& removed);

}  // namespace npu::compiler::patterns
