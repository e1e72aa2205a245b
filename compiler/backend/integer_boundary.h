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

// A Quantize/DequantizeLinear this pass put on the NPU between an int16 graph side (held as
// int32 on the NPU) and an int8 value: codegen_convert.cpp generates it in fp32, not as a table.
bool is_int16_boundary_conversion(const Node& node);

// After INT8 quantisation, before layout; drops the removed nodes from the model's fallbacks and
// lists the inputs and outputs it made integer in its integer_io. Returns the pass summary's
// detail ("" when nothing changed).
std::string fold_integer_boundary(Graph& graph, container::CompiledModel& model);

// --strict of an INT8 compile and of quant-report: the conversions this pass takes off the CPU
// are judged after it, so the two commands accept and reject the same models.
// reject_cpu_fallbacks: CompileError naming the first node left on the CPU (after the pass);
// require_npu_after_integer_boundary: the same on a copy of a quantised graph the pass has not
// run on (quant-report simulates the graph with its conversions as they are).
void reject_cpu_fallbacks(const Graph& graph, const std::vector<container::Fallback>& fallbacks);
void require_npu_after_integer_boundary(const Graph& graph, const container::CompiledModel& model);

}  // namespace npu::compiler
