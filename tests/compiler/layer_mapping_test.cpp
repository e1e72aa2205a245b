// The per-layer mapping (compiler/backend/layer_mapping.h): derived from the conv tiler's plan
// it counts the plan's tiles and keeps every buffer inside the region; every NPU layer of a
// compiled model records one.
#include <catch2/catch.hpp>

#include "compiler/backend/sram_tiling.h"
#include "compiler/pipeline.h"
#include "tests/compiler/test_helpers.h"

using namespace npu;
using namespace npu::compiler;

namespace {

void check_buffers_inside(const LayerMapping& map) {
  for (const auto& b : map.buffers)
    for (std::uint64_t slot : b.slots) {
      INFO(buffer_role_name(b.role));
      CHECK(slot >= map.region_base);
      CHECK(slot + b.bytes <= map.region_base + map.region_bytes);
    }
}

}  // namespace

TEST_CASE("a conv's mapping has the tiler's tiles, loop order and buffers", "[compiler][mapping]") {
  const HardwareConfig config = default_config();
  ConvShape s;
  s.name = "conv";
  s.h = s.w = s.oh = s.ow = 56;
  s.c = 64;
  s.oc = 256;
  s.kh = s.kw = 3;
  s.pad_top = s.pad_left = 1;
  s.epilogue = {isa::Opcode::Drain};
  for (std::uint64_t sram : {std::uint64_t{64} << 10, std::uint64_t{1} << 20}) {
    const TilePlan plan = plan_conv_tiles(s, sram, 64, &config);
    const std::uint64_t base = 4096;
    for (const SramLayout* layout : {&plan.sram, &plan.sram_top_down}) {
      const LayerMapping map = conv_layer_mapping(s, plan, *layout, base, config.mac_array.dataflow);
      CHECK(map.unit == TileUnit::Array);
      CHECK(map.tiles() == static_cast<std::int64_t>(plan.tiles.size()) * plan.k_slices);
      CHECK(map.loops.front().dim == (plan.rows_outer ? LoopDim::Rows : LoopDim::OutChannels));
      CHECK(map.region_bytes == layout->total);
      CHECK(map.est_cycles == plan.est_cycles);
      CHECK(map.buffer(BufferRole::Weights).at(0) == base + layout->weights[0]);
      CHECK(map.buffer(BufferRole::Accumulator).bytes > 0);
      check_buffers_inside(map);
      CHECK(map.describe().rfind("array ", 0) == 0);
    }
  }
}

TEST_CASE("every NPU layer of a compiled model records its mapping", "[compiler][mapping]") {
  for (Precision p : {Precision::Int8, Precision::Fp16}) {
    CompileOptions o;
    o.precision = p;
    const CompiledModel m = compile(std::string(NPUSIM_SOURCE_DIR) + "/models/tiny_convnet.onnx", default_config(), o);
    int mapped = 0;
    for (const auto& l : m.layers) {
      if (l.device != "npu" || l.first_instruction == l.end_instruction) continue;
      INFO(l.name << ": " << l.mapping);
      CHECK((l.mapping.rfind("array ", 0) == 0 || l.mapping.rfind("vector:", 0) == 0 || l.mapping.rfind("dma:", 0) == 0));
      CHECK(l.mapping.find("1 engine") != std::string::npos);
      ++mapped;
    }
    CHECK(mapped >= 5);  // three convs, the pools and the gemm
  }
}
