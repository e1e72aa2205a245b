#include "sim/hazard_check.h"

#include <algorithm>
#include <optional>

#include <fmt/core.h>

#include "costmodel/footprint.h"

namespace npu::sim {
namespace {

using cost::ByteRange;

std::optional<ByteRange> overlap(const std::vector<ByteRange>& a, const std::vector<ByteRange>& b) {
  for (const auto& x : a)
    for (const auto& y : b)
      if (x.begin < y.end && y.begin < x.end) return ByteRange{std::max(x.begin, y.begin), std::min(x.end, y.end)};
  return std::nullopt;
}

// What `later` does to bytes `earlier` touched, if they conflict.
std::optional<std::string> conflict(const cost::Footprint& earlier, const cost::Footprint& later) {
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
    if (auto r = overlap(p.a, p.b)) return fmt::format("{} [{:#x}, {:#x})", p.what, r->begin, r->end);
  return std::nullopt;
}

}  // namespace

std::vector<Hazard> find_hazards(const std::vector<isa::Instruction>& code, const std::vector<TraceEvent>& trace,
                                 std::size_t limit) {
  struct Span {
    std::uint64_t start = 0, end = 0;
    bool seen = false;
  };
  std::vector<Span> span(code.size());
  for (const auto& e : trace) {
    // The load/store unit tracks hold busy spans; a transfer's own time is on its channel's track.
    if (e.track == "load" || e.track == "store" || e.instruction_index >= code.size()) continue;
    Span& s = span[e.instruction_index];
    s.start = s.seen ? std::min(s.start, e.start_cycle) : e.start_cycle;
    s.end = std::max(s.end, e.start_cycle + e.duration_cycles);
    s.seen = true;
  }
  std::vector<cost::Footprint> fp(code.size());
  std::vector<std::size_t> checked;
  for (std::size_t i = 0; i < code.size(); ++i) {
    if (!span[i].seen || code[i].unit() == isa::Unit::Control) continue;
    fp[i] = cost::footprint(code[i]);
    if (fp[i].known) checked.push_back(i);
  }
  std::vector<Hazard> out;
  for (std::size_t b = 0; b < checked.size() && out.size() < limit; ++b) {
    const std::size_t j = checked[b];
    for (std::size_t a = 0; a < b && out.size() < limit; ++a) {
      const std::size_t i = checked[a];
      if (span[j].start >= span[i].end) continue;
      if (auto what = conflict(fp[i], fp[j])) out.push_back({i, j, span[i].end, span[j].start, *what});
    }
  }
  return out;
}

}  // namespace npu::sim
