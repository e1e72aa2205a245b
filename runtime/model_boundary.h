// What a compiled model takes and gives at its boundary, in ONNX terms (the model's declared
// shapes in row-major order, with the host layout the program records; the ONNX dtype):
// the descriptors the runtime checks user inputs against and returns outputs as.
#pragma once
#include <vector>

#include "container/compiled_model.h"
#include "runtime/onnx_model_info.h"
#include "runtime/tensor.h"

namespace npu::runtime {

struct ModelBoundary {
  std::vector<TensorDesc> inputs;   // in model.model_inputs order
  std::vector<TensorDesc> outputs;  // in model.model_outputs order
  std::vector<OnnxModelInfo> cpu_steps;  // per step index: a CPU step's declared inputs/outputs
};

// A value read by a CPU step takes that step's ONNX declaration (exact dtype and shape); a
// value only the NPU touches takes the NPU tensor's shape in its host layout, as float32 (the NPU's
// int8/fp16 tensors stand for float values). A value no step touches is left unconstrained.
ModelBoundary model_boundary(const container::CompiledModel& model);

// The original ONNX file's declarations refine that: they give the exact element type (a
// float16 input stays float16) and the exact shape (a scalar stays rank 0), where the
// compiled model only knows what its steps use. Dynamic dims take the compiled shape.
void apply_declared_boundary(ModelBoundary& boundary, const OnnxModelInfo& declared);

// The program's NPU tensor of that name, or nullptr.
const isa::TensorEntry* find_npu_tensor(const isa::Program& program, const std::string& name);

}  // namespace npu::runtime
