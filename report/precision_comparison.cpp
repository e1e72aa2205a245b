#include "report/precision_comparison.h"

#include <fmt/format.h>

#include "report/run_for_report.h"

namespace npu::report {

PrecisionTimes compare_precisions(const container::CompiledModel& mixed, const std::string& onnx_path,
                                  const HardwareConfig& config, const compiler::CompileOptions& options) {
  PrecisionTimes t;
  t.mixed_us = simulated_latency_us(mixed, config, onnx_path);
  compiler::CompileOptions int8 = options;
  int8.precision = container::Precision::Int8;
  int8.quant.mixed = false;
  int8.quant.keep_fp16.clear();
  int8.explain = false;
  int8.dump_dir.clear();
  t.int8_us = run_for_report(onnx_path, config, int8).report.latency_us();
  compiler::CompileOptions fp16 = int8;
  fp16.precision = container::Precision::Fp16;
  t.fp16_us = run_for_report(onnx_path, config, fp16).report.latency_us();
  return t;
}

std::string format_precision_times(const PrecisionTimes& t) {
  auto change = [&](double base) { return base > 0 ? fmt::format("{:+.1f} %", 100.0 * (t.mixed_us / base - 1.0)) : "-"; };
  return fmt::format("simulated time: {:.1f} us with the fp16 layers, {:.1f} us all int8 ({} with them), "
                     "{:.1f} us all fp16 ({} with them)\n",
                     t.mixed_us, t.int8_us, change(t.int8_us), t.fp16_us, change(t.fp16_us));
}

}  // namespace npu::report
