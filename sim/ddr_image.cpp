// Sparse DDR contents: 64 KiB pages allocated on first write, so a 4 GiB address space
// costs only what the program touches.
#include <algorithm>
#include <cstring>

#include "sim/simulator.h"

namespace npu::sim {

std::uint8_t* DdrImage::page(std::uint64_t index) {
  auto& p = pages_[index];
  if (p.empty()) p.assign(kPageBytes, 0);
  return p.data();
}

void DdrImage::write(std::uint64_t addr, const void* src, std::uint64_t bytes) {
  auto* s = static_cast<const std::uint8_t*>(src);
  while (bytes > 0) {
    const std::uint64_t off = addr % kPageBytes;
    const std::uint64_t n = std::min(bytes, kPageBytes - off);
    std::memcpy(page(addr / kPageBytes) + off, s, n);
    addr += n;
    s += n;
    bytes -= n;
  }
}

void DdrImage::read(std::uint64_t addr, void* dst, std::uint64_t bytes) const {
  auto* d = static_cast<std::uint8_t*>(dst);
  while (bytes > 0) {
    const std::uint64_t off = addr % kPageBytes;
    const std::uint64_t n = std::min(bytes, kPageBytes - off);
    auto it = pages_.find(addr / kPageBytes);
    if (it == pages_.end())
      std::memset(d, 0, n);
    else
      std::memcpy(d, it->second.data() + off, n);
    addr += n;
    d += n;
    bytes -= n;
  }
}

void DdrImage::place(const isa::Program& program) {
  for (const auto& seg : program.data)
    if (!seg.bytes.empty()) write(seg.ddr_addr, seg.bytes.data(), seg.bytes.size());
}

}  // namespace npu::sim
