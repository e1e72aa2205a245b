// An Inception-style block whose Concat is read by a pool and by ordinary convs: the pool
// runs once per part (compiler/passes/concat_pooling.cpp), so every reader of the Concat takes
// its parts where they lie and no copy of it exists, in DDR or on chip; the model's outputs are
// still the integer reference's bytes. Pools of a Concat read only by pools are split too, and
// a Concat of such pooled parts inside another Concat is spliced into it.
#include <catch2/catch.hpp>
#include <filesystem>

#include "compiler/frontend/onnx_io.h"
#include "tests/compiler/sim_checks/sim_check_helpers.h"
#include "tests/compiler/test_graphs.h"

using namespace npu;
using namespace npu::compiler;
using namespace npu::compiler::sim_checks;
using testing::GraphBuilder;

TEST_CASE("int8 pools of a Concat run per part: no copy of the Concat, outputs equal the integer reference",
          "[compiler][sim][int8]") {
  GraphBuilder b(43);
  const std::string x = b.input("x", {1, 8, 9, 9});
  b.same_conv(x, 8, 24, "stem", 3);
  b.same_conv(b.out("stem"), 24, 16, "br1", 1);
  b.same_conv(b.out("stem"), 24, 24, "br3", 3);
  Node& side = b.node("MaxPool", {b.out("stem")}, "side");
  side.set_ints("kernel_shape", {3, 3});
  side.set_ints("pads", {1, 1, 1, 1});
  b.node("Concat", {b.out("br1"), b.out("br3")}, "inner").set_int("axis", 1);
  b.node("Concat", {b.out("inner"), b.out("side")}, "cat").set_int("axis", 1);  // 64 channels
  Node& pool = b.node("AveragePool", {b.out("cat")}, "pool");
  pool.set_ints("kernel_shape", {3, 3});
  pool.set_ints("pads", {1, 1, 1, 1});
  pool.set_int("count_include_pad", 0);
  b.same_conv(b.out("pool"), 64, 8, "head_pool", 1);
  b.same_conv(b.out("cat"), 64, 8, "head", 3);
  b.node("GlobalAveragePool", {b.out("cat")}, "gap");
  Graph g0 = b.finish({b.out("head"), b.out("head_pool"), b.out("gap")});
  const auto path = std::filesystem::temp_directory_path() / "npusim_concat_pooling.onnx";
  write_onnx(g0, path.string());

  for (const char* preset : {"default.yaml", "snapdragon-8-elite-htp-fitted.yaml"}) {
    INFO(preset);
    const HardwareConfig config = load_hardware_config(config_path(preset));
    Int8Compiled compiled = compile_int8(path.string(), config);
    const Graph& g = compiled.graph;
    const CompiledModel& m = compiled.model;

    // The inner Concat is spliced into cat; the average pool and the global one run per part
    // (br1, br3, side), each followed by a Concat of the pooled parts.
    std::map<std::string, int> ops;
    for (const Node& n : g.nodes) ++ops[n.op_type];
    CHECK(ops["AveragePool"] == 3);
    CHECK(ops["GlobalAveragePool"] == 3);
    int concats_of_cat_parts = 0;
    for (const Node& n : g.nodes)
      if (n.op_type == "Concat" && n.outputs[0] == b.out("cat")) {
        CHECK(n.inputs == std::vector<std::string>{b.out("br1"), b.out("br3"), b.out("side")});
        ++concats_of_cat_parts;
      }
    CHECK(concats_of_cat_parts == 1);
    // Nothing reads cat whole: no layer moves its bytes.
    for (const LayerRecord& l : m.layers) {
      if (l.name != "cat") continue;
      CHECK(l.first_instruction == l.end_instruction);
      CHECK(l.planned_ddr_bytes == 0);
    }

    check_outputs_against_reference(compiled, config, 13);
  }
  std::filesystem::remove(path);
}
