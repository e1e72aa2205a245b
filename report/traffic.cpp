#include "report/traffic.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "costmodel/footprint.h"
#include "costmodel/shared_sram.h"
#include "report/layer_attribution.h"

namespace npu::report {

namespace {

struct Region {
  std::string name;
  std::string kind;
  std::uint64_t addr = 0, size = 0;
  bool compulsory = false;
};

Region find_region(const isa::Program& program, std::uint64_t addr) {
  for (const auto& t : program.tensors)
    if (addr >= t.ddr_addr && addr < t.ddr_addr + t.size_bytes)
      return {t.name, "tensor", t.ddr_addr, t.size_bytes, t.role != isa::TensorRole::Intermediate};
  for (const auto& d : program.data)
    if (addr >= d.ddr_addr && addr < d.ddr_addr + d.bytes.size())
      return {fmt::format("@{:#x}", d.ddr_addr), "constant", d.ddr_addr, d.bytes.size(), true};
  return {fmt::format("@{:#x}", addr), "unknown", addr, 0};
}

// SRAM addresses the MAC array reads weights from in these instructions.
std::vector<std::uint64_t> weight_sram_addresses(const isa::Program& program, const std::vector<std::uint32_t>& instructions) {
  std::vector<std::uint64_t> out;
  for (const std::uint32_t i : instructions) {
    const auto& inst = program.code[i];
    if (inst.opcode == isa::Opcode::Conv) out.push_back(static_cast<std::uint64_t>(inst.get(isa::Field::w_addr)));
    if (inst.opcode == isa::Opcode::Gemm) out.push_back(static_cast<std::uint64_t>(inst.get(isa::Field::b_addr)));
  }
  return out;
}

// The SRAM span a load's runs land in (start of the first run to end of the last).
bool fills(const isa::Instruction& load, std::uint64_t sram_addr) {
  const auto get = [&](isa::Field f) { return load.has(f) ? static_cast<std::uint64_t>(load.get(f)) : 0; };
  const std::uint64_t start = get(isa::Field::sram_addr);
  const std::uint64_t last = start + (get(isa::Field::count1) - 1) * get(isa::Field::sram_stride1) +
                             (get(isa::Field::count2) - 1) * get(isa::Field::sram_stride2) +
                             (std::max<std::uint64_t>(1, get(isa::Field::count3)) - 1) * get(isa::Field::sram_stride3) +
                             get(isa::Field::len0);
  return sram_addr >= start && sram_addr < last;
}

}  // namespace

std::vector<RegionTraffic> region_traffic(const isa::Program& program, std::uint32_t first, std::uint32_t end) {
  std::vector<std::uint32_t> instructions;
  for (std::uint32_t i = first; i < end && i < program.code.size(); ++i) instructions.push_back(i);
  return region_traffic(program, instructions);
}

std::vector<RegionTraffic> region_traffic(const isa::Program& program, const std::vector<std::uint32_t>& instructions,
                                          const std::vector<std::uint8_t>& engines) {
  std::vector<RegionTraffic> rows;
  const auto weights = weight_sram_addresses(program, instructions);
  // A segment is weights when any of its loads feeds the array's weight operand (a layer may
  // load its weights in several chunks, each feeding its own tile).
  std::set<std::uint64_t> weight_segments;
  for (const std::uint32_t i : instructions) {
    const auto& inst = program.code[i];
    if (inst.opcode != isa::Opcode::Load && inst.opcode != isa::Opcode::MulticastLoad) continue;
    const Region region = find_region(program, static_cast<std::uint64_t>(inst.get(isa::Field::ddr_addr)));
    if (region.kind != "constant") continue;
    for (const auto w : weights)
      if (fills(inst, w)) weight_segments.insert(region.addr);
  }
  for (const std::uint32_t i : instructions) {
    const auto& inst = program.code[i];
    // 0: not DDR, or another engine's copy of an mload.
    const std::uint64_t bytes = cost::ddr_transfer_bytes(inst, i < engines.size() ? engines[i] : 0);
    if (bytes == 0) continue;
    Region region = find_region(program, static_cast<std::uint64_t>(inst.get(isa::Field::ddr_addr)));
    if (region.kind == "constant") {
      region.kind = weight_segments.count(region.addr) ? "weights" : "parameters";
      region.name = region.kind + region.name;
    }
    RegionTraffic* row = nullptr;
    for (auto& r : rows)
      if (r.name == region.name) row = &r;
    if (!row) {
      rows.push_back({region.name, region.kind, region.size, 0, 0, region.compulsory});
      row = &rows.back();
    }
    (inst.opcode == isa::Opcode::Store ? row->bytes_written : row->bytes_read) += bytes;
  }
  return rows;
}

}  // namespace npu::report
