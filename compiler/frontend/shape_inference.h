// Static shapes for the op set we compile (and the common others), on top of whatever ONNX's
// own inference found at import.
#pragma once
#include <cstdint>
#include <vector>

#include "compiler/core/graph.h"

namespace npu::compiler {

// Fills the shape and element type of every node output it can (parameters in either form,
// node_parameters.h); throws CompileError naming the node when inputs are inconsistent (e.g. a
// channel mismatch). Returns how many outputs it set or changed.
int infer_shapes(Graph& graph);

}  // namespace npu::compiler
