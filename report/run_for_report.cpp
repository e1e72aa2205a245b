#include "report/run_for_report.h"

#include "runtime/compiled_model_io.h"
#include "runtime/input_check.h"
#include "runtime/onnx_model_info.h"
#include "runtime/session.h"

namespace npu::report {

namespace {

runtime::RunResult run_with_random_inputs(const container::CompiledModel& model, const HardwareConfig& config,
                                          const std::string& model_path, bool declared, bool functional) {
  runtime::SessionOptions session_options;
  session_options.timing_only = !functional;
  runtime::Session session(model, config, session_options, model_path);
  if (declared) session.declare_boundary(runtime::read_onnx_model_file_info(model_path));
  std::map<std::string, runtime::HostTensor> inputs;
  for (std::size_t i = 0; i < session.inputs().size(); ++i)
    inputs[session.inputs()[i].name] = runtime::random_input(session.inputs()[i], 1 + i);
  return session.run(inputs);
}

}  // namespace

ReportRun run_for_report(const std::string& model_path, const HardwareConfig& config,
                         const compiler::CompileOptions& options, bool functional) {
  bool compiled = false;
  auto model = runtime::load_or_compile(model_path, config, options, &compiled);
  auto result = run_with_random_inputs(model, config, model_path, compiled, functional);
  auto report = build_model_report(model, config, std::move(result.record));
  return {std::move(model), std::move(report)};
}

double simulated_latency_us(const container::CompiledModel& model, const HardwareConfig& config,
                            const std::string& onnx_path) {
  return run_with_random_inputs(model, config, onnx_path, true, false).record.latency_us();
}

}  // namespace npu::report
