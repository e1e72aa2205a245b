// The one DMA splitter (costmodel/dma_box.h) that every load and store of the compiler goes
// through and the DMA estimate costs: counts beyond a field split into pieces whose scratchpad
// addresses stay aligned; a rest the field holds stays one piece.
#include <catch2/catch.hpp>

#include "costmodel/dma_box.h"

using npu::cost::DmaBox;
using npu::cost::dma_count_max;
using npu::cost::split_dma_box;

TEST_CASE("a count beyond its field splits on aligned scratchpad addresses", "[compiler][dma]") {
  REQUIRE(dma_count_max() == 1023);
  DmaBox box;
  box.run_bytes = 3;
  box.runs = 2000;
  box.ddr_stride = 7;
  box.sram_stride = 3;
  for (std::uint64_t alignment : {8u, 64u, 128u, 256u}) {
    INFO(alignment);
    const auto pieces = split_dma_box(box, alignment);
    std::uint64_t runs = 0;
    for (const auto& p : pieces) {
      CHECK(p.sram_addr % alignment == 0);
      CHECK(p.runs <= dma_count_max());
      runs += p.runs;
    }
    CHECK(runs == 2000);
    CHECK(pieces.front().runs % 64 == 0);
  }
  // 64 runs apart at any alignment up to 64: 960, 960, then the rest 80.
  const auto pieces = split_dma_box(box, 64);
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[2].runs == 80);
  // A rest the field holds is one piece.
  box.runs = 1500;
  REQUIRE(split_dma_box(box, 64).size() == 2);
  CHECK(split_dma_box(box, 64)[1].runs == 540);
}

TEST_CASE("the third level splits like the others and contiguous runs merge", "[compiler][dma]") {
  DmaBox box;
  box.run_bytes = 64;
  box.runs = 4;
  box.ddr_stride = box.sram_stride = 64;  // contiguous: one run of 256 bytes
  box.reps = 2;
  box.ddr_rep_stride = 1000;
  box.sram_rep_stride = 256;
  box.planes = 1100;
  box.ddr_plane_stride = 4096;
  box.sram_plane_stride = 512;
  const auto pieces = split_dma_box(box, 64);
  REQUIRE(pieces.size() == 2);
  CHECK(pieces[0].run_bytes == 256);
  CHECK(pieces[0].runs == 1);
  CHECK(pieces[0].planes == 960);
  CHECK(pieces[1].planes == 140);
  CHECK(pieces[1].sram_addr == 960 * 512);
  CHECK(pieces[1].ddr_addr == 960 * 4096);
}

TEST_CASE("a level no aligned piece fits is refused", "[compiler][dma]") {
  DmaBox box;
  box.run_bytes = 1;
  box.runs = 5000;
  box.ddr_stride = box.sram_stride = 2;  // not contiguous: no merge
  CHECK_THROWS_AS(split_dma_box(box, 4096), std::length_error);
}
