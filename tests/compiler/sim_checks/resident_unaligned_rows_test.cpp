// A padded conv reading a resident input whose rows are not a multiple of the scratchpad
// alignment (Inception-v3's 5x5 branch: 35x35x48, 1680 B rows, 128 B alignment on
// snapdragon-8-elite-htp): no band but the first starts on an aligned row (each starts a pad row
// above a multiple of 8 rows), so the tiler must offer the conv one band of all rows, and the
// value then stays in the scratchpad: never stored, never loaded. Outputs are the integer
// reference's bytes.
#include <catch2/catch.hpp>
#include <filesystem>

#include "compiler/frontend/onnx_io.h"
#include "costmodel/footprint.h"
#include "tests/compiler/sim_checks/sim_check_helpers.h"
#include "tests/compiler/test_graphs.h"

using namespace npu;
using namespace npu::compiler;
using namespace npu::compiler::sim_checks;
using testing::GraphBuilder;

TEST_CASE("int8 padded conv over a resident input with unaligned rows: the input stays on chip, outputs equal the integer reference",
          "[compiler][sim][int8]") {
  GraphBuilder b(43);
  const std::string x = b.input("x", {1, 48, 35, 35});
  b.node("Conv", {x, b.random_constant("a_w", {48, 48, 1, 1}), b.random_constant("a_b", {48})}, "a");
  Node& c = b.node("Conv", {b.out("a"), b.random_constant("b_w", {64, 48, 5, 5}), b.random_constant("b_b", {64})}, "b");
  c.set_ints("pads", {2, 2, 2, 2});
  Graph g0 = b.finish({b.out("b")});
  const auto path = std::filesystem::temp_directory_path() / "npusim_resident_unaligned_rows.onnx";
  write_onnx(g0, path.string());

  const HardwareConfig config = load_hardware_config(config_path("snapdragon-8-elite-htp-fitted.yaml"));
  REQUIRE(config.sram.alignment_bytes == 128);
  Int8Compiled compiled = compile_int8(path.string(), config);
  const Graph& g = compiled.graph;
  const CompiledModel& m = compiled.model;

  // No DMA touches the intermediate's DDR bytes (if it has any).
  if (const isa::TensorEntry* a = find_entry(m.program, b.out("a"))) {
    for (const auto& in : m.program.code) {
      if (in.opcode != isa::Opcode::Load && in.opcode != isa::Opcode::Store) continue;
      const auto at = static_cast<std::uint64_t>(in.get(isa::Field::ddr_addr));
      INFO(isa::opcode_info(in.opcode).mnemonic << " at " << at);
      CHECK((at < a->ddr_addr || at >= a->ddr_addr + a->size_bytes));
    }
  }

  sim::DdrImage ddr;
  ddr.place(m.program);
  const Int8Values inputs = write_random_inputs(g, m, ddr, 11);
  const Int8Values expected = run_integer_reference(g, inputs);
  CHECK(simulate_steps(m, config, ddr) > 0);
  const isa::TensorEntry& e = entry(m.program, m.model_outputs[0]);
  const auto& want = expected.at(m.model_outputs[0]);
  REQUIRE(want.size() == e.size_bytes);
  std::vector<std::int8_t> got(want.size());
  ddr.read(e.ddr_addr, got.data(), got.size());
  CHECK(std::equal(got.begin(), got.end(), want.begin()));
  std::filesystem::remove(path);
}
