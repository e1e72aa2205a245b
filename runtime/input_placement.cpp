#include "runtime/input_placement.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace npu::runtime {
namespace {

constexpr std::uint64_t kPageBytes = 4096;

std::uint64_t end_of_placed_ddr(const isa::Program& program) {
  std::uint64_t end = 0;
  for (const auto& t : program.tensors) end = std::max(end, t.ddr_addr + t.size_bytes);
  for (const auto& d : program.data) end = std::max(end, d.ddr_addr + d.bytes.size());
  return end;
}

}  // namespace

std::vector<std::string> misalign_inputs(isa::Program& program, const std::vector<std::string>& inputs,
                                         std::uint64_t misalignment_bytes, std::uint64_t ddr_capacity_bytes) {
  std::vector<std::string> notes;
  if (misalignment_bytes == 0) return notes;
  if (misalignment_bytes >= kPageBytes)
    throw std::runtime_error(fmt::format("input misalignment {} bytes: must be below {} (an offset past a {} "
                                         "byte boundary)", misalignment_bytes, kPageBytes, kPageBytes));
  for (const auto& name : inputs) {
    auto entry = std::find_if(program.tensors.begin(), program.tensors.end(),
                              [&](const isa::TensorEntry& t) { return t.name == name; });
    if (entry == program.tensors.end())
      throw std::runtime_error(fmt::format("input '{}': not in the program's tensor table", name));
    const std::uint64_t old_addr = entry->ddr_addr, size = entry->size_bytes;
    const std::uint64_t new_addr =
        (end_of_placed_ddr(program) + kPageBytes - 1) / kPageBytes * kPageBytes + misalignment_bytes;
    if (new_addr + size > ddr_capacity_bytes)
      throw std::runtime_error(fmt::format("input '{}': a buffer at {:#x} of {} bytes exceeds the DDR capacity {}",
                                           name, new_addr, size, ddr_capacity_bytes));
    for (auto& in : program.code) {
      if (!in.has(isa::Field::ddr_addr)) continue;
      const auto addr = static_cast<std::uint64_t>(in.get(isa::Field::ddr_addr));
      if (addr < old_addr || addr >= old_addr + size) continue;
      try {
        in.set(isa::Field::ddr_addr, static_cast<std::int64_t>(addr - old_addr + new_addr));
      } catch (const isa::IsaError& e) {
        throw std::runtime_error(fmt::format("input '{}': cannot move it to {:#x}: {}", name, new_addr, e.what()));
      }
    }
    entry->ddr_addr = new_addr;
    notes.push_back(fmt::format("input {}: placed at DDR {:#x}, {} bytes past a {} byte boundary (was {:#x})", name,
                                new_addr, misalignment_bytes, kPageBytes, old_addr));
  }
  return notes;
}

}  // namespace npu::runtime
