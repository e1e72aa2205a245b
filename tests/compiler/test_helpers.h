// Small helpers several compiler tests share.
#pragma once
#include <string>

#include "compiler/core/graph.h"
#include "hwconfig/hardware_config.h"

namespace npu::compiler {

inline HardwareConfig default_config() {
  return load_hardware_config(std::string(NPUSIM_SOURCE_DIR) + "/configs/default.yaml");
}

// How many nodes of `g` have op type `op`.
inline int count_op(const Graph& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.op_type == op;
  return n;
}

}  // namespace npu::compiler
