// Offsets in the scratchpad for buffers with lifetimes: two buffers whose lifetimes (inclusive
// ranges of layer positions in a step) overlap never share bytes. Greedy first fit, largest
// buffers first (ties: longest lived first), each at the lowest aligned offset that is free for
// its whole lifetime, as TFLite Micro's arena planner does.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace npu::compiler {

struct LiveBuffer {
  std::int64_t first = 0, last = 0;  // lifetime, inclusive
  std::uint64_t bytes = 0;
};

// Offsets per buffer (same order), or nullopt when they do not all fit in `capacity`; then
// `failed` (if given) is the index of the first buffer that did not fit.
std::optional<std::vector<std::uint64_t>> place_buffers(const std::vector<LiveBuffer>& buffers, std::uint64_t capacity,
                                                        std::uint64_t alignment, std::size_t* failed = nullptr);

}  // namespace npu::compiler
