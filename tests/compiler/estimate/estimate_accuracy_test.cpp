// The compiler's cost model against the simulator: every NPU layer of the bundled model and of
// the generated CNNs (64x64 inputs, to keep the suite fast) on every preset, estimated by
// costmodel/program_estimate (what the compiler records as LayerRecord::estimated_cycles) and
// simulated; each layer's span (first instruction start to last end) must agree within 10 %.
// Layers shorter than kTinyCycles are held to an absolute bound instead: their span is a few
// instruction latencies, where one dispatch cycle more or less is already several percent.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

#include "compiler/compile.h"
#include "container/compiled_model.h"
#include "costmodel/program_estimate.h"
#include "sim/simulator.h"
#include "tests/compiler/sim_checks/sim_check_helpers.h"

using namespace npu;
using namespace npu::compiler;
using namespace npu::compiler::sim_checks;

namespace {

constexpr double kTolerance = 0.10;
// The step as a whole on the presets the schedule targets: what the compiler's interleaving
// and residency decisions compare.
constexpr double kStepTolerance = 0.03;
constexpr double kTinyCycles = 2000;

struct Span {
  double start = std::numeric_limits<double>::max(), end = 0;
  bool any() const { return end > 0 || start == 0; }
  double cycles() const { return end > start ? end - start : 0; }
};

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(std::string(NPUSIM_SOURCE_DIR) + "/configs"))
    if (e.path().extension() == ".yaml") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Simulated and estimated spans of every NPU layer; returns the worst relative error.
void check_model(const std::string& model, const std::string& config_name, bool layers_checked, double& worst,
                 std::string& worst_at) {
  HardwareConfig config = load_hardware_config(config_path(config_name));
  CompileOptions options;
  options.precision = Precision::Int8;
  CompiledModel m = compile(model, config, options);
  for (const auto& step : m.steps) {
    if (step.kind != container::Step::Kind::Npu) continue;
    const auto& s = step.npu;
    isa::Program program;
    program.code.assign(m.program.code.begin() + s.first_instruction, m.program.code.begin() + s.end_instruction);
    sim::DdrImage ddr;
    ddr.place(m.program);
    sim::SimOptions opts;
    opts.timing_only = true;
    sim::SimResult r = sim::simulate(program, config, ddr, opts);
    cost::ProgramEstimate est = cost::estimate_program(m.program.code, s.first_instruction, s.end_instruction, config);
    for (const auto& layer : m.layers) {
      if (layer.device != "npu" || layer.first_instruction < s.first_instruction || layer.end_instruction > s.end_instruction)
        continue;
      Span simulated, estimated;
      for (const std::uint32_t i : container::owned_instructions(layer, m.program.code.size())) {
        if (m.program.code[i].unit() == isa::Unit::Control) continue;
        const auto& t = r.instructions.at(i - s.first_instruction);
        const auto& e = est.instructions.at(i - s.first_instruction);
        simulated.start = std::min(simulated.start, static_cast<double>(t.start_cycle));
        simulated.end = std::max(simulated.end, static_cast<double>(t.end_cycle));
        estimated.start = std::min(estimated.start, e.start_cycle);
        estimated.end = std::max(estimated.end, e.end_cycle);
      }
      if (!simulated.any()) continue;
      if (const char* dump = std::getenv("NPUSIM_ESTIMATE_DUMP"); dump && layer.name == dump)
        for (std::uint32_t i = layer.first_instruction; i < layer.end_instruction && i < layer.first_instruction + 60; ++i) {
          const auto& t = r.instructions.at(i - s.first_instruction);
          const auto& e = est.instructions.at(i - s.first_instruction);
          const auto& in = m.program.code[i];
          std::printf("%u %s pop %d push %d sim %llu..%llu est %.0f..%.0f len %lld x %lld x %lld\n", i,
                      std::string(isa::opcode_info(in.opcode).mnemonic).c_str(), in.pop, in.push,
                      (unsigned long long)t.start_cycle, (unsigned long long)t.end_cycle, e.start_cycle, e.end_cycle,
                      in.unit() == isa::Unit::Load || in.unit() == isa::Unit::Store ? (long long)in.get(isa::Field::len0) : 0LL,
                      in.unit() == isa::Unit::Load || in.unit() == isa::Unit::Store ? (long long)in.get(isa::Field::count1) : 0LL,
                      in.unit() == isa::Unit::Load || in.unit() == isa::Unit::Store ? (long long)in.get(isa::Field::count2) : 0LL);
        }
      const double sim_cycles = simulated.cycles(), est_cycles = estimated.cycles();
      const double error = std::abs(est_cycles - sim_cycles) / std::max(sim_cycles, kTinyCycles);
      INFO(model << " on " << config_name << ": layer " << layer.name << " simulated " << sim_cycles << " estimated "
                 << est_cycles);
      if (layers_checked) CHECK(error <= kTolerance);
      if (layers_checked && error > worst) {
        worst = error;
        worst_at = layer.name + " (" + model + ", " + config_name + ")";
      }
    }
    const double error = std::abs(est.cycles - static_cast<double>(r.cycles)) / static_cast<double>(r.cycles);
    INFO(model << " on " << config_name << ": step simulated " << r.cycles << " estimated " << est.cycles);
    CHECK(error <= (layers_checked ? kTolerance : kStepTolerance));
  }
}

}  // namespace

