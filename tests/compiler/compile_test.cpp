#include <catch2/catch.hpp>
#include <filesystem>

#include "compiler/pipeline.h"
#include "container/compiled_model.h"
#include "tests/compiler/test_helpers.h"

using namespace npu;
using namespace npu::compiler;

namespace {

const std::string kTinyModel = std::string(NPUSIM_SOURCE_DIR) + "/models/tiny_convnet.onnx";

}  // namespace

TEST_CASE("the tiny model compiles to one NPU step ending in halt", "[compiler][codegen]") {
  for (Precision p : {Precision::Int8, Precision::Fp16}) {
    CompileOptions o;
    o.precision = p;
    CompiledModel m = compile(kTinyModel, default_config(), o);
    REQUIRE(m.steps.size() == 1);
    CHECK(m.steps[0].kind == Step::Kind::Npu);
    CHECK(m.fallbacks.empty());
    CHECK(m.npu_cpu_transitions == 0);
    const auto& s = m.steps[0].npu;
    REQUIRE(s.end_instruction == m.program.code.size());
    CHECK(m.program.code.back().opcode == isa::Opcode::Halt);
    CHECK(s.inputs == std::vector<std::string>{"input"});
    CHECK(s.outputs == m.model_outputs);
    // conv x3 (with BN and ReLU fused), maxpool, gap, flatten, gemm
    REQUIRE(m.layers.size() == 7);
    CHECK(m.layers[0].op == "Conv+Relu");
    CHECK(m.layers[0].macs == 32 * 32 * 8 * 27);
    CHECK(m.layers[0].fused_nodes.size() == 3);
    if (p == Precision::Int8) {
      CHECK(m.warnings.size() == 1);
      for (const auto& t : m.program.tensors) CHECK(t.scale > 0);
    }
    for (const auto& t : m.program.tensors)
      if (t.name == "input") {
        CHECK(t.layout == "NHWC");
        CHECK(t.shape == std::vector<std::int64_t>{1, 32, 32, 3});
        CHECK(t.role == isa::TensorRole::Input);
      }
  }
}

TEST_CASE("the plan survives save and load", "[compiler][plan]") {
  CompileOptions o;
  o.precision = Precision::Fp16;
  CompiledModel m = compile(kTinyModel, default_config(), o);
  // An interleaved layer's runs travel with it.
  auto& first = m.layers[0];
  REQUIRE(first.end_instruction >= first.first_instruction + 3);
  first.runs = {{first.first_instruction, first.first_instruction + 1}, {first.first_instruction + 2, first.end_instruction}};
  container::attach_plan(m);
  auto path = std::filesystem::temp_directory_path() / "npusim_tiny_test.npuprog";
  isa::save_program(m.program, path.string());
  CompiledModel back = container::load_compiled(path.string());
  CHECK(back.precision == Precision::Fp16);
  CHECK(back.steps.size() == m.steps.size());
  CHECK(back.layers.size() == m.layers.size());
  CHECK(back.layers[0].name == m.layers[0].name);
  REQUIRE(back.layers[0].runs.size() == 2);
  CHECK(back.layers[0].runs[1].first == first.first_instruction + 2);
  CHECK(back.layers[0].runs[1].end == first.end_instruction);
  CHECK(back.passes.size() == m.passes.size());
  CHECK(back.model_inputs == m.model_inputs);
  CHECK(back.program.code.size() == m.program.code.size());
  // a corrupted plan section is one clear error
  isa::Program bad = m.program;
  for (auto& sec : bad.extra)
    if (sec.kind == container::kPlanSectionKind) sec.bytes.resize(sec.bytes.size() / 2);
  CHECK_THROWS_WITH(container::plan_from_program(bad, "bad.npuprog"), Catch::Contains("bad.npuprog") && Catch::Contains("truncated"));
  std::filesystem::remove(path);
}

TEST_CASE("a version-1 plan (before layers named their instruction runs) still loads", "[compiler][plan]") {
  // Written by the compiler of 2026-11 (plan version 1): every layer owns its whole span.
  const CompiledModel m = container::load_compiled(std::string(NPUSIM_SOURCE_DIR) + "/tests/fuzz/corpus/npuprog/tiny_convnet_int8.npuprog");
  REQUIRE(!m.layers.empty());
  for (const auto& layer : m.layers) {
    CHECK(layer.runs.empty());
    CHECK(container::owned_instructions(layer, m.program.code.size()).size() == layer.end_instruction - layer.first_instruction);
  }
}

TEST_CASE("explain summaries cover every pass and dumps are written", "[compiler][passes]") {
  CompileOptions o;
  o.dump_dir = (std::filesystem::temp_directory_path() / "npusim_dumps").string();
  std::filesystem::remove_all(o.dump_dir);
  CompiledModel m = compile(kTinyModel, default_config(), o);
  std::vector<std::string> names;
  for (const auto& p : m.passes) names.push_back(p.pass);
  // tiny_convnet.onnx is opset 13: the front end upgrades it to 17
  CHECK(names == std::vector<std::string>{"import", "static-shapes", "opset-upgrade", "dead-node-removal", "canonicalize",
                                          "activation-patterns", "layernorm-pattern", "batchnorm-folding", "npu-lowering", "fusion",
                                          "partition", "quantization", "layout", "codegen"});
  CHECK(m.passes[0].nodes_after == 13);
  CHECK(m.passes[2].detail.rfind("opset 13 -> 17", 0) == 0);
  CHECK(m.passes[7].nodes_after == 10);  // 3 BN folded
  CHECK(m.passes[9].nodes_after == 7);   // 3 Relu fused
  CHECK(format_summary(m.passes[9]).rfind("fusion: 10 -> 7 nodes", 0) == 0);
  CHECK(std::filesystem::exists(std::filesystem::path(o.dump_dir) / "10-fusion.onnx"));
  std::filesystem::remove_all(o.dump_dir);
}

TEST_CASE("a layer whose smallest tile cannot fit SRAM is an error naming it", "[compiler][tiling][errors]") {
  HardwareConfig c = default_config();
  CompileOptions o;
  c.sram.capacity_bytes = 4096;  // a few KiB still hold one tile of every layer
  CHECK_NOTHROW(compile(kTinyModel, c, o));
  c.sram.capacity_bytes = 256;
  CHECK_THROWS_WITH(compile(kTinyModel, c, o), Catch::Contains("smallest tile") && Catch::Contains("bytes of SRAM"));
}
