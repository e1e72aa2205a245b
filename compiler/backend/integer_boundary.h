// Models whose inputs and outputs are int8 (TFLite's full-integer models, QDQ models with int8
// graph inputs): the DequantizeLinear that reads an int8 graph input, and the QuantizeLinear
// that writes an int8 graph output, are the identity on the NPU when the NPU value holds the
// same scale and zero point. Each such conversion, left on the CPU by the partition, goes: the
// host's int8 bytes go to the NPU as they are (runtime/tensor_conversion.h), and come back so.
#pragma once
#include <string>
#include <vector>

#include "compiler/core/graph.h"
#include "container/compiled_model.h"

namespace npu::compiler {

// After INT8 quantisation, before layout; drops the removed nodes from the model's fallbacks and
// lists the inputs and outputs it made integer in its integer_io. Returns the pass summary's
// detail ("" when nothing changed).
std::string fold_integer_boundary(Graph& graph, container::CompiledModel& model);

}  // namespace npu::compiler
