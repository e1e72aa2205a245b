// Multicast loads (compiler/backend/multicast_loads.h) on hand-built engine streams: loads of the
// same DDR bytes on every engine become mloads where they meet in one order, and a shared load
// one engine issues ahead of the others' order moves down to where they have it, unless an
// instruction in between touches its bytes.
#include <catch2/catch.hpp>

#include "compiler/backend/instruction_stream.h"
#include "compiler/backend/multicast_loads.h"

using namespace npu;
using namespace npu::compiler;
using isa::Field;
using isa::Opcode;

namespace {

struct Load {
  std::uint64_t ddr, sram, bytes;
};

// One engine's stream of layer 0: the loads in the given order, each followed by `between`
// (an instruction of its own, e.g. one reading a load's bytes).
InterleavedCode stream(const std::vector<Load>& loads, const std::vector<isa::Instruction>& between = {}) {
  InterleavedCode s;
  for (std::size_t i = 0; i < loads.size(); ++i) {
    emit_linear_load(s.code, loads[i].ddr, loads[i].sram, loads[i].bytes, 64);
    if (i < between.size()) s.code.push_back(between[i]);
  }
  s.owner.assign(s.code.size(), 0);
  return s;
}

std::vector<std::uint64_t> mload_addresses(const InterleavedCode& s) {
  std::vector<std::uint64_t> out;
  for (const auto& in : s.code)
    if (in.opcode == Opcode::MulticastLoad) out.push_back(static_cast<std::uint64_t>(in.get(Field::ddr_addr)));
  return out;
}

// A table lookup reading `bytes` at `sram` (its table and output elsewhere).
isa::Instruction reader(std::uint64_t sram, std::uint64_t bytes) {
  return make(Opcode::Lut, {{Field::dst_addr, 512 << 10}, {Field::src_addr, static_cast<std::int64_t>(sram)},
                            {Field::table_addr, 768 << 10}, {Field::count, static_cast<std::int64_t>(bytes)}});
}

const Load kWeights{1 << 20, 0, 64 << 10}, kParams{2 << 20, 64 << 10, 4096}, kNext{3 << 20, 128 << 10, 32 << 10};

}  // namespace

TEST_CASE("loads in the same order on every engine all become mloads", "[compiler][multicast]") {
  std::vector<InterleavedCode> streams(3, stream({kParams, kWeights, kNext}));
  const auto counts = multicast_shared_loads(streams);
  REQUIRE(counts.size() == 1);
  CHECK(counts[0].loads == 3);
  CHECK(counts[0].bytes == kParams.bytes + kWeights.bytes + kNext.bytes);
  for (const auto& s : streams) CHECK(mload_addresses(s) == std::vector<std::uint64_t>{kParams.ddr, kWeights.ddr, kNext.ddr});
}

TEST_CASE("a shared load one engine issues early moves down to the others' order", "[compiler][multicast]") {
  // Engine 0 loads the weights ahead of the parameters and the next block; the others after.
  std::vector<InterleavedCode> streams = {stream({kWeights, kParams, kNext}), stream({kParams, kNext, kWeights}),
                                          stream({kParams, kNext, kWeights})};
  const auto counts = multicast_shared_loads(streams);
  REQUIRE(counts.size() == 1);
  CHECK(counts[0].loads == 3);  // without the move one side of the crossing stays a load per engine
  for (const auto& s : streams) CHECK(mload_addresses(s) == std::vector<std::uint64_t>{kParams.ddr, kNext.ddr, kWeights.ddr});
}

TEST_CASE("a shared load stays where an instruction after it reads its bytes", "[compiler][multicast]") {
  // On engine 0 a vector op right after the weights' load reads them: the load cannot move below
  // it, so the crossing costs one load per engine (the bigger weights win the common order).
  std::vector<InterleavedCode> streams = {stream({kWeights, kParams, kNext}, {reader(kWeights.sram, 1024)}),
                                          stream({kParams, kNext, kWeights}), stream({kParams, kNext, kWeights})};
  const auto counts = multicast_shared_loads(streams);
  REQUIRE(counts.size() == 1);
  CHECK(counts[0].loads == 1);
  CHECK(counts[0].bytes == kWeights.bytes);
  CHECK(streams[0].code[1].opcode == Opcode::Lut);  // the reader still follows the load
  for (const auto& s : streams) CHECK(mload_addresses(s) == std::vector<std::uint64_t>{kWeights.ddr});
}
