#include "compiler/backend/sram_allocator.h"

#include <algorithm>
#include <numeric>

namespace npu::compiler {

std::optional<std::vector<std::uint64_t>> place_buffers(const std::vector<LiveBuffer>& buffers, std::uint64_t capacity,
                                                        std::uint64_t alignment, std::size_t* failed) {
  std::vector<std::size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const LiveBuffer &x = buffers[a], &y = buffers[b];
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    return x.last - x.first > y.last - y.first;
  });
  std::vector<std::uint64_t> offset(buffers.size(), 0);
  std::vector<std::size_t> placed;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> busy;  // [begin, end) of overlapping placed buffers
  for (std::size_t i : order) {
    const LiveBuffer& b = buffers[i];
    if (b.bytes == 0) continue;
    busy.clear();
    for (std::size_t j : placed) {
      const LiveBuffer& o = buffers[j];
      if (o.first <= b.last && b.first <= o.last) busy.emplace_back(offset[j], offset[j] + o.bytes);
    }
    std::sort(busy.begin(), busy.end());
    std::uint64_t at = 0;
    for (const auto& [begin, end] : busy) {
      if (begin >= at + b.bytes) break;  // fits in the gap before this one
      at = std::max(at, (end + alignment - 1) / alignment * alignment);
    }
    if (at + b.bytes > capacity) {
      if (failed) *failed = i;
      return std::nullopt;
    }
    offset[i] = at;
    placed.push_back(i);
  }
  return offset;
}

}  // namespace npu::compiler
