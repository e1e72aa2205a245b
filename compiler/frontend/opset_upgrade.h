// Old-opset models (pre-7 broadcast attributes, BatchNormalization-6, Gemm-6, Upsample, Softmax
// before 13, ...) are converted to one canonical opset by ONNX's own version converter, so
// every exporter era lowers the same way and CPU steps are exported at an opset ONNX Runtime
// accepts. Models above the canonical opset keep theirs (the importer reads both forms).
#pragma once
#include <cstdint>
#include <string>

#include "compiler/core/graph.h"

namespace npu::compiler {

// The highest opset Debian's libonnx (1.12) converts to.
constexpr std::int64_t kCanonicalOpset = 17;

// Converts `graph` (shapes known where they can be) to kCanonicalOpset through ONNX's
// version_conversion::ConvertVersion and re-imports it. Returns "" on success, else why the
// converter refused (graph unchanged).
std::string upgrade_opset(Graph& graph);

}  // namespace npu::compiler
