// Convolutions whose smallest tile (one output pixel of one output channel, every input channel)
// does not fit a small scratchpad split the reduction over input-channel slices, accumulating in
// the MAC accumulators and running the epilogue once after the last slice. INT8 must stay
// bit-exact with the integer reference (int32 sums are associative; zero-point padding per
// slice), FP16 close to FP32. The scratchpad: tiny-8x8 cut to 24 KiB.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "compiler/backend/sram_tiling.h"
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

constexpr std::int64_t kC = 1000, kH = 14, kW = 14, kOC = 24;

// input [1,1000,14,14] -> Conv 3x3 pad 1 to 24 channels -> Relu. The 3x3 window of all 1000
// channels is 9000 bytes in int8, and so are one output channel's weights: double-buffered they
// overflow 24 KiB. 1000 is no multiple of the 64-byte slice step (a ragged last slice).
std::string write_model() {
  testing::GraphBuilder b(7);
  auto x = b.input("input", {1, kC, kH, kW});
  auto& conv = b.node("Conv", {x, b.random_constant("w", {kOC, kC, 3, 3}, -0.05f, 0.05f),
                               b.random_constant("bias", {kOC}, -0.5f, 0.5f)},
                      "conv");
  conv.set_ints("kernel_shape", {3, 3});
  conv.set_ints("pads", {1, 1, 1, 1});
  b.node("Relu", {b.out("conv")}, "relu");
  Graph g = b.finish({b.out("relu")});
  std::string path = std::string(NPUSIM_BINARY_DIR) + "/conv_k_split.onnx";
  write_onnx(g, path);
  return path;
}

HardwareConfig small_sram_config() {
  HardwareConfig config = load_hardware_config(config_path("tiny-8x8.yaml"));
  config.sram.capacity_bytes = 24 * 1024;
  return config;
}

}  // namespace

TEST_CASE("the conv tiler splits input channels when nothing fits without", "[compiler][tiling]") {
  HardwareConfig config = small_sram_config();
  ConvShape s;
  s.name = "conv";
  s.h = kH;
  s.w = kW;
  s.c = kC;
  s.oc = kOC;
  s.oh = kH;
  s.ow = kW;
  s.kh = s.kw = 3;
  s.pad_top = 1;
  for (std::int64_t elem : {1, 2}) {
    s.elem = elem;
    TilePlan p = plan_conv_tiles(s, config.sram.capacity_bytes, 64, &config);
    CHECK(p.k_slices > 1);
    CHECK(p.k_slice * p.k_slices >= kC);
    CHECK(p.k_slice * (p.k_slices - 1) < kC);
    CHECK(p.sram.total <= config.sram.capacity_bytes);
    // With room the split is a choice by estimated cycles, never slower than being forced.
    TilePlan roomy = plan_conv_tiles(s, 1u << 20, 64, &config);
    CHECK(roomy.est_cycles <= p.est_cycles);
  }
}

TEST_CASE("convs too wide for a 24 KiB scratchpad split the reduction: int8 bit-exact, fp16 close",
          "[compiler][sim][int8][conv]") {
  const std::string model = write_model();
  HardwareConfig config = small_sram_config();
  FloatTensor x = testing::random_tensor({1, kC, kH, kW}, 23);

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
    std::size_t accumulating = 0;
    for (const auto& in : m.program.code) accumulating += in.opcode == isa::Opcode::Conv && in.get(isa::Field::accumulate);
    CHECK(accumulating > 0);  // the reduction was split
    std::size_t convs = 0;
    for (const Node& n : g.nodes) {
      const std::string& value = n.outputs[0];
      const isa::TensorEntry& e = entry(m.program, value);
      const auto& want = expected.at(value);
      REQUIRE(want.size() == e.size_bytes);
      std::vector<std::int8_t> got(want.size());
      ddr.read(e.ddr_addr, got.data(), got.size());
      std::size_t differ = 0, first = 0, nonzero = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        if (got[i] != want[i] && differ++ == 0) first = i;
        if (want[i] != want[0]) ++nonzero;
      }
      INFO("layer '" << n.name << "' (" << n.op_type << "): " << differ << " of " << got.size()
                     << " bytes differ, first at " << first);
      CHECK(differ == 0);
      CHECK(nonzero > 0);  // not a constant output
      if (n.op_type == "FusedConv") ++convs;
    }
    CHECK(convs == 1);
  }

  SECTION("fp16: the conv output is close to the FP32 reference") {
    Graph ref_graph = import_onnx(model);
    auto want = evaluate_graph(ref_graph, {{"input", x}}).at(ref_graph.outputs[0]).data;
    CompileOptions options;
    options.precision = Precision::Fp16;
    CompiledModel m = compile(model, config, options);
    REQUIRE(m.fallbacks.empty());
    const std::vector<float> got = simulate_fp16(m, config, x);
    REQUIRE(got.size() == want.size());
    // want is NCHW [1, 24, 14, 14]; the NPU output is NHWC.
    float worst = 0, peak = 0;
    for (std::int64_t c = 0; c < kOC; ++c)
      for (std::int64_t h = 0; h < kH; ++h)
        for (std::int64_t w = 0; w < kW; ++w) {
          std::size_t i = static_cast<std::size_t>((h * kW + w) * kOC + c);
          float ref = want[static_cast<std::size_t>((c * kH + h) * kW + w)];
          worst = std::max(worst, std::abs(got[i] - ref) / (1.0f + std::abs(ref)));
          peak = std::max(peak, std::abs(ref));
        }
    INFO("worst relative error " << worst << ", peak " << peak);
    CHECK(peak > 0.1f);
    CHECK(worst < 1e-2f);
  }
}

// ResNet-18's s1b1_a_conv (3x3, pad 1, 64 -> 64 channels at 56x56) on default.yaml cut to 64 KiB:
// one output row with all input channels does not fit, so the tiler slices the reduction; a
// kernel-row slice must keep a real input row in every band (one-row bands at the edges are
// all padding for the outer kernel rows) and the result stays bit-exact.
TEST_CASE("a 56x56x64 3x3 conv compiles on 64 KiB and stays bit-exact", "[compiler][sim][int8][conv]") {
  testing::GraphBuilder b(9);
  auto x = b.input("input", {1, 64, 56, 56});
  auto& conv = b.node("Conv", {x, b.random_constant("w", {64, 64, 3, 3}, -0.05f, 0.05f),
                               b.random_constant("bias", {64}, -0.5f, 0.5f)},
                      "conv");
  conv.set_ints("kernel_shape", {3, 3});
  conv.set_ints("pads", {1, 1, 1, 1});
  b.node("Relu", {b.out("conv")}, "relu");
  Graph g = b.finish({b.out("relu")});
  const std::string path = std::string(NPUSIM_BINARY_DIR) + "/conv_56x56_64k.onnx";
  write_onnx(g, path);
  check_bit_exact(path, "default.yaml", 64);
}
