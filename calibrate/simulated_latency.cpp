#include "calibrate/simulated_latency.h"

#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "compiler/compile.h"
#include "isa/program.h"
#include "report/model_report.h"
#include "runtime/onnx_model_info.h"

namespace npu::calibrate {

namespace {

std::size_t fingerprint(const isa::Program& program) {
  const auto bytes = isa::serialize(program);
  return std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

compiler::CompileOptions compile_options(const ModelCase& c) {
  compiler::CompileOptions options;
  options.precision = container::parse_precision(c.precision);
  if (!c.input_shape.empty()) {
    std::string shape = c.input_shape;
    if (shape.find('=') == std::string::npos) {
      const auto info = runtime::read_onnx_model_file_info(c.model_path);
      if (info.inputs.size() != 1)
        throw std::runtime_error(fmt::format("{}: {} has {} inputs: write input_shape as NAME=1x3x224x224",
                                             c.origins.empty() ? c.model_path : c.origins.front(), c.model_path,
                                             info.inputs.size()));
      shape = info.inputs.front().name + "=" + shape;
    }
    options.input_shapes.push_back(shape);
  }
  return options;
}

}  // namespace

SimulatedLatency::SimulatedLatency(std::vector<ModelCase> cases)
    : cases_(std::move(cases)), declared_(cases_.size()) {}

std::size_t SimulatedLatency::compile(const HardwareConfig& config) {
  std::vector<Program> programs;
  std::size_t changed = 0;
  for (std::size_t i = 0; i < cases_.size(); ++i) {
    const auto& c = cases_[i];
    const std::string where = c.origins.empty() ? c.model_path : c.origins.front();
    Program p;
    try {
      p.model = runtime::compile_model(c.model_path, config, compile_options(c), declared_[i]);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}: model {} does not compile for {}: {}", where, c.model_path, config.name,
                                           e.what()));
    }
    ++compilations_;
    declared_[i] = p.model.declared;  // read once per case: it parses every weight of the file
    p.fingerprint = fingerprint(p.model.compiled->program);
    if (programs_.size() != cases_.size() || programs_[i].fingerprint != p.fingerprint) ++changed;
    programs.push_back(std::move(p));
  }
  programs_ = std::move(programs);
  return changed;
}

SimulatedCase SimulatedLatency::simulate(std::size_t index, const HardwareConfig& config, bool with_layers) {
  // As `npusim run --timing-only` runs it: the same engine, inputs from the default seed.
  const auto& model = programs_.at(index).model;
  auto run = runtime::Engine(model, config).run(runtime::timing_only_run());
  ++simulations_;
  SimulatedCase out;
  out.latency_us = run.record.latency_us();
  if (with_layers) {
    const auto report = report::build_model_report(*model.compiled, config, std::move(run.record));
    for (const auto& l : report.layers)
      out.layer_us[l.name] = l.device == "npu" ? static_cast<double>(l.cycles) / config.clock.frequency_mhz : l.host_us;
  }
  return out;
}

}  // namespace npu::calibrate
