#include "report/run_for_report.h"

#include "runtime/compiled_model_io.h"
#include "runtime/input_check.h"
#include "runtime/onnx_model_info.h"
#include "runtime/session.h"

namespace npu::report {

ReportRun run_for_report(const std::string& model_path, const HardwareConfig& config,
                         const compiler::CompileOptions& options, bool functional) {
  bool compiled = false;
  auto model = runtime::load_or_compile(model_path, config, options, &compiled);
  runtime::SessionOptions session_options;
  session_options.timing_only = !functional;
  runtime::Session session(model, config, session_options, model_path);
  if (compiled) session.declare_boundary(runtime::read_onnx_model_file_info(model_path));
  std::map<std::string, runtime::HostTensor> inputs;
  for (std::size_t i = 0; i < session.inputs().size(); ++i)
    inputs[session.inputs()[i].name] = runtime::random_input(session.inputs()[i], 1 + i);
  auto result = session.run(inputs);
  auto report = build_model_report(model, config, std::move(result.record));
  return {std::move(model), std::move(report)};
}

}  // namespace npu::report
