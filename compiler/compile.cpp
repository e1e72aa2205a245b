// compile(): the whole pipeline from an ONNX file to a program plus execution plan.
#include "compiler/compile.h"

#include "compiler/lowering_cache.h"
#include "compiler/pipeline.h"

namespace npu::compiler {

CompiledModel compile(const std::string& onnx_path, const HardwareConfig& config,
                      const CompileOptions& options) {
  const auto lowered = lower_with_cache(onnx_path, options, &config);
  CompiledModel model = lowered->model;
  generate_code(lowered->graph, config, options, model, &lowered->int8_params);
  return model;
}

}  // namespace npu::compiler
