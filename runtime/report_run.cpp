#include "report_run.h"

#include "compiled_model_io.h"
#include "input_check.h"
#include "onnx_model_info.h"
#include "session.h"

namespace npu::runtime {

ReportRun run_for_report(const std::string& model_path, const HardwareConfig& config,
                         const compiler::CompileOptions& options, bool functional) {
  bool compiled = false;
  auto model = load_or_compile(model_path, config, options, &compiled);
  SessionOptions session_options;
  session_options.timing_only = !functional;
  Session session(model, config, session_options, model_path);
  if (compiled) session.declare_boundary(read_onnx_model_file_info(model_path));
  std::map<std::string, HostTensor> inputs;
  for (std::size_t i = 0; i < session.inputs().size(); ++i)
    inputs[session.inputs()[i].name] = random_input(session.inputs()[i], 1 + i);
  auto result = session.run(inputs);
  return {std::move(model), std::move(result.report)};
}

}  // namespace npu::runtime
