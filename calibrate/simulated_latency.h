// The simulator as the function a fit evaluates: every measured model case compiled once and
// simulated (timing only) on any config. A program stays as compiled until compile() is
// called again: the fit moves timing keys with the programs fixed and recompiles at its result
// to check that the programs it fitted with are the ones the fitted config compiles to (the
// tiler reads some of those keys), as sweeps share one compile across points whose programs
// do not change.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "calibrate/measurements.h"
#include "container/compiled_model.h"
#include "hwconfig/hardware_config.h"
#include "runtime/engine.h"

namespace npu::calibrate {

struct SimulatedCase {
  double latency_us = 0;                   // end to end: NPU + host model
  std::map<std::string, double> layer_us;  // per layer (filled when asked for), by layer name
};

class SimulatedLatency {
 public:
  explicit SimulatedLatency(std::vector<ModelCase> cases);
  const std::vector<ModelCase>& cases() const { return cases_; }

  // Compiles every case for `config`; returns how many programs differ from the ones held
  // before (all of them the first time). Throws one line naming the measurement and the
  // compiler's message when a model does not compile.
  std::size_t compile(const HardwareConfig& config);
  // Simulates case `index` with its held program on `config`, timing-only through the engine
  // (runtime/engine.h), so its latency is `npusim run --timing-only`'s.
  SimulatedCase simulate(std::size_t index, const HardwareConfig& config, bool with_layers = false);

  // The compiled model's layers (names, fused ONNX nodes) for matching measured layer names.
  const container::CompiledModel& compiled(std::size_t index) const { return *programs_.at(index).model.compiled; }

  std::size_t compilations() const { return compilations_; }
  std::size_t simulations() const { return simulations_; }

 private:
  struct Program {
    runtime::LoadedModel model;
    std::size_t fingerprint = 0;
  };
  std::vector<ModelCase> cases_;
  std::vector<std::shared_ptr<const runtime::OnnxModelInfo>> declared_;  // per case, once read
  std::vector<Program> programs_;
  std::size_t compilations_ = 0, simulations_ = 0;
};

}  // namespace npu::calibrate
