#include "compiler/backend/dependency_tokens.h"

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include "costmodel/footprint.h"

namespace npu::compiler {
namespace {

using isa::Unit;
constexpr int kUnits = isa::kQueueCount;
constexpr std::int64_t kNone = -1;
// DMA channels: a transfer of more than kLongTransferBytes takes the first channel of its
// direction (loads 0, stores 1), so long ones run one after another at the whole bandwidth in
// program order (two at once would share it and delay the one the next tile waits for); shorter
// ones take the second (2, 3), so they do not queue behind a long one and their setup and DDR
// latency overlap its data. Measured on w14's decode step (examples/README.md): 4 KiB beat 2, 8,
// 16 and 64 KiB and a byte-balanced split. On a config with fewer channels they fold onto 0 and 1
// (the channel field is taken modulo the count).
constexpr std::uint64_t kLongTransferBytes = 4096;

// Per unit: the latest instruction (global index) of that unit known to be finished.
using Clock = std::array<std::int64_t, kUnits>;

void join(Clock& a, const Clock& b) {
  for (int u = 0; u < kUnits; ++u) a[u] = std::max(a[u], b[u]);
}

// Who last wrote each byte, and who read it since, per unit. Segments cover [key, next key),
// sorted by key, in one vector: a window holds tens to hundreds of them, and searching and
// shifting contiguous entries beats a tree's node per segment (this pass runs for every
// schedule the layer interleave times).
class AccessMap {
 public:
  struct Seg {
    std::int64_t writer = kNone;
    std::array<std::int64_t, kUnits> readers{kNone, kNone, kNone, kNone};
  };
  AccessMap() { segs_.push_back({0, Seg{}}); }

  // Adds to `need` (per unit, the latest conflicting instruction) what accessing [b, e) implies.
  void conflicts(std::uint64_t b, std::uint64_t e, bool write, Clock& need, const std::vector<Unit>& unit_of) const {
    if (b >= e) return;
    for (std::size_t i = containing(b); i < segs_.size() && segs_[i].key < e; ++i) {
      const Seg& s = segs_[i].seg;
      if (s.writer != kNone) {
        int u = static_cast<int>(unit_of[static_cast<std::size_t>(s.writer)]);
        need[u] = std::max(need[u], s.writer);
      }
      if (write)
        for (int u = 0; u < kUnits; ++u) need[u] = std::max(need[u], s.readers[u]);
    }
  }
  void record(std::uint64_t b, std::uint64_t e, bool write, std::int64_t instr, Unit unit) {
    if (b >= e) return;
    const std::size_t first = split(b);
    split(e);
    for (std::size_t i = first; i < segs_.size() && segs_[i].key < e; ++i) {
      Seg& s = segs_[i].seg;
      if (write) {
        s.writer = instr;
        s.readers.fill(kNone);
      } else {
        s.readers[static_cast<int>(unit)] = instr;
      }
    }
    merge_around(first, e);
  }

