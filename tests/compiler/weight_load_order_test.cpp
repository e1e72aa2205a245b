// The conv tiler's weight load order (compiler/backend/sram_tiling.h): the row parts of a layer
// split across engines plan in the order of the widest part, so each engine loads the same
// weight blocks in the same sequence and every load can be one multicast.
#include <catch2/catch.hpp>

#include "compiler/backend/sram_tiling.h"
#include "hwconfig/hardware_config.h"

using namespace npu;
using namespace npu::compiler;

namespace {

// ResNet-50's 3x3 conv of the 14x14 stage, as one engine's part of `rows` output rows.
ConvShape row_part(std::int64_t rows) {
  ConvShape s;
  s.name = "s3b2_b_conv";
  s.w = s.ow = 14;
  s.oh = rows;
  s.h = rows + 2;
  s.c = s.oc = 256;
  s.kh = s.kw = 3;
  s.pad_left = 1;
  s.epilogue = {isa::Opcode::Drain};
  return s;
}

std::int64_t weight_loads(const TilePlan& plan) {
  const auto chunks = static_cast<std::int64_t>(plan.chunks.size());
  if (plan.k_slices > 1) return static_cast<std::int64_t>(plan.tiles.size()) * plan.k_slices;
  return plan.rows_outer && chunks > 1 ? static_cast<std::int64_t>(plan.tiles.size()) : chunks;
}

}  // namespace

TEST_CASE("a row part plans in the weight load order it is given", "[compiler][tiling]") {
  HardwareConfig config = load_hardware_config(std::string(NPUSIM_SOURCE_DIR) + "/configs/default.yaml");
  config.ddr.bandwidth_gbps /= 4;  // four engines share the DDR
  const std::uint64_t budget = 96 << 10;
  const TilePlan widest = plan_conv_tiles(row_part(4), budget, 64, &config);
  const WeightLoadOrder order = weight_load_order(widest);
  CHECK(order.units == widest.chunks.front().units);
  CHECK(order.k_slice == widest.k_slice);

  for (std::int64_t rows : {1, 2, 3, 4}) {
    INFO(rows << " rows");
    ConvShape s = row_part(rows);
    s.weight_order = order;
    const TilePlan plan = plan_conv_tiles(s, budget, 64, &config);
    CHECK(weight_load_order(plan) == order);
    CHECK(weight_loads(plan) == weight_loads(widest));
  }
}

TEST_CASE("a strict weight load order gives no plan rather than another order", "[compiler][tiling]") {
  const HardwareConfig config = load_hardware_config(std::string(NPUSIM_SOURCE_DIR) + "/configs/default.yaml");
  // All 256 output channels in one chunk, each reduction slice all 256 input channels: 576 KiB
  // of weights in one block, which a 64 KiB region cannot hold.
  WeightLoadOrder order;
  order.units = 256;
  ConvShape s = row_part(3);
  s.weight_order = order;
  const std::uint64_t small = 64 << 10;
  const auto loose = try_plan_conv_tiles(s, small, 64, &config);
  REQUIRE(loose.has_value());  // another order fits
  CHECK_FALSE(weight_load_order(*loose) == order);
  s.weight_order->strict = true;
  CHECK_FALSE(try_plan_conv_tiles(s, small, 64, &config).has_value());
  CHECK(try_plan_conv_tiles(s, std::uint64_t{1} << 20, 64, &config).has_value());
}
