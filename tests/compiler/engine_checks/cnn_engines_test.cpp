// Programs for several engines (engines.count > 1, layers split across them by output rows or
// output channels, syncs between them) compute what one engine computes on the 64x64 CNNs: INT8
// every value the NPU writes equals the integer reference bit for bit, FP16 the model output
// stays within fp16 rounding of the one-engine program's. (The tiny model's case, which the
// sanitizer stage runs, is tests/compiler/sim_checks/int8_engines_test.cpp.)
#include <catch2/catch.hpp>
#include <cmath>

#include "compiler/compile.h"
#include "container/compiled_model.h"
#include "sim/simulator.h"
#include "tests/compiler/sim_checks/sim_check_helpers.h"
#include "tests/compiler/test_graphs.h"

using namespace npu;
using namespace npu::compiler;
using namespace npu::compiler::sim_checks;

namespace {

const char* kSmallCnns[] = {"resnet18", "mobilenetv2", "yolo_style"};

std::string small_model(const char* name) { return std::string(NPUSIM_SMALL_MODELS_DIR) + "/" + name + ".onnx"; }

// How many layers of the compiled model run on more than one engine, and how many syncs it has.
struct SplitCounts {
  int split_layers = 0, syncs = 0;
};
SplitCounts split_counts(const CompiledModel& m) {
  SplitCounts c;
  for (const auto& l : m.layers) c.split_layers += l.mapping.find(" engines by ") != std::string::npos ? 1 : 0;
  for (const auto& in : m.program.code) c.syncs += in.opcode == isa::Opcode::Sync ? 1 : 0;
  return c;
}

CompiledModel compile_on(const std::string& model, int engines, Precision precision, EngineSplitMode split) {
  HardwareConfig config = load_hardware_config(config_path("default.yaml"));
  config.engines.count = engines;
  CompileOptions o;
  o.precision = precision;
  o.engine_split = split;
  return compile(model, config, o);
}

}  // namespace

TEST_CASE("int8 CNNs at 64x64 on 2 and 4 engines: bit for bit", "[compiler][sim][int8][engines]") {
  for (const char* name : kSmallCnns) {
    REQUIRE_MODEL(small_model(name));
    for (int engines : {2, 4}) check_bit_exact(small_model(name), "default.yaml", BitExactSetup{0, engines});
  }
}

TEST_CASE("int8 CNNs at 64x64 on 4 engines, every layer split by rows or by channels: bit for bit",
          "[compiler][sim][int8][engines]") {
  for (const char* name : kSmallCnns) {
    REQUIRE_MODEL(small_model(name));
    for (EngineSplitMode split : {EngineSplitMode::Rows, EngineSplitMode::Channels})
      check_bit_exact(small_model(name), "default.yaml", BitExactSetup{0, 4, split});
  }
}

// A 64 KiB scratchpad per engine: the parts tile down to reduction slices and still agree.
TEST_CASE("int8 CNNs at 64x64 on 4 engines with 64 KiB each: bit for bit", "[compiler][sim][int8][engines][tiling]") {
  for (const char* name : kSmallCnns) {
    REQUIRE_MODEL(small_model(name));
    check_bit_exact(small_model(name), "default.yaml", BitExactSetup{64, 4, EngineSplitMode::Rows});
  }
}

TEST_CASE("forced splits split every conv layer and meet at syncs", "[compiler][engines]") {
  REQUIRE_MODEL(small_model("resnet18"));
  const CompiledModel rows = compile_on(small_model("resnet18"), 4, Precision::Int8, EngineSplitMode::Rows);
  const CompiledModel none = compile_on(small_model("resnet18"), 4, Precision::Int8, EngineSplitMode::None);
  int convs = 0, pools = 0;
  for (const auto& l : rows.layers) {
    convs += l.op.rfind("Conv", 0) == 0 || l.op.rfind("Gemm", 0) == 0 ? 1 : 0;
    pools += l.op == "MaxPool" || l.op == "AveragePool" ? 1 : 0;
  }
  // Every conv and pool splits by rows but the fc (one row: M = 1).
  CHECK(pools > 0);
  CHECK(split_counts(rows).split_layers == convs + pools - 1);
  CHECK(split_counts(rows).syncs > 0);
  CHECK(split_counts(none).split_layers == 0);
  CHECK(split_counts(none).syncs == 0);
  for (const auto& step : rows.steps)
    if (step.kind == container::Step::Kind::Npu) CHECK(step.npu.engine_starts.size() == 4);
}

TEST_CASE("fp16 on 4 engines: the output within fp16 rounding of one engine's", "[compiler][sim][fp16][engines]") {
  for (const char* name : kSmallCnns) {
    INFO(name);
    REQUIRE_MODEL(small_model(name));
    std::vector<std::vector<float>> outputs;
    for (int engines : {1, 4}) {
      // One split rule, not Auto's five candidate programs: what is checked is the fp16
      // arithmetic of split layers (the int8 tests above take Auto's choice).
      const CompiledModel m = compile_on(small_model(name), engines, Precision::Fp16, EngineSplitMode::LayerPrice);
      if (engines > 1) CHECK(split_counts(m).split_layers > 0);
      HardwareConfig config = load_hardware_config(config_path("default.yaml"));
      config.engines.count = engines;
      outputs.push_back(simulate_fp16(m, config, testing::random_tensor({1, 3, 64, 64}, 5)));
    }
    REQUIRE(outputs[0].size() == outputs[1].size());
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < outputs[0].size(); ++i) {
      worst = std::max(worst, std::fabs(static_cast<double>(outputs[0][i]) - outputs[1][i]));
      scale = std::max(scale, std::fabs(static_cast<double>(outputs[0][i])));
    }
    // A split reduction may add in another order: a few fp16 steps of the largest output at most.
    CHECK(worst <= scale * 4e-3);
  }
}