 private:
  struct Entry {
    std::uint64_t key;
    Seg seg;
  };
  // The index of the segment holding byte `at`.
  std::size_t containing(std::uint64_t at) const {
    const auto it = std::upper_bound(segs_.begin(), segs_.end(), at, [](std::uint64_t a, const Entry& x) { return a < x.key; });
    return static_cast<std::size_t>(it - segs_.begin()) - 1;
  }
  // Makes `at` a segment boundary; returns the index of the segment starting there.
  std::size_t split(std::uint64_t at) {
    const std::size_t i = containing(at);
    if (segs_[i].key == at) return i;
    segs_.insert(segs_.begin() + static_cast<std::ptrdiff_t>(i + 1), Entry{at, segs_[i].seg});
    return i + 1;
  }
  static bool same(const Seg& a, const Seg& b) { return a.writer == b.writer && a.readers == b.readers; }
  // Keeps the map small: neighbours with the same history become one segment. From the segment
  // before `first` (the one starting at b) through the last starting at or before e, each one
  // absorbs the equal ones after it.
  void merge_around(std::size_t first, std::uint64_t e) {
    std::size_t kept = first > 0 ? first - 1 : first;
    std::size_t next = kept + 1;
    while (next < segs_.size() && segs_[kept].key <= e) {
      if (same(segs_[kept].seg, segs_[next].seg)) {
        ++next;
        continue;
      }
      if (++kept != next) segs_[kept] = segs_[next];
      ++next;
    }
    segs_.erase(segs_.begin() + static_cast<std::ptrdiff_t>(kept + 1), segs_.begin() + static_cast<std::ptrdiff_t>(next));
  }
  std::vector<Entry> segs_;
};

}  // namespace

TokenStats derive_dependency_tokens(std::vector<isa::Instruction>& code, std::size_t first, std::size_t end,
                                    const std::vector<const cost::Footprint*>* footprints) {
  TokenStats stats;
  const std::size_t n = end - first;
  std::vector<Unit> unit_of(n);
  std::vector<Clock> done_before(n);  // per instruction: what is finished when it starts
  std::array<std::int64_t, kUnits> last_on{kNone, kNone, kNone, kNone};
  Clock floor{kNone, kNone, kNone, kNone};  // everything before the latest barrier
  AccessMap sram, ddr;
  constexpr std::uint64_t kAll = std::numeric_limits<std::uint64_t>::max();

  for (std::size_t k = 0; k < n; ++k) {
    isa::Instruction& in = code[first + k];
    const auto i = static_cast<std::int64_t>(k);
    in.pop = in.push = 0;
    const Unit unit = in.unit();
    unit_of[k] = unit;
    if (unit == Unit::Control) {  // barrier/halt: everything dispatched before has finished
      floor = last_on;
      continue;
    }
    const int u = static_cast<int>(unit);
    const bool dma = unit == Unit::Load || unit == Unit::Store;
    if (dma) {
      const bool long_transfer = cost::transfer_bytes(in) > kLongTransferBytes;
      in.set(isa::Field::channel, (unit == Unit::Load ? 0 : 1) + (long_transfer ? 0 : 2));
    }
    Clock clock = floor;
    if (last_on[u] != kNone) {  // the unit started (compute, vector: finished) its previous instruction
      join(clock, done_before[static_cast<std::size_t>(last_on[u])]);
      if (!dma) clock[u] = std::max(clock[u], last_on[u]);
    }
    cost::Footprint computed;
    if (!footprints) computed = cost::footprint(in);
    const cost::Footprint& f = footprints ? *(*footprints)[k] : computed;
    Clock need{kNone, kNone, kNone, kNone};
    if (!f.known) {
      sram.conflicts(0, kAll, true, need, unit_of);
    } else {
      for (const auto& r : f.sram_read) sram.conflicts(r.begin, r.end, false, need, unit_of);
      for (const auto& r : f.sram_write) sram.conflicts(r.begin, r.end, true, need, unit_of);
      for (const auto& r : f.ddr_read) ddr.conflicts(r.begin, r.end, false, need, unit_of);
      for (const auto& r : f.ddr_write) ddr.conflicts(r.begin, r.end, true, need, unit_of);
    }
    for (int p = 0; p < kUnits; ++p) {
      // A DMA transfer may overtake the one before it on another channel: one that touches the
      // bytes of an unfinished earlier transfer of its own unit waits for that one's token.
      if ((p == u && !dma) || need[p] == kNone || need[p] <= clock[p]) continue;
      // Producer need[p] gives this unit a token when it finishes; nothing later on unit p
      // pushed to this unit yet that an earlier pop did not already wait for (clock[p] <
      // need[p]), so the pairs stay matched in order.
      const auto j = static_cast<std::size_t>(need[p]);
      code[first + j].push |= static_cast<std::uint8_t>(1u << u);
      in.pop |= static_cast<std::uint8_t>(1u << p);
      join(clock, done_before[j]);
      clock[p] = std::max(clock[p], need[p]);
      ++stats.tokens;
    }
    done_before[k] = clock;
    last_on[u] = i;
    if (!f.known) {
      sram.record(0, kAll, true, i, unit);
    } else {
      for (const auto& r : f.sram_read) sram.record(r.begin, r.end, false, i, unit);
      for (const auto& r : f.sram_write) sram.record(r.begin, r.end, true, i, unit);
      for (const auto& r : f.ddr_read) ddr.record(r.begin, r.end, false, i, unit);
      for (const auto& r : f.ddr_write) ddr.record(r.begin, r.end, true, i, unit);
    }
  }
  return stats;
}

}  // namespace npu::compiler
