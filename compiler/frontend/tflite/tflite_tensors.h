// A TFLite subgraph's tensors decoded from the flatbuffer: names made unique, shapes checked,
// quantisation parameters read, constant data widened to float or int64 (FP16 weights to float,
// sparse weights densified through their SparsityParameters). A tensor over `max_tensor_bytes`
// as FP32 is an error naming it, found before anything is allocated for it. `dynamic_size` >= 0:
// every dim the tensor's shape_signature leaves dynamic (-1) takes that size (--input-shape).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/frontend/tflite/tflite_builder.h"
#include "compiler/frontend/tflite/tflite_schema_generated.h"  // flatc, at build time

namespace npu::compiler::tflite_import {

std::vector<TensorInfo> read_tensors(const std::vector<std::uint8_t>& file, const tflite::Model& model,
                                     const tflite::SubGraph& subgraph, const std::string& origin, std::uint64_t max_tensor_bytes,
                                     std::int64_t dynamic_size = -1);

}  // namespace npu::compiler::tflite_import
