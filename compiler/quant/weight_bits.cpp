#include "compiler/quant/weight_bits.h"

namespace npu::compiler {

int weight_bits(const Node& node) { return node.get_int("weight_bits", 8) == 4 ? 4 : 8; }

std::string mark_int4_weights(Graph& graph) {
  int marked = 0;
  for (Node& n : graph.nodes) {
    if (n.op_type != "FusedGemm" || n.device != Node::Device::Npu || n.inputs.size() < 2 ||
        !graph.is_constant(n.inputs[1]))
      continue;
    n.set_int("weight_bits", 4);
    ++marked;
  }
  return std::to_string(marked) + " gemm layer(s) with int4 weights";
}

}  // namespace npu::compiler
