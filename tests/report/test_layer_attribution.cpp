// Time and traffic go to the layer whose instruction range holds the instructions.
#include <catch2/catch.hpp>

#include "costmodel/footprint.h"
#include "isa/assembler.h"
#include "report/layer_attribution.h"

using namespace npu;
using namespace npu::report;

namespace {

const char* kTwoLoadsProgram = R"(
  load channel=0 ddr_addr=0x1000 sram_addr=0 len0=64 count1=2 ddr_stride1=64 sram_stride1=64
  gemm mac_dtype=0 a_addr=0 b_addr=0x100 c_addr=0x200 m=4 n=4 k=4
  bias dtype=1 dst_addr=0x200 src_addr=0x200 param_addr=0x400 count=16 channels=4
  store channel=0 ddr_addr=0x2000 sram_addr=0x200 len0=32
  load channel=1 ddr_addr=0x3000 sram_addr=0 len0=16
  halt
)";

sim::InstructionTiming timing_at(std::uint64_t start, std::uint64_t end) { return {start, end, 0}; }

}  // namespace

TEST_CASE("transfer_bytes counts every run of a 4-D transfer", "[layers]") {
  const auto program = isa::assemble(kTwoLoadsProgram, "attribution");
  CHECK(cost::transfer_bytes(program.code[0]) == 128);
  CHECK(cost::transfer_bytes(program.code[1]) == 0);
  CHECK(cost::transfer_bytes(program.code[3]) == 32);
}

TEST_CASE("layer cycles, compute cycles and DDR bytes come from its instructions", "[layers]") {
  const auto program = isa::assemble(kTwoLoadsProgram, "attribution");
  std::vector<container::LayerRecord> records(3);
  records[0] = {"conv1", "Gemm+Bias", "npu", 64, 0, 4, 150, {"conv1"}, {}};
  records[1] = {"pool", "Load", "npu", 0, 4, 6, 16, {"pool"}, {}};
  records[2] = {"topk", "TopK", "cpu", 0, 0, 0, 0, {"topk"}, {}};
  const std::vector<sim::InstructionTiming> timings = {timing_at(0, 100),   timing_at(100, 300), timing_at(300, 350),
                                                       timing_at(350, 400), timing_at(400, 420), timing_at(420, 421)};
  const auto layers = report::attribute_layers(records, program, timings);
  REQUIRE(layers.size() == 3);
  CHECK(layers[0].cycles == 400);          // first start 0 .. last end 400
  CHECK(layers[0].compute_cycles == 200);  // the gemm
  CHECK(layers[0].vector_cycles == 50);
  CHECK(layers[0].dma_cycles == 150);
  CHECK(layers[0].ddr_bytes == 160);
  CHECK(layers[0].planned_ddr_bytes == 150);
  CHECK(layers[0].bound() == "compute");
  CHECK(layers[1].cycles == 20);  // halt marks no work
  CHECK(layers[1].start_cycle == 400);
  CHECK(layers[1].ddr_bytes == 16);
  CHECK(layers[1].bound() == "memory");
  CHECK(layers[2].device == "cpu");
  CHECK(layers[2].cycles == 0);
  CHECK(layers[2].bound() == "host");
}

TEST_CASE("instructions that did not run count no time", "[layers]") {
  const auto program = isa::assemble(kTwoLoadsProgram, "attribution");
  std::vector<container::LayerRecord> records(1);
  records[0] = {"all", "Gemm", "npu", 64, 0, 6, 0, {}, {}};
  const auto layers = report::attribute_layers(records, program, {});
  CHECK(layers[0].cycles == 0);
  CHECK(layers[0].ddr_bytes == 176);
}

TEST_CASE("an interleaved layer owns its runs of the span, not its neighbour's instructions in between", "[layers]") {
  const auto program = isa::assemble(kTwoLoadsProgram, "attribution");
  // "pool"'s load (instruction 4) moved ahead of "conv1"'s store (3), as layer_interleave does.
  std::vector<container::LayerRecord> records(2);
  records[0] = {"conv1", "Gemm+Bias", "npu", 64, 0, 5, 150, {"conv1"}, {{0, 3}, {4, 5}}};
  records[1] = {"pool", "Load", "npu", 0, 3, 4, 16, {"pool"}, {}};
  CHECK(container::owned_instructions(records[0], program.code.size()) == std::vector<std::uint32_t>{0, 1, 2, 4});
  const std::vector<sim::InstructionTiming> timings = {timing_at(0, 100),   timing_at(100, 300), timing_at(300, 350),
                                                       timing_at(350, 400), timing_at(400, 420), timing_at(420, 421)};
  const auto layers = report::attribute_layers(records, program, timings);
  CHECK(layers[0].ddr_bytes == 128 + 16);  // its loads, not pool's store in between
  CHECK(layers[0].dma_cycles == 100 + 20);
  CHECK(layers[0].cycles == 420);          // its first start .. its last end
  CHECK(layers[1].ddr_bytes == 32);
  CHECK(layers[1].start_cycle == 350);
  CHECK(layers[1].cycles == 50);
}
