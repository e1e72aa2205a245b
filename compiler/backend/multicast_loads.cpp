#include "compiler/backend/multicast_loads.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "costmodel/footprint.h"
#include "isa/instruction_set.h"

namespace npu::compiler {
namespace {

using isa::Field;
using isa::Opcode;

// A load's identity across engines: its layer, its DDR side and which occurrence of that side
// in the layer it is.
using LoadKey = std::tuple<std::uint32_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                           std::int64_t, std::size_t>;

// An mload has three dimensions; the shared SRAM is on chip already.
bool can_multicast(const isa::Instruction& in) {
  return in.opcode == Opcode::Load && in.get(Field::count3) == 1 &&
         static_cast<std::uint64_t>(in.get(Field::ddr_addr)) < isa::kSharedSramBase;
}

// Per engine, per sync segment: the keys of its candidate loads in program order, and where each is.
struct Segments {
  std::vector<std::vector<LoadKey>> keys;
  std::vector<std::vector<std::size_t>> at;
};

Segments segments_of(const InterleavedCode& s, std::uint64_t min_bytes) {
  Segments out;
  out.keys.emplace_back();
  out.at.emplace_back();
  std::map<LoadKey, std::size_t> seen;
  for (std::size_t i = 0; i < s.code.size(); ++i) {
    const isa::Instruction& in = s.code[i];
    if (in.opcode == Opcode::Sync) {
      out.keys.emplace_back();
      out.at.emplace_back();
      continue;
    }
    if (!can_multicast(in) ||
        static_cast<std::uint64_t>(in.get(Field::len0) * in.get(Field::count1) * in.get(Field::count2)) < min_bytes)
      continue;
    LoadKey key{s.owner[i],
                in.get(Field::ddr_addr),
                in.get(Field::len0),
                in.get(Field::count1),
                in.get(Field::count2),
                in.get(Field::ddr_stride1),
                in.get(Field::ddr_stride2),
                0};
    std::get<7>(key) = seen[key]++;
    out.keys.back().push_back(key);
    out.at.back().push_back(i);
  }
  return out;
}

// Keys are unique within an engine's stream (occurrence numbers).
constexpr std::size_t kLongestCommonCells = std::size_t{1} << 22;

constexpr int kMaxMovesPerSegment = 16;

std::uint64_t key_bytes(const LoadKey& k) {
  return static_cast<std::uint64_t>(std::get<2>(k) * std::get<3>(k) * std::get<4>(k));
}

// A common subsequence of a and b: the one of most bytes where the table is small (two shared
// loads crossed between engines keep the bigger, a weight block rather than its parameters),
// else a's order kept where b agrees (each key of a found in b after the last one kept).
std::vector<LoadKey> common_order(const std::vector<LoadKey>& a, const std::vector<LoadKey>& b) {
  const std::size_t n = a.size(), m = b.size();
  if ((n + 1) * (m + 1) > kLongestCommonCells) {
    std::map<LoadKey, std::size_t> in_b;
    for (std::size_t j = 0; j < m; ++j) in_b.emplace(b[j], j);
    std::vector<LoadKey> out;
    std::size_t after = 0;
    for (const LoadKey& k : a) {
      const auto it = in_b.find(k);
      if (it == in_b.end() || it->second < after) continue;
      out.push_back(k);
      after = it->second + 1;
    }
    return out;
  }
  std::vector<std::vector<std::uint64_t>> len(n + 1, std::vector<std::uint64_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      len[i][j] = std::max({a[i] == b[j] ? len[i + 1][j + 1] + key_bytes(a[i]) : 0, len[i + 1][j], len[i][j + 1]});
  std::vector<LoadKey> out;
  for (std::size_t i = 0, j = 0; i < n && j < m;) {
    if (a[i] == b[j]) {
      out.push_back(a[i]);
      ++i, ++j;
    } else if (len[i + 1][j] >= len[i][j + 1]) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

std::uint64_t common_bytes(const std::vector<LoadKey>& a, const std::vector<LoadKey>& b) {
  std::uint64_t bytes = 0;
  for (const LoadKey& k : common_order(a, b)) bytes += key_bytes(k);
  return bytes;
}

// Moves, on one engine, each shared load the reference engine issues after another one (its
// predecessor there) but this engine issues first, down to just after that predecessor, where no
// instruction in between touches its bytes. Interleaving can pull a layer's first weight block
// ahead of the previous layer's loads on one engine only (its part of the layer is smaller, its
// regions differ), and the k-th mloads must meet in order: without the move one side of the
// crossing loads once per engine. Returns whether it moved one (`mine` updated).
bool follow_reference(InterleavedCode& s, Segments& mine, std::size_t segment, const std::vector<LoadKey>& reference) {
  const auto& keys = mine.keys[segment];
  std::map<LoadKey, std::size_t> at;
  for (std::size_t j = 0; j < keys.size(); ++j) at.emplace(keys[j], j);
  std::optional<std::size_t> previous;  // where this engine has the last reference load it shares
  for (const LoadKey& k : reference) {
    const auto here = at.find(k);
    if (here == at.end()) continue;
    if (previous && *previous > here->second) {
      const std::size_t from = mine.at[segment][here->second], to = mine.at[segment][*previous];
      const cost::Footprint moved = cost::footprint(s.code[from]);
      bool free = true;
      for (std::size_t i = from + 1; i <= to && free; ++i)
        free = !cost::first_conflict(moved, cost::footprint(s.code[i])).has_value();
      if (free) {
        const auto f = static_cast<std::ptrdiff_t>(from), t = static_cast<std::ptrdiff_t>(to);
        std::rotate(s.code.begin() + f, s.code.begin() + f + 1, s.code.begin() + t + 1);
        std::rotate(s.owner.begin() + f, s.owner.begin() + f + 1, s.owner.begin() + t + 1);
        // The instructions in between moved up one; only this segment's loads lie there.
        std::vector<std::pair<std::size_t, LoadKey>> loads;
        for (std::size_t j = 0; j < keys.size(); ++j) {
          std::size_t p = mine.at[segment][j];
          p = p == from ? to : p > from && p <= to ? p - 1 : p;
          loads.emplace_back(p, keys[j]);
        }
        std::sort(loads.begin(), loads.end());
        for (std::size_t j = 0; j < loads.size(); ++j) {
          mine.at[segment][j] = loads[j].first;
          mine.keys[segment][j] = loads[j].second;
        }
        return true;
      }
    }
    previous = here->second;
  }
  return false;
}

isa::Instruction as_mload(const isa::Instruction& load) {
  isa::Instruction m = isa::make_instruction(Opcode::MulticastLoad);
  m.pop = load.pop;
  m.push = load.push;
  for (Field f : {Field::channel, Field::ddr_addr, Field::sram_addr, Field::len0, Field::count1, Field::count2,
                  Field::ddr_stride1, Field::ddr_stride2, Field::sram_stride1, Field::sram_stride2})
    m.set(f, load.get(f));
  m.set(Field::group_first, 0);
  m.set(Field::group_count, 0);  // every engine of the program
  return m;
}

}  // namespace

std::vector<MulticastCount> multicast_shared_loads(std::vector<InterleavedCode>& streams, std::uint64_t min_bytes) {
  std::vector<MulticastCount> counts;
  if (streams.size() < 2) return counts;
  std::vector<Segments> segs;
  for (const auto& s : streams) segs.push_back(segments_of(s, min_bytes));
  const std::size_t segments = segs.front().keys.size();
  for (const auto& s : segs)
    if (s.keys.size() != segments) return counts;  // every engine meets at the same syncs
  for (std::size_t g = 0; g < segments; ++g) {
    // The reference order: the engine sharing the most bytes with the others.
    std::size_t reference = 0;
    std::uint64_t most = 0;
    for (std::size_t e = 0; e < segs.size() && segs.size() > 2; ++e) {
      std::uint64_t shared = 0;
      for (std::size_t o = 0; o < segs.size(); ++o)
        if (o != e) shared += common_bytes(segs[e].keys[g], segs[o].keys[g]);
      if (shared > most) most = shared, reference = e;
    }
    const std::vector<LoadKey> order = segs[reference].keys[g];
    for (std::size_t e = 0; e < segs.size(); ++e)
      for (int moves = 0; e != reference && moves < kMaxMovesPerSegment && follow_reference(streams[e], segs[e], g, order);)
        ++moves;
    std::vector<LoadKey> kept = segs.front().keys[g];
    for (std::size_t e = 1; e < segs.size() && !kept.empty(); ++e) kept = common_order(kept, segs[e].keys[g]);
    if (kept.empty()) continue;
    // Each engine's loads of `kept`, in its order: the first subsequence equal to it.
    for (std::size_t e = 0; e < segs.size(); ++e) {
      const auto& keys = segs[e].keys[g];
      std::size_t k = 0;
      for (std::size_t j = 0; j < keys.size() && k < kept.size(); ++j) {
        if (keys[j] != kept[k]) continue;
        isa::Instruction& in = streams[e].code[segs[e].at[g][j]];
        in = as_mload(in);
        ++k;
      }
    }
    for (const LoadKey& k : kept) {
      const std::uint32_t layer = std::get<0>(k);
      if (counts.size() <= layer) counts.resize(layer + 1);
      ++counts[layer].loads;
      counts[layer].bytes += static_cast<std::uint64_t>(std::get<2>(k) * std::get<3>(k) * std::get<4>(k));
    }
  }
  return counts;
}

}  // namespace npu::compiler
