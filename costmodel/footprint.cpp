#include "costmodel/footprint.h"

#include <algorithm>

#include "costmodel/shared_sram.h"
#include "isa/operands.h"

namespace npu::cost {

Footprint footprint(const isa::Instruction& in) {
  Footprint f;
  f.known = static_cast<int>(in.opcode) < static_cast<int>(isa::Opcode::kCount);
  for (const isa::Operand& o : isa::operands(in)) {
    const bool sram = o.memory() == isa::Memory::Sram, read = o.access() == isa::Access::Read;
    auto& ranges = sram ? (read ? f.sram_read : f.sram_write) : (read ? f.ddr_read : f.ddr_write);
    ranges.push_back(ByteRange{o.addr, o.end()});
  }
  return f;
}

std::optional<FootprintConflict> first_conflict(const Footprint& earlier, const Footprint& later) {
  struct Pair {
    const std::vector<ByteRange>& a;
    const std::vector<ByteRange>& b;
    const char* what;
  };
  const Pair pairs[] = {
      {earlier.sram_write, later.sram_read, "read after write of sram"},
      {earlier.sram_read, later.sram_write, "write after read of sram"},
      {earlier.sram_write, later.sram_write, "write after write of sram"},
      {earlier.ddr_write, later.ddr_read, "read after write of ddr"},
      {earlier.ddr_read, later.ddr_write, "write after read of ddr"},
      {earlier.ddr_write, later.ddr_write, "write after write of ddr"},
  };
  for (const auto& p : pairs)
    for (const auto& x : p.a)
      for (const auto& y : p.b)
        if (x.begin < y.end && y.begin < x.end)
          return FootprintConflict{{std::max(x.begin, y.begin), std::min(x.end, y.end)}, p.what};
  return std::nullopt;
}

std::uint64_t transfer_bytes(const isa::Instruction& in) {
  if (in.opcode == isa::Opcode::Gather)
    return static_cast<std::uint64_t>(in.get(isa::Field::len0)) * static_cast<std::uint64_t>(in.get(isa::Field::count));
  if (in.opcode != isa::Opcode::Load && in.opcode != isa::Opcode::Store && in.opcode != isa::Opcode::MulticastLoad) return 0;
  const std::int64_t count3 = in.has(isa::Field::count3) ? in.get(isa::Field::count3) : 1;  // mload: three dimensions
  return static_cast<std::uint64_t>(in.get(isa::Field::len0)) * static_cast<std::uint64_t>(in.get(isa::Field::count1)) *
         static_cast<std::uint64_t>(in.get(isa::Field::count2)) * static_cast<std::uint64_t>(count3);
}

std::uint64_t ddr_transfer_bytes(const isa::Instruction& in, std::size_t engine) {
  const std::uint64_t bytes = transfer_bytes(in);
  if (bytes == 0 || in_shared_sram_window(static_cast<std::uint64_t>(in.get(isa::Field::ddr_addr)))) return 0;
  if (in.opcode != isa::Opcode::MulticastLoad) return bytes;
  const auto first = in.get(isa::Field::group_count) == 0 ? 0 : static_cast<std::size_t>(in.get(isa::Field::group_first));
  return engine == first ? bytes : 0;
}

}  // namespace npu::cost
