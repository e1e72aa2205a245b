// Models whose inputs and outputs are int8 (TFLite's full-integer models, QDQ models with int8
// graph inputs or outputs): the DequantizeLinear that reads an int8 graph input, and the
// QuantizeLinear that writes an int8 graph output, left on the CPU by the partition, leave it.
// Where the NPU value holds the same scale and zero point the conversion is the identity and
// goes: the host's int8 bytes go to the NPU as they are (runtime/tensor_conversion.h), and come
// back so. Where they differ (a requantising QuantizeLinear after a QDQ pair, or the output
// value also read elsewhere), the node itself runs on the NPU as an int8 -> int8 table
// (int8_layer_params.h), its graph side holding the file's parameters, the host's bytes int8 too.
#pragma once
#include <string>
#include <vector>

#include "compiler/core/graph.h"
#include "container/compiled_model.h"

namespace npu::compiler {

// A DequantizeLinear of an int8 graph input, or a QuantizeLinear writing a graph output nothing
// else reads: the conversions the pass may take off the CPU (with --strict, an int8 compile
// judges them after it: pipeline.cpp).
bool at_integer_boundary(const Graph& graph, const Node& node);

// After INT8 quantisation, before layout; drops the removed nodes from the model's fallbacks and
// lists the inputs and outputs it made integer in its integer_io. Returns the pass summary's
// detail ("" when nothing changed).
std::string fold_integer_boundary(Graph& graph, container::CompiledModel& model);

}  // namespace npu::compiler
