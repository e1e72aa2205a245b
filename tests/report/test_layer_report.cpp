// Per-layer figures: busy cycles by unit, DDR traffic per tensor, the sorted view, tiles.
#include <catch2/catch.hpp>

#include "isa/assembler.h"
#include "report/layer_attribution.h"
#include "report/layer_table.h"
#include "report/trace_labels.h"
#include "report/traffic.h"

using namespace npu;
using namespace npu::report;

namespace {

// Two tiles of one layer (load, conv, requant, store each), weights in a data segment.
const char* kProgram = R"(
  .tensor name=x role=input dtype=int8 shape=1x4x4x8 layout=NHWC addr=0x1000
  .tensor name=y role=output dtype=int8 shape=1x4x4x8 layout=NHWC addr=0x2000
  .data addr=0x3000
  .hex 0102030405060708
  .data addr=0x3100
  .hex 0102030405060708
  load channel=0 ddr_addr=0x3000 sram_addr=0x0 len0=8
  load channel=0 ddr_addr=0x3100 sram_addr=0x40 len0=8
  load channel=1 ddr_addr=0x1000 sram_addr=0x100 len0=64
  conv in_addr=0x100 w_addr=0x0 out_addr=0x400 in_h=2 in_w=4 in_c=8 out_c=8 kernel_h=1 kernel_w=1 stride_h=1 stride_w=1 groups=1
  requant dst_addr=0x800 src_addr=0x400 param_addr=0x40 count=64 channels=8
  store channel=2 ddr_addr=0x2000 sram_addr=0x800 len0=64
  load channel=1 ddr_addr=0x1040 sram_addr=0x100 len0=64
  conv in_addr=0x100 w_addr=0x0 out_addr=0x400 in_h=2 in_w=4 in_c=8 out_c=8 kernel_h=1 kernel_w=1 stride_h=1 stride_w=1 groups=1
  requant dst_addr=0x800 src_addr=0x400 param_addr=0x40 count=64 channels=8
  store channel=2 ddr_addr=0x2040 sram_addr=0x800 len0=64
  halt
)";

sim::InstructionTiming at(std::uint64_t start, std::uint64_t end, std::uint64_t stall = 0) {
  return {start, end, stall, 0};
}

}  // namespace

TEST_CASE("DDR traffic per tensor and constant, weights told from parameters", "[layer-report]") {
  const auto program = isa::assemble(kProgram, "report");
  const auto traffic = report::region_traffic(program, 0, 11);
  REQUIRE(traffic.size() == 4);
  CHECK(traffic[0].name == "weights@0x3000");
  CHECK(traffic[0].kind == "weights");
  CHECK(traffic[0].bytes_read == 8);
  CHECK(traffic[1].kind == "parameters");
  CHECK(traffic[2].name == "x");
  CHECK(traffic[2].size_bytes == 128);
  CHECK(traffic[2].bytes_read == 128);
  CHECK(traffic[3].name == "y");
  CHECK(traffic[3].bytes_written == 128);
  CHECK(traffic[3].bytes_read == 0);
}

TEST_CASE("layer busy cycles per unit: loads on two channels count their union", "[layer-report]") {
  const auto program = isa::assemble(kProgram, "report");
  std::vector<container::LayerRecord> records(1);
  records[0] = {"conv", "Conv", "npu", 1024, 0, 11, 0, {"conv"}, {}};
  const std::vector<sim::InstructionTiming> timings = {at(0, 10), at(5, 20), at(0, 30, 4), at(30, 80, 1),
                                                       at(80, 90), at(90, 100), at(30, 60), at(80, 130, 2),
                                                       at(130, 140), at(140, 150), at(150, 151)};
  const auto layers = report::attribute_layers(records, program, timings);
  REQUIRE(layers.size() == 1);
  const auto& l = layers[0];
  CHECK(l.load_cycles == 60);     // [0, 30) and [30, 60)
  CHECK(l.compute_cycles == 100);
  CHECK(l.vector_cycles == 20);
  CHECK(l.store_cycles == 20);
  CHECK(l.stall_cycles == 7);
  CHECK(l.cycles == 150);
  CHECK(l.ddr_bytes_read == 8 + 8 + 64 + 64);
  CHECK(l.ddr_bytes_written == 128);
  CHECK(report::arithmetic_intensity(l) == Approx(1024.0 / 272));
  CHECK(report::layer_achieved_tops(l, 1000) == Approx(2.0 * 1024 / 0.15e-6 / 1e12));
  CHECK(l.traffic.size() == 4);
}

TEST_CASE("top N: the N costliest layers by cycles, costliest first", "[layer-report]") {
  std::vector<report::LayerTiming> layers(4);
  layers[0].cycles = 10;
  layers[1].cycles = 40;
  layers[2].cycles = 20;
  layers[3].cycles = 40;
  CHECK(report::layer_order(layers, 0) == std::vector<std::size_t>{0, 1, 2, 3});
  CHECK(layer_order(layers, 2) == std::vector<std::size_t>{1, 3});
  CHECK(layer_order(layers, 9) == std::vector<std::size_t>{1, 3, 2, 0});
}

TEST_CASE("instruction labels carry layer name and tile number into trace events", "[layer-report]") {
  const auto program = isa::assemble(kProgram, "report");
  std::vector<container::LayerRecord> records(1);
  records[0] = {"conv", "Conv", "npu", 1024, 0, 11, 0, {"conv"}, {}};
  const auto labels = report::instruction_labels(records, program);
  REQUIRE(labels.size() == 11);
  CHECK(labels[0].layer == "conv");
  CHECK(labels[2].tile.at("index") == 0);
  CHECK(labels[5].tile.at("index") == 0);
  CHECK(labels[6].tile.at("index") == 1);  // the load after a store starts tile 1
  CHECK(labels[9].tile.at("index") == 1);
  CHECK(labels[10].tile.empty());          // halt
  std::vector<sim::TraceEvent> trace(3);
  trace[0].track = "compute";
  trace[0].instruction_index = 7;
  trace[1].track = "dma2";
  trace[1].instruction_index = 9;
  trace[2].track = "host";  // session events are left alone
  trace[2].instruction_index = 0;
  report::label_trace(trace, labels);
  CHECK(trace[0].layer == "conv");
  CHECK(trace[0].args.at("tile_index") == 1);
  CHECK(trace[1].layer == "conv");
  CHECK(trace[2].layer.empty());
  CHECK(trace[2].args.empty());
}
