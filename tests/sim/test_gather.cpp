// The gather instruction: rows of a DDR table picked by int32 indices in the scratchpad.
#include <catch2/catch.hpp>

#include "sim_test_util.h"

using namespace simtest;
using Catch::Matchers::Contains;
using npu::sim::SimError;

namespace {

constexpr std::uint64_t kTable = 0x10000, kIndices = 0x20000, kOut = 0x30000;
constexpr int kRows = 10, kRowBytes = 48, kRowStride = 64;  // rows padded to 64 B in DDR

Instruction gather(int count, std::uint8_t pop = 0, std::uint8_t push = 0) {
  Instruction g = make(Opcode::Gather, pop, push);
  g.set(Field::ddr_addr, static_cast<std::int64_t>(kTable));
  g.set(Field::sram_addr, 0x400);
  g.set(Field::index_addr, 0);
  g.set(Field::len0, kRowBytes);
  g.set(Field::count, count);
  g.set(Field::rows, kRows);
  g.set(Field::ddr_stride1, kRowStride);
  g.set(Field::sram_stride1, 64);
  return g;
}

// Loads `indices`, gathers their rows and stores them packed (48 B apart) at kOut.
Program gather_program(int count) {
  Instruction store_rows = store(kOut, 0x400, kRowBytes, 1, kLoad);
  store_rows.set(Field::count1, count);
  store_rows.set(Field::sram_stride1, 64);
  store_rows.set(Field::ddr_stride1, kRowBytes);
  return program({load(kIndices, 0, 4 * static_cast<std::uint64_t>(count)), gather(count, 0, kStore), store_rows, halt()});
}

npu::sim::DdrImage table_with(const std::vector<std::int32_t>& indices) {
  npu::sim::DdrImage ddr;
  for (int r = 0; r < kRows; ++r) {
    std::vector<std::uint8_t> row(kRowStride, 0xee);
    for (int b = 0; b < kRowBytes; ++b) row[static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(r * 16 + b);
    ddr.write(kTable + static_cast<std::uint64_t>(r) * kRowStride, row.data(), row.size());
  }
  ddr.write(kIndices, indices.data(), 4 * indices.size());
  return ddr;
}

npu::sim::SimResult simulate(const Program& p, npu::sim::DdrImage& ddr, bool timing_only) {
  npu::sim::SimOptions o;
  o.timing_only = timing_only;
  return npu::sim::simulate(p, config(), ddr, o);
}

}  // namespace

TEST_CASE("gather copies the rows its indices name, negative ones from the end", "[gather][functional]") {
  const std::vector<std::int32_t> indices = {3, -1, 0, 3};
  auto ddr = table_with(indices);
  const auto functional = simulate(gather_program(4), ddr, false);
  std::vector<std::uint8_t> out(4 * kRowBytes);
  ddr.read(kOut, out.data(), out.size());
  const int rows[] = {3, 9, 0, 3};
  for (int i = 0; i < 4; ++i)
    for (int b = 0; b < kRowBytes; ++b)
      CHECK(out[static_cast<std::size_t>(i * kRowBytes + b)] == static_cast<std::uint8_t>(rows[i] * 16 + b));

  // Timing does not depend on the indices: a timing-only run and other indices take the same
  // cycles, and the gather is timed as a load of rows 0..3 (4 runs of 48 B, 64 B apart).
  auto other = table_with({9, 8, 7, 6});
  CHECK(simulate(gather_program(4), other, true).cycles == functional.cycles);
  CHECK(simulate(gather_program(4), other, false).cycles == functional.cycles);
  Instruction as_load = load(kTable, 0x400, kRowBytes, 0, 0, kStore);
  as_load.set(Field::count1, 4);
  as_load.set(Field::ddr_stride1, kRowStride);
  as_load.set(Field::sram_stride1, 64);
  Program same_runs = gather_program(4);
  same_runs.code[1] = as_load;
  npu::sim::DdrImage empty;
  const auto loaded = simulate(same_runs, empty, true);
  CHECK(loaded.instructions[1].end_cycle - loaded.instructions[1].start_cycle ==
        functional.instructions[1].end_cycle - functional.instructions[1].start_cycle);
  CHECK(functional.instructions[1].end_cycle > functional.instructions[0].end_cycle);
}

TEST_CASE("more indices than table rows are timed at rows i mod rows, inside the table", "[gather][timing]") {
  std::vector<std::int32_t> indices(25);
  for (std::size_t i = 0; i < indices.size(); ++i) indices[i] = static_cast<std::int32_t>(i % 7);
  auto ddr = table_with(indices);
  const auto functional = simulate(gather_program(25), ddr, false);
  auto again = table_with(indices);
  CHECK(simulate(gather_program(25), again, true).cycles == functional.cycles);
  std::vector<std::uint8_t> out(25 * kRowBytes);
  ddr.read(kOut, out.data(), out.size());
  CHECK(out[24 * kRowBytes] == static_cast<std::uint8_t>((24 % 7) * 16));
}

TEST_CASE("a gather index outside the table stops a functional run naming it", "[gather][errors]") {
  auto ddr = table_with({2, 10, 0});
  CHECK_THROWS_WITH(simulate(gather_program(3), ddr, false),
                    Contains("instruction #1 (gather): index 10 of run 1 is outside [-10, 10)"));
  auto low = table_with({-11});
  CHECK_THROWS_WITH(simulate(gather_program(1), low, false), Contains("index -11 of run 0 is outside [-10, 10)"));
  auto timing = table_with({2, 10, 0});
  CHECK_NOTHROW(simulate(gather_program(3), timing, true));  // no data, no indices to check
}

TEST_CASE("gather fields that would overlap rows are refused", "[gather][errors]") {
  auto ddr = table_with({0});
  Program p = gather_program(2);
  p.code[1].set(Field::ddr_stride1, 32);
  CHECK_THROWS_WITH(simulate(p, ddr, true),
                    Contains("instruction #1 (gather): ddr_stride1 = 32 is less than len0 = 48 (table rows would overlap)"));
  p = gather_program(2);
  p.code[1].set(Field::sram_stride1, 0);
  CHECK_THROWS_WITH(simulate(p, ddr, true), Contains("sram_stride1 = 0 is less than len0 = 48"));
  p = gather_program(2);
  p.code[1].set(Field::rows, 0);
  CHECK_THROWS_WITH(simulate(p, ddr, true), Contains("rows = 0 must be >= 1"));
  p = gather_program(2);
  p.code[1].set(Field::index_addr, 0x400);  // the indices inside the rows it writes
  CHECK_THROWS_WITH(simulate(p, ddr, true), Contains("overlaps index_addr"));
}
