#include "runtime/engine.h"

#include <fmt/format.h>

namespace npu::runtime {

LoadedModel compile_model(const std::string& path, const HardwareConfig& config, const compiler::CompileOptions& options,
                          std::shared_ptr<const OnnxModelInfo> declared) {
  bool from_onnx = false;
  LoadedModel model;
  model.path = path;
  model.compiled = std::make_shared<const container::CompiledModel>(load_or_compile(path, config, options, &from_onnx));
  if (from_onnx) model.declared = declared ? std::move(declared) : std::make_shared<const OnnxModelInfo>(read_onnx_model_file_info(path));
  return model;
}

Engine::Engine(LoadedModel model, HardwareConfig config, PlaceOptions place)
    : model_(std::move(model)), config_(std::move(config)), place_(std::move(place)) {}

Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

Session& Engine::session(bool timing_only, bool record_trace) {
  auto& s = sessions_[timing_only][record_trace];
  if (!s) {
    SessionOptions options;
    options.device = place_.device;
    options.timing_only = timing_only;
    options.record_trace = record_trace;
    options.input_misalignment_bytes = place_.input_misalignment_bytes;
    s = std::make_unique<Session>(*model_.compiled, config_, options, model_.path);
    if (model_.declared) s->declare_boundary(*model_.declared);
  }
  return *s;
}

// Every session of the model has the same boundary; a functional one is built only when none is.
Session& Engine::any_session() {
  for (auto& by_trace : sessions_)
    for (auto& s : by_trace)
      if (s) return *s;
  return session(false, false);
}

const std::vector<TensorDesc>& Engine::inputs() { return any_session().inputs(); }
const std::vector<TensorDesc>& Engine::outputs() { return any_session().outputs(); }

RunResult Engine::run(const RunRequest& request) {
  Session& s = session(request.timing_only, request.record_trace);
  std::vector<std::string> notes;
  const bool noting = static_cast<bool>(request.notes.how_to_give);
  const std::map<std::string, HostTensor>* inputs = &request.inputs;
  std::map<std::string, HostTensor> generated;
  if (request.inputs.empty()) {
    generated = generate_inputs(s.inputs(), request.seed);
    inputs = &generated;
    if (noting)
      for (std::size_t i = 0; i < s.inputs().size(); ++i) {
        const auto& desc = s.inputs()[i];
        notes.push_back(fmt::format("input {}: random {} (seed {}; {})", desc.name, describe(desc), request.seed + i,
                                    request.notes.how_to_give(desc.name)));
      }
  } else if (noting) {
    for (const auto& entry : request.inputs) {
      const auto file = request.input_files.find(entry.first);
      notes.push_back(fmt::format("input {}: from {}", entry.first,
                                  file == request.input_files.end() ? request.notes.given_from : file->second));
    }
  }
  auto result = s.run(*inputs, request.input_files);
  result.record.notes.insert(result.record.notes.begin(), notes.begin(), notes.end());
  return result;
}

StreamResult Engine::stream(const StreamOptions& options, std::uint64_t seed, bool record_trace) {
  Session& s = session(true, record_trace);
  return run_stream(s, generate_inputs(s.inputs(), seed), options);
}

ModelRun compile_and_run(const std::string& path, const HardwareConfig& config, const compiler::CompileOptions& options,
                         RunRequest request) {
  ModelRun out;
  Engine engine(compile_model(path, config, options), config);
  out.result = engine.run(request);
  out.model = engine.model();
  return out;
}

}  // namespace npu::runtime
