// The compiler's internal activation ops (domain "npusim": SiLU, Gelu, GeluTanh, Mish; ONNX has
// none of them at opset 17) as ONNX model-local functions, so exported graphs (pass dumps, CPU
// steps) stay runnable in ONNX Runtime and readable in Netron. Internal to the compiler.
#pragma once
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <set>
#include <string>

namespace npu::compiler {

// Whether `op_type` of domain "npusim" is one of these function-backed ops.
bool is_internal_function_op(const std::string& op_type);

// Adds a FunctionProto for each op in `ops` (and the "npusim" opset import) to `model`; the
// bodies use default-domain ops of `opset`.
void add_internal_functions(onnx::ModelProto& model, const std::set<std::string>& ops, std::int64_t opset);

}  // namespace npu::compiler
