// An Inception-style block: branch convs concatenated, the Concat read by a pool as well as a
// depthwise conv (so its readers cannot take the parts in place, and the pool is not split by
// the parts: concat_pooling_test.cpp has the block with an ordinary conv). The branch convs store their outputs
// straight into the Concat's output, a channel slice of its pixels in DDR, and the Concat emits
// no code; the model's outputs are still the integer reference's bytes. The feature maps are 9
// pixels wide: no row is a multiple of the scratchpad alignment.
#include <catch2/catch.hpp>
#include <filesystem>

#include "compiler/frontend/onnx_io.h"
#include "tests/compiler/sim_checks/sim_check_helpers.h"
#include "tests/compiler/test_graphs.h"

using namespace npu;
using namespace npu::compiler;
using namespace npu::compiler::sim_checks;
using testing::GraphBuilder;

namespace {

const LayerRecord& layer(const CompiledModel& m, const std::string& name) {
  for (const auto& l : m.layers)
    if (l.name == name) return l;
  FAIL("no layer " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("int8 Concat of conv outputs: the convs store into its output, it copies nothing, outputs equal the integer reference",
          "[compiler][sim][int8]") {
  GraphBuilder b(41);
  const std::string x = b.input("x", {1, 8, 9, 9});
  b.same_conv(x, 8, 24, "stem", 3);
  b.same_conv(b.out("stem"), 24, 16, "br1", 1);
  b.same_conv(b.out("stem"), 24, 24, "br3", 3);
  b.same_conv(b.out("stem"), 24, 8, "br5", 5);
  b.node("Concat", {b.out("br1"), b.out("br3"), b.out("br5")}, "cat").set_int("axis", 1);
  Node& pool = b.node("MaxPool", {b.out("cat")}, "pool");
  pool.set_ints("kernel_shape", {3, 3});
  pool.set_ints("pads", {1, 1, 1, 1});
  b.same_conv(b.out("pool"), 48, 8, "head_pool", 1);
  Node& head = b.node("Conv", {b.out("cat"), b.random_constant("head_w", {48, 1, 3, 3}), b.random_constant("head_b", {48})}, "head");
  head.set_ints("pads", {1, 1, 1, 1});
  head.set_int("group", 48);
  Graph g0 = b.finish({b.out("head"), b.out("head_pool")});
  const auto path = std::filesystem::temp_directory_path() / "npusim_concat_stored_in_place.onnx";
  write_onnx(g0, path.string());

  for (const char* preset : {"default.yaml", "snapdragon-8-elite-htp-fitted.yaml"}) {
    INFO(preset);
    const HardwareConfig config = load_hardware_config(config_path(preset));
    Int8Compiled compiled = compile_int8(path.string(), config);
    const CompiledModel& m = compiled.model;

    // Each part is a channel slice of the Concat's NHWC pixels (48 channels apart).
    const std::int64_t first_channel[] = {0, 16, 40};
    const isa::TensorEntry& cat = entry(m.program, b.out("cat"));
    int p = 0;
    for (const std::string& part : {b.out("br1"), b.out("br3"), b.out("br5")}) {
      const isa::TensorEntry& e = entry(m.program, part);
      CHECK(e.layout.rfind("strided[", 0) == 0);
      CHECK(e.ddr_addr == cat.ddr_addr + static_cast<std::uint64_t>(first_channel[p++]));
    }
    const LayerRecord& concat = layer(m, "cat");
    CHECK(concat.first_instruction == concat.end_instruction);
    CHECK(concat.planned_ddr_bytes == 0);

    check_outputs_against_reference(compiled, config, 11);
  }
  std::filesystem::remove(path);
}
