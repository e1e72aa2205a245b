// Values a node reads from the enclosing graph through its subgraph attributes (Loop/If/Scan
// bodies name outer-scope values directly, without declaring them as inputs).
#pragma once
#include <string>
#include <vector>

#include "compiler/core/graph.h"

namespace npu::compiler {

// Outer-scope names referenced inside `node`'s GRAPH/GRAPHS attributes (recursively), in
// first-use order; empty for nodes without subgraphs.
std::vector<std::string> captured_values(const Node& node);

// node.inputs (non-empty ones) followed by captured_values(node): everything the node reads.
std::vector<std::string> values_read(const Node& node);

}  // namespace npu::compiler
