#include "sim/hazard_check.h"

#include <algorithm>

#include <fmt/core.h>

#include "costmodel/footprint.h"

namespace npu::sim {

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
      if (auto c = cost::first_conflict(fp[i], fp[j]))
        out.push_back({i, j, span[i].end, span[j].start, fmt::format("{} [{:#x}, {:#x})", c->what, c->bytes.begin, c->bytes.end)});
    }
  }
  return out;
}

}  // namespace npu::sim
