#include "runtime/precision_times.h"

#include "runtime/engine.h"

namespace npu::runtime {

PrecisionTimes compare_precisions(const container::CompiledModel& mixed, const std::string& onnx_path,
                                  const HardwareConfig& config, const compiler::CompileOptions& options) {
  PrecisionTimes t;
  LoadedModel as_compiled;
  as_compiled.path = onnx_path;
  as_compiled.compiled = std::make_shared<const container::CompiledModel>(mixed);
  as_compiled.declared = std::make_shared<const OnnxModelInfo>(read_onnx_model_file_info(onnx_path));
  t.mixed_us = Engine(as_compiled, config).run(timing_only_run()).record.latency_us();

  compiler::CompileOptions int8 = options;
  int8.precision = container::Precision::Int8;
  int8.quant.mixed = false;
  int8.quant.keep_fp16.clear();
  int8.explain = false;
  int8.dump_dir.clear();
  t.int8_us = Engine(compile_model(onnx_path, config, int8, as_compiled.declared), config)
                  .run(timing_only_run()).record.latency_us();
  compiler::CompileOptions fp16 = int8;
  fp16.precision = container::Precision::Fp16;
  t.fp16_us = Engine(compile_model(onnx_path, config, fp16, as_compiled.declared), config)
                  .run(timing_only_run()).record.latency_us();
  return t;
}

}  // namespace npu::runtime
