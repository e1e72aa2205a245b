// Mixed precision after layout: where an int8 value meets an fp16 layer, or an fp16 value an
// int8 one, a converter node (domain npusim) changes its element type on the vector unit:
// Dequantize (int8 -> fp16, exact) or Quantize (fp16 -> int8 on the value's calibrated
// parameters). Data movement takes fp16 when any of its inputs is fp16 (the rule of
// resolve_layer_modes, quant_simulation.h) and is marked precision=fp16 like the layers.
// Values the host exchanges with an fp16 layer (graph inputs, CPU outputs) travel as fp16.
// A value's element type is then its quantisation parameters': int8 when it has them.
#pragma once
#include <string>

#include "compiler/core/graph.h"

namespace npu::compiler {

// Runs only on graphs with precision=fp16 nodes; returns the pass summary's detail.
std::string insert_precision_converters(Graph& graph);

// Whether a node is one of the converters (codegen_convert.cpp generates them).
bool is_precision_converter(const Node& node);

}  // namespace npu::compiler
