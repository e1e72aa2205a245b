// The copy instruction: strided rows from one place in the scratchpad to another, the way a
// channel Concat of values kept on chip is assembled.
#include <catch2/catch.hpp>

#include "sim_test_util.h"

using namespace simtest;
using Catch::Matchers::Contains;

namespace {

constexpr std::uint64_t kCopySrc = 0x10000, kCopyOut = 0x20000;

// 3 rows of 8 bytes -> rows 16 bytes apart, 4 bytes into each (a channel slice of wider pixels).
Instruction copy_rows(std::uint8_t pop = 0, std::uint8_t push = 0) {
  Instruction c = make(Opcode::Copy, pop, push);
  c.set(Field::dst_addr, 0x400);
  c.set(Field::src_addr, 0);
  c.set(Field::rows, 3);
  c.set(Field::row_bytes, 8);
  c.set(Field::dst_stride, 16);
  c.set(Field::src_stride, 8);
  c.set(Field::dst_offset, 4);
  return c;
}

}  // namespace

TEST_CASE("copy moves strided rows inside the scratchpad in latency + rows * ceil(row_bytes / lanes)", "[copy]") {
  const Program p = program({load(kCopySrc, 0, 24, 0, 0, kVector), copy_rows(kLoad, kStore), store(kCopyOut, 0x400, 48, 0, kVector), halt()});
  npu::sim::DdrImage ddr;
  std::vector<std::uint8_t> src(24);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i + 1);
  ddr.write(kCopySrc, src.data(), src.size());
  const auto functional = run(p, config(), ddr, false);
  std::vector<std::uint8_t> out(48);
  ddr.read(kCopyOut, out.data(), out.size());
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t b = 0; b < 16; ++b) {
      INFO("row " << r << " byte " << b);
      CHECK(out[r * 16 + b] == (b >= 4 && b < 12 ? src[r * 8 + b - 4] : 0));  // the rest untouched (zero)
    }
  // vector.latency_cycles 4 + 3 rows * ceil(8 / 16 lanes): 7 cycles.
  const auto& c = functional.instructions.at(1);
  CHECK(c.end_cycle - c.start_cycle == 7);
  npu::sim::DdrImage empty;
  CHECK(run(p, config(), empty, true).cycles == functional.cycles);
}

TEST_CASE("copy rows that would overlap are one line naming the field", "[copy][errors]") {
  Instruction c = copy_rows();
  c.set(Field::dst_stride, 4);
  CHECK_THAT(error_of(program({c, halt()})), Contains("dst_stride = 4") && Contains("row_bytes = 8"));
  c = copy_rows();
  c.set(Field::rows, 0);
  CHECK_THAT(error_of(program({c, halt()})), Contains("rows"));
}
