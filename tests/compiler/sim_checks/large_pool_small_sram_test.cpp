// Pooling layers whose full-channel rows do not fit a small scratchpad (ResNet-50's global
// average pool over 7x7x2048 on the 64 KiB tiny-8x8 config) are tiled over channels. The
// program must still compute every value exactly as the INT8 integer reference does, and stay
// close to the FP32 evaluator in FP16.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "compiler/frontend/onnx_io.h"
#include "compiler/pipeline.h"
#include "container/compiled_model.h"
#include "isa/fp16.h"
#include "sim/simulator.h"
#include "tests/compiler/sim_checks/sim_check_helpers.h"
#include "tests/compiler/test_graphs.h"
#include "tests/support/integer_reference.h"

using namespace npu;
using namespace npu::compiler;
using namespace npu::compiler::sim_checks;

namespace {

// The worst error of an FP16 program's output against `want`, relative to 1 + |want|.
float fp16_worst_relative_error(const CompiledModel& m, const HardwareConfig& config, const FloatTensor& x,
                                const std::vector<float>& want) {
  const std::vector<float> got = simulate_fp16(m, config, x);
  REQUIRE(got.size() == want.size());
  float worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]) / (1.0f + std::abs(want[i])));
  return worst;
}

}  // namespace

namespace {

// input [1,32,7,7] -> 1x1 Conv to `channels` -> Relu -> AveragePool 3x3 s1 p1 -> GlobalAveragePool.
// With 2000 channels one 7x7 map is 98000 bytes in int8 (196000 in fp16): neither pool fits
// 64 KiB whole, and 2000 is no multiple of the 64-channel chunk step (a ragged last chunk).
std::string write_model(std::int64_t channels) {
  testing::GraphBuilder b(5);
  auto x = b.input("input", {1, 32, 7, 7});
  b.node("Conv", {x, b.random_constant("w", {channels, 32, 1, 1}, -0.3f, 0.3f),
                  b.random_constant("bias", {channels}, -0.5f, 0.5f)},
         "conv");
  b.node("Relu", {b.out("conv")}, "relu");
  auto& ap = b.node("AveragePool", {b.out("relu")}, "avgpool");
  ap.set_ints("kernel_shape", {3, 3});
  ap.set_ints("pads", {1, 1, 1, 1});
  b.node("GlobalAveragePool", {b.out("avgpool")}, "gap");
  Graph g = b.finish({b.out("gap")});
  std::string path = std::string(NPUSIM_BINARY_DIR) + "/large_pool_" + std::to_string(channels) + ".onnx";
  write_onnx(g, path);
  return path;
}

}  // namespace

TEST_CASE("wide pools on a 64 KiB scratchpad tile over channels: int8 bit-exact, fp16 close",
          "[compiler][sim][int8][pool]") {
  const std::string model = write_model(2000);
  HardwareConfig config = load_hardware_config(config_path("tiny-8x8.yaml"));
  REQUIRE(config.sram.capacity_bytes == 64 * 1024);
  FloatTensor x = testing::random_tensor({1, 32, 7, 7}, 21);

  SECTION("int8: every NPU value equals the integer reference") {
    Int8Compiled compiled = compile_int8(model, config);
    Graph& g = compiled.graph;
    CompiledModel& m = compiled.model;
    sim::DdrImage ddr;
    ddr.place(m.program);
    const isa::TensorEntry& in = entry(m.program, "input");
    auto bytes = quantize_to_nhwc(x, g.tensor("input").quant);
    REQUIRE(bytes.size() == in.size_bytes);
    ddr.write(in.ddr_addr, bytes.data(), bytes.size());
    Int8Values expected = run_integer_reference(g, {{"input", bytes}});
    sim::SimResult r = sim::simulate(m.program, config, ddr);
    CHECK(r.cycles > 0);
    std::size_t pools = 0;
    for (const Node& n : g.nodes) {
      const std::string& value = n.outputs[0];
      const isa::TensorEntry& e = entry(m.program, value);
      const auto& want = expected.at(value);
      REQUIRE(want.size() == e.size_bytes);
      std::vector<std::int8_t> got(want.size());
      ddr.read(e.ddr_addr, got.data(), got.size());
      std::size_t differ = 0, first = 0;
      for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i] && differ++ == 0) first = i;
      INFO("layer '" << n.name << "' (" << n.op_type << "): " << differ << " of " << got.size()
                     << " bytes differ, first at " << first);
      CHECK(differ == 0);
      if (n.op_type == "GlobalAveragePool" || n.op_type == "AveragePool") ++pools;
    }
    CHECK(pools == 2);
  }

  SECTION("fp16: the pooled output is close to the FP32 reference") {
    Graph ref_graph = import_onnx(model);
    auto want = evaluate_graph(ref_graph, {{"input", x}}).at(ref_graph.outputs[0]).data;
    CompileOptions options;
    options.precision = Precision::Fp16;
    CompiledModel m = compile(model, config, options);
    REQUIRE(m.fallbacks.empty());
    const float worst = fp16_worst_relative_error(m, config, x, want);
    INFO("worst relative error " << worst);
    CHECK(worst < 1e-2f);
  }
}

