// The compiler's estimate against the simulator: every NPU step of the bundled model and of
// the generated CNNs (64x64 inputs, to keep the suite fast) on every preset. Both run the
// timing core (costmodel/machine), so the exact estimate equals the timing-only simulation
// cycle for cycle, instruction by instruction. The trial estimate, which the compiler's
// schedule search runs thousands of times (the DDR model's streaming approximation,
// costmodel/ddr/ddr_streaming.cpp), is held to kTrialTolerance of the simulation per step.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "container/compiled_model.h"
#include "costmodel/program_estimate.h"
#include "sim/simulator.h"
#include "tests/compiler/sim_checks/sim_check_helpers.h"

using namespace npu;
using namespace npu::compiler;
using namespace npu::compiler::sim_checks;

namespace {

constexpr double kTrialTolerance = 0.10;

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(std::string(NPUSIM_SOURCE_DIR) + "/configs"))
    if (e.path().extension() == ".yaml") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

void check_model(const std::string& model, const std::string& config_name, double& worst_trial, std::string& worst_at) {
  const HardwareConfig config = load_hardware_config(config_path(config_name));
  CompileOptions options;
  options.precision = Precision::Int8;
  const CompiledModel m = compile(model, config, options);
  for (const auto& step : m.steps) {
    if (step.kind != container::Step::Kind::Npu) continue;
    const auto& s = step.npu;
    isa::Program program;
    program.code.assign(m.program.code.begin() + s.first_instruction, m.program.code.begin() + s.end_instruction);
    sim::DdrImage ddr;
    ddr.place(m.program);
    sim::SimOptions opts;
    opts.timing_only = true;
    const sim::SimResult r = sim::simulate(program, config, ddr, opts);
    const cost::ProgramEstimate exact = cost::estimate_program(m.program.code, s.first_instruction, s.end_instruction,
                                                               config, cost::EstimateDetail::exact);
    INFO(model << " on " << config_name << ", step [" << s.first_instruction << ", " << s.end_instruction << ")");
    REQUIRE(exact.cycles == static_cast<double>(r.cycles));
    REQUIRE(exact.instructions.size() == r.instructions.size());
    for (std::size_t i = 0; i < r.instructions.size(); ++i) {
      INFO("instruction " << i);
      REQUIRE(exact.instructions[i].start_cycle == static_cast<double>(r.instructions[i].start_cycle));
      REQUIRE(exact.instructions[i].end_cycle == static_cast<double>(r.instructions[i].end_cycle));
    }
    const double trial = cost::estimate_program(m.program.code, s.first_instruction, s.end_instruction, config).cycles;
    const double error = std::abs(trial - static_cast<double>(r.cycles)) / static_cast<double>(r.cycles);
    INFO("trial estimate " << trial << ", simulated " << r.cycles);
    CHECK(error <= kTrialTolerance);
    if (error > worst_trial) {
      worst_trial = error;
      worst_at = model + " on " + config_name;
    }
  }
}

}  // namespace

TEST_CASE("the exact estimate equals the timing-only simulation instruction for instruction on every preset, the trial estimate is within 10 %", "[compiler][sim][costmodel]") {
  std::vector<std::string> models = {std::string(NPUSIM_SOURCE_DIR) + "/models/tiny_convnet.onnx"};
  for (const char* name : {"resnet18", "resnet50", "mobilenetv2", "yolo_style"}) {
    std::string path = std::string(NPUSIM_SMALL_MODELS_DIR) + "/" + name + ".onnx";
    REQUIRE_MODEL(path);
    models.push_back(path);
  }
  double worst = 0;
  std::string worst_at;
  for (const auto& config : preset_names())
    for (const auto& model : models) check_model(model, config, worst, worst_at);
  WARN("worst trial-estimate error " << 100 * worst << "% at " << worst_at);
}