// Where the 10 % per layer holds today: the ideal presets (ideal DDR). On the two presets the
// schedule targets (issue 10), default.yaml and npu-40tops-55gbps.yaml, the whole step is held
// to 3 % (measured 2026-12-02: at most 1.4 % on these 64x64 models, under 1 % on the 224x224
// ones): layers there interleave (compiler/backend/layer_interleave.h), so a layer's span starts at its
// first moved load, and on these small models some spans are off by up to ~30 %. Elsewhere the
// banked and DRAM models' row effects, tiny-8x8's 64 KiB and igpu-like's bandwidth are
// approximated. Run the whole matrix per layer with NPUSIM_ESTIMATE_ALL=1 (it fails) to see
// each layer.
bool layers_checked(const std::string& name) { return std::getenv("NPUSIM_ESTIMATE_ALL") || name.rfind("ideal-", 0) == 0; }
bool step_checked(const std::string& name) {
  return layers_checked(name) || name == "default.yaml" || name == "npu-40tops-55gbps.yaml";
}

TEST_CASE("estimated layer cycles are within 10% of the simulated ones on the ideal presets, the step within 3% on default and npu-40tops-55gbps", "[compiler][sim][costmodel]") {
  std::vector<std::string> models = {std::string(NPUSIM_SOURCE_DIR) + "/models/tiny_convnet.onnx"};
#ifdef NPUSIM_SMALL_MODELS_DIR
  for (const char* name : {"resnet18", "resnet50", "mobilenetv2", "yolo_style"}) {
    std::string path = std::string(NPUSIM_SMALL_MODELS_DIR) + "/" + name + ".onnx";
    if (std::ifstream(path)) models.push_back(path);
    else WARN(path << " missing (generated at build time by scripts/make_models.py): not checked");
  }
#endif
  double worst = 0;
  std::string worst_at;
  const char* only_config = std::getenv("NPUSIM_ESTIMATE_CONFIG");
  const char* only_model = std::getenv("NPUSIM_ESTIMATE_MODEL");
  for (const auto& config : preset_names())
    for (const auto& model : models) {
      if (!step_checked(config)) continue;
      if (only_config && config.find(only_config) == std::string::npos) continue;
      if (only_model && model.find(only_model) == std::string::npos) continue;
      check_model(model, config, layers_checked(config), worst, worst_at);
    }
  WARN("worst layer error " << 100 * worst << "% at " << worst_at);
}