namespace {

// input [1,16,64,64] -> GlobalAveragePool: one channel's 4096 values (4 KiB in int8, 8 KiB in
// fp16) do not fit an 8 KiB scratchpad with their buffers, so each row is reduced in chunks.
std::string write_gap_model() {
  testing::GraphBuilder b(7);
  auto x = b.input("input", {1, 16, 64, 64});
  b.node("GlobalAveragePool", {x}, "gap");
  Graph g = b.finish({b.out("gap")});
  std::string path = std::string(NPUSIM_BINARY_DIR) + "/long_gap.onnx";
  write_onnx(g, path);
  return path;
}

std::int64_t shortest_reduce(const isa::Program& p) {
  std::int64_t shortest = -1;
  for (const auto& in : p.code)
    if (in.opcode == isa::Opcode::Reduce) {
      const auto len = static_cast<std::int64_t>(in.get(isa::Field::length));
      shortest = shortest < 0 ? len : std::min(shortest, len);
    }
  return shortest;
}

}  // namespace

TEST_CASE("a global pool whose rows do not fit reduces each row in chunks: int8 as the reference, fp16 close",
          "[compiler][sim][int8][pool]") {
  const std::string model = write_gap_model();
  HardwareConfig config = load_hardware_config(config_path("tiny-8x8.yaml"));
  config.sram.capacity_bytes = 8 * 1024;
  FloatTensor x = testing::random_tensor({1, 16, 64, 64}, 23);
  Graph ref_graph = import_onnx(model);
  const auto want = evaluate_graph(ref_graph, {{"input", x}}).at(ref_graph.outputs[0]).data;

  SECTION("int8") {
    CompileOptions options;
    options.check_interleave = true;
    Int8Compiled compiled = compile_int8(model, config, options);
    Graph& g = compiled.graph;
    CompiledModel& m = compiled.model;
    CHECK(shortest_reduce(m.program) < 64 * 64);  // chunked
    sim::DdrImage ddr;
    ddr.place(m.program);
    const isa::TensorEntry& in = entry(m.program, "input");
    auto bytes = quantize_to_nhwc(x, g.tensor("input").quant);
    ddr.write(in.ddr_addr, bytes.data(), bytes.size());
    Int8Values expected = run_integer_reference(g, {{"input", bytes}});
    sim::simulate(m.program, config, ddr);
    const std::string& value = g.outputs[0];
    const auto& ref = expected.at(value);
    const isa::TensorEntry& e = entry(m.program, value);
    std::vector<std::int8_t> got(ref.size());
    ddr.read(e.ddr_addr, got.data(), got.size());
    // Chunk means averaged in fp16 round differently from one pass: at most one step apart.
    int worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(int{got[i]} - int{ref[i]}));
    CHECK(worst <= 1);
  }

  SECTION("fp16") {
    CompileOptions options;
    options.precision = Precision::Fp16;
    options.check_interleave = true;
    CompiledModel m = compile(model, config, options);
    REQUIRE(m.fallbacks.empty());
    CHECK(shortest_reduce(m.program) < 64 * 64);
    const float worst = fp16_worst_relative_error(m, config, x, want);
    INFO("worst relative error " << worst);
    CHECK(worst < 2e-3f);
  }
}
