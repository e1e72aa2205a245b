#include "compiler/backend/sram_allocator.h"

#include <algorithm>
#include <cstdint>
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
  // The placed buffers by blocks of lifetime positions, so finding those whose lifetime overlaps
  // a new one looks at its own blocks only (a step of thousands of layers has thousands of
  // short-lived buffers; scanning all placed ones for each was quadratic).
  std::int64_t lo = 0, hi = 0;
  for (const auto& b : buffers) {
    lo = std::min(lo, b.first);
    hi = std::max(hi, b.last);
  }
  constexpr std::int64_t kBlock = 32;
  auto block = [&](std::int64_t position) { return static_cast<std::size_t>((position - lo) / kBlock); };
  std::vector<std::vector<std::size_t>> placed(block(hi) + 1);
  std::vector<std::size_t> seen(buffers.size(), SIZE_MAX);  // the buffer whose query last saw it
  std::vector<std::pair<std::uint64_t, std::uint64_t>> busy;  // [begin, end) of overlapping placed buffers
  for (std::size_t i : order) {
    const LiveBuffer& b = buffers[i];
    if (b.bytes == 0) continue;
    busy.clear();
    for (std::size_t k = block(b.first); k <= block(b.last); ++k)
      for (std::size_t j : placed[k]) {
        const LiveBuffer& o = buffers[j];
        if (seen[j] == i || !(o.first <= b.last && b.first <= o.last)) continue;
        seen[j] = i;
        busy.emplace_back(offset[j], offset[j] + o.bytes);
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
    for (std::size_t k = block(b.first); k <= block(b.last); ++k) placed[k].push_back(i);
  }
  return offset;
}

}  // namespace npu::compiler
