#include "compiler/backend/layer_interleave.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "compiler/backend/dependency_tokens.h"
#include "compiler/backend/window_timing_cache.h"
#include "costmodel/footprint.h"
#include "costmodel/machine/machine.h"
#include "costmodel/program_plan.h"

namespace npu::compiler {
namespace {

using isa::Opcode;
using isa::Unit;

// Lags tried per pair, in A's tiles after the conflict.
constexpr int kLags[] = {0, 1, 4};
// How many of B's own preceding instructions one may overtake (checked for conflicts).
constexpr std::size_t kOvertake = 16;
// How many layers before the predecessor a layer's loads may move into.
constexpr std::size_t kMaxDepth = 4;
// A move must beat the layers one after another by this much: estimates are not exact.
constexpr double kMinGain = 0.001;
// A window times at most this many of B's own instructions: a move changes how B starts under
// A, and B's later tiles follow the same way in every order (ViT-B/16's MLP layers have
// thousands; timing them all made the FP16 compile 10 % slower for the same choices).
constexpr std::size_t kWindowTail = 256;
// Pairs whose conflict scan would compare more instruction pairs than this stay as they are
// (compile time on very long layers).
constexpr std::uint64_t kMaxPairsScanned = 4'000'000;
// Windows that begin alike in fewer instructions than this are each timed from the start: the
// common part's own run would cost more than it saves (time_windows).
constexpr std::size_t kMinCommon = 64;

// The span from the lowest begin to the highest end of some byte ranges (none: empty).
struct Bounds {
  std::uint64_t begin = 0, end = 0;
  bool any = false;
  explicit Bounds(const std::vector<cost::ByteRange>& ranges) {
    for (const cost::ByteRange& r : ranges) {
      begin = any ? std::min(begin, r.begin) : r.begin;
      end = any ? std::max(end, r.end) : r.end;
      any = true;
    }
  }
  // first_conflict's overlap test, which each pair of ranges inside these bounds passes only if
  // the bounds do.
  bool may_overlap(const Bounds& o) const { return any && o.any && begin < o.end && o.begin < end; }
};

// A footprint's bounds: two instructions whose bounds are apart cannot conflict, which most pairs
// the conflict scan compares (another layer's region, other DDR bytes) show without walking their
// ranges.
struct FootprintBounds {
  Bounds sram_read, sram_write, ddr_read, ddr_write;
  explicit FootprintBounds(const cost::Footprint& f)
      : sram_read(f.sram_read), sram_write(f.sram_write), ddr_read(f.ddr_read), ddr_write(f.ddr_write) {}
  // The pairs first_conflict looks at, `this` the earlier instruction.
  bool may_conflict(const FootprintBounds& later) const {
    return sram_write.may_overlap(later.sram_read) || sram_read.may_overlap(later.sram_write) ||
           sram_write.may_overlap(later.sram_write) || ddr_write.may_overlap(later.ddr_read) ||
           ddr_read.may_overlap(later.ddr_write) || ddr_write.may_overlap(later.ddr_write);
  }
};

struct Item {
  Item(const isa::Instruction& inst, std::uint32_t owner)
      : inst(inst), owner(owner), unit(inst.unit()), fp(cost::footprint(inst)), bounds(fp) {}
  isa::Instruction inst;
  std::uint32_t owner = 0;
  Unit unit;  // unit, asked for every pair the conflict scan compares
  cost::Footprint fp;
  FootprintBounds bounds;
};

bool conflict(const Item& x, const Item& y) {
  if (!x.fp.known || !y.fp.known || x.unit == Unit::Control || y.unit == Unit::Control) return true;
  return x.bounds.may_conflict(y.bounds) && cost::first_conflict(x.fp, y.fp).has_value();
}

bool is_tile_step(const Item& it) { return it.unit == Unit::Compute || it.unit == Unit::Vector; }

// A window's code with its own tokens: stream[i] for each i of `items`.
std::vector<isa::Instruction> window_code(const std::vector<Item>& stream, const std::vector<std::size_t>& items,
                                          std::size_t count) {
  std::vector<isa::Instruction> code;
  std::vector<const cost::Footprint*> footprints;  // computed once per instruction, not per window
  code.reserve(count);
  footprints.reserve(count);
  for (std::size_t k = 0; k < count; ++k) {
    code.push_back(stream[items[k]].inst);
    footprints.push_back(&stream[items[k]].fp);
  }
  derive_dependency_tokens(code, 0, code.size(), &footprints);
  return code;
}

// Estimated cycles of stream[from, lo) followed by the instructions at each of `orders` (indices
// into stream) below `cut`, with their own tokens: what costmodel::estimate_program gives for
// each (a trial estimate). The orders begin alike up to where B's first moved instruction lands,
// so that common beginning is timed once, alone, and each window goes on from a copy of that
// machine (Machine::fork), which gives the same cycles as the window's own run.
std::vector<double> time_windows(const std::vector<Item>& stream, std::size_t from, std::size_t lo,
                                 const std::vector<std::vector<std::size_t>>& orders, const HardwareConfig& config,
                                 std::size_t cut) {
  std::vector<std::vector<std::size_t>> items(orders.size());
  for (std::size_t w = 0; w < orders.size(); ++w) {
    items[w].reserve(lo - from + orders[w].size());
    for (std::size_t i = from; i < lo; ++i) items[w].push_back(i);
    for (const std::size_t i : orders[w])
      if (i < cut) items[w].push_back(i);
  }
  std::size_t common = items.front().size();
  for (const auto& w : items) {
    const auto end = static_cast<std::ptrdiff_t>(std::min(common, w.size()));
    common = static_cast<std::size_t>(std::mismatch(w.begin(), w.begin() + end, items.front().begin()).first - w.begin());
  }
  cost::PlanOptions plan_options;  // as estimate_program's trial detail
  plan_options.unmatched_pops_satisfied = true;
  plan_options.trial = true;
  cost::MachineOptions machine_options;
  machine_options.record_instructions = false;
  machine_options.streaming_ddr = true;
  cost::ProgramPlan common_plan;  // outlives `stopped`
  std::unique_ptr<cost::Machine> stopped;
  if (orders.size() > 1 && common >= kMinCommon) {
    const std::vector<isa::Instruction> code = window_code(stream, items.front(), common);
    common_plan = cost::plan_program(code, 0, code.size(), config, plan_options);
    stopped = std::make_unique<cost::Machine>(common_plan, config, nullptr, machine_options);
    stopped->stop_before(common);
    if (!stopped->run_to_stop()) stopped.reset();
  }
  std::vector<double> cycles;
  cycles.reserve(orders.size());
  for (const auto& w : items) {
    const std::vector<isa::Instruction> code = window_code(stream, w, w.size());
    const cost::ProgramPlan plan = cost::plan_program(code, 0, code.size(), config, plan_options);
    std::unique_ptr<cost::Machine> machine = stopped ? stopped->fork(plan) : nullptr;
    if (!machine) machine = std::make_unique<cost::Machine>(plan, config, nullptr, machine_options);
    machine->run();
    cycles.push_back(static_cast<double>(machine->end_cycle()));
  }
  return cycles;
}

// time_windows's answer, from `cache` when windows equal to these up to their DDR placement
// were timed before (window_timing_cache.h): the windows are stream[from, cut), each as
// positions into it.
std::vector<double> windows_cycles(const std::vector<Item>& stream, std::size_t from, std::size_t lo,
                                   const std::vector<std::vector<std::size_t>>& orders, const HardwareConfig& config,
                                   std::size_t cut, WindowTimingCache& cache, bool check) {
  std::vector<const isa::Instruction*> code;
  std::vector<const cost::Footprint*> footprints;
  code.reserve(cut - from);
  footprints.reserve(cut - from);
  for (std::size_t i = from; i < cut; ++i) {
    code.push_back(&stream[i].inst);
    footprints.push_back(&stream[i].fp);
  }
  std::vector<std::vector<std::uint32_t>> windows(orders.size());
  for (std::size_t w = 0; w < orders.size(); ++w) {
    windows[w].reserve(lo - from + orders[w].size());
    for (std::size_t i = from; i < lo; ++i) windows[w].push_back(static_cast<std::uint32_t>(i - from));
    for (const std::size_t i : orders[w])
      if (i < cut) windows[w].push_back(static_cast<std::uint32_t>(i - from));
  }
  return cache.find_or_time(
      code, footprints, windows, [&] { return time_windows(stream, from, lo, orders, config, cut); }, check);
}

std::vector<std::size_t> identity(std::size_t first, std::size_t end) {
  std::vector<std::size_t> out(end - first);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = first + i;
  return out;
}

// stream[lo, bs) holds the code B may move into (layer `a`'s and later ones', with whatever
// moved in before); stream[bs, be) is layer B's. after[j]: the position right behind the last
// instruction before bs that B's instruction j conflicts with (0 if none). Returns the new
// order of stream[lo, be) with B's instructions moved in with the given lag.
std::vector<std::size_t> merge(const std::vector<Item>& stream, const std::vector<std::size_t>& after, std::size_t lo,
                               std::size_t bs, std::size_t be, std::uint32_t a, int lag, bool loads_only, std::size_t overtake,
                               std::size_t max_loads) {
  std::vector<std::size_t> markers;  // the tiles of the layers B moves into
  for (std::size_t p = lo; p < bs; ++p)
    if (stream[p].owner >= a && is_tile_step(stream[p])) markers.push_back(p);
  // The next compute instruction at or after p, or bs.
  auto next_compute = [&](std::size_t p) {
    while (p < bs && stream[p].unit != Unit::Compute) ++p;
    return p;
  };
  std::vector<std::size_t> pos(be - bs);
  std::size_t last_compute = bs;  // index (in B) of B's latest compute instruction
  std::size_t settled = 0, settled_max = 0;  // B's instructions before the overtake window, their latest position
  std::size_t loads_seen = 0;
  for (std::size_t j = 0; j < pos.size(); ++j) {
    const Item& b = stream[bs + j];
    const bool is_load = b.unit == Unit::Load;
    std::size_t req = loads_only && (!is_load || loads_seen >= max_loads) ? bs : std::max(lo, after[j]);
    if (is_load) ++loads_seen;
    if (lag > 0) {
      auto it = std::lower_bound(markers.begin(), markers.end(), req);
      const auto left = static_cast<std::size_t>(markers.end() - it);
      req = left >= static_cast<std::size_t>(lag) ? *(it + (lag - 1)) + 1 : bs;
    }
    // Behind B's own earlier instructions it conflicts with and, for array work, behind B's
    // previous one (a drain stays right behind its conv/gemm): a load may overtake B's earlier
    // loads of other bytes (a weight prefetch past its input's load). Only the last
    // kOvertake are looked at; anything earlier stays ahead.
    std::size_t at = std::max(req, lo);
    const std::size_t window = std::min<std::size_t>(j, overtake);
    while (settled < j - window) settled_max = std::max(settled_max, pos[settled++]);
    at = std::max(at, settled_max);
    for (std::size_t k = j - window; k < j; ++k)
      if ((b.unit == Unit::Compute && stream[bs + k].unit == Unit::Compute) ||
          conflict(stream[bs + k], b))
        at = std::max(at, pos[k]);
    if (b.unit == Unit::Compute) {
      // Not between a conv/gemm and the drain of its accumulators.
      const std::size_t q = next_compute(at);
      if (q < bs && stream[q].inst.opcode == Opcode::Drain) at = q + 1;
      if (b.inst.opcode == Opcode::Drain && last_compute < pos.size() && pos[last_compute] < at)
        for (std::size_t k = last_compute; k < j; ++k) pos[k] = at;  // right behind its own conv/gemm
      if (b.inst.opcode == Opcode::Drain && last_compute < settled) settled_max = std::max(settled_max, at);
      last_compute = j;
    }
    pos[j] = at;
  }
  std::vector<std::size_t> by_pos(pos.size());
  for (std::size_t k = 0; k < by_pos.size(); ++k) by_pos[k] = k;
  std::stable_sort(by_pos.begin(), by_pos.end(), [&](std::size_t x, std::size_t y) { return pos[x] < pos[y]; });
  std::vector<std::size_t> out;
  out.reserve(be - lo);
  std::size_t j = 0;
  for (std::size_t p = lo; p <= bs; ++p) {
    while (j < by_pos.size() && pos[by_pos[j]] == p) out.push_back(bs + by_pos[j++]);
    if (p < bs) out.push_back(p);
  }
  return out;
}

// Where each layer's earliest instruction is in the stream, kept up to date as moves reorder its
// end (a scan from the start for each lookup visited ViT-B/16's whole 38,000-instruction stream
// a dozen times per layer).
class FirstPositions {
 public:
  explicit FirstPositions(std::size_t layers) : first_(layers, kNone) {}
  std::size_t operator[](std::uint32_t layer) const { return first_[layer]; }
  void appended(std::uint32_t layer, std::size_t at) { first_[layer] = at; }
  // stream[from, end) was reordered: a layer whose first instruction was there finds it again
  // (one whose first lies before `from` keeps it, as no move reaches past `from`).
  void reordered(const std::vector<Item>& stream, std::size_t from) {
    for (std::size_t p = from; p < stream.size(); ++p)
      if (first_[stream[p].owner] >= from) first_[stream[p].owner] = kNone;
    for (std::size_t p = from; p < stream.size(); ++p)
      first_[stream[p].owner] = std::min(first_[stream[p].owner], p);
  }

 private:
  static constexpr std::size_t kNone = ~std::size_t{0};
  std::vector<std::size_t> first_;
};

}  // namespace

InterleavedCode interleave_layers(const std::vector<std::vector<isa::Instruction>>& layers, const HardwareConfig& config,
                                  const InterleaveOptions& options) {
  std::vector<Item> stream;
  FirstPositions first(layers.size());
  WindowTimingCache cache(config);
  std::vector<std::uint32_t> done;  // the layers with code so far, in order
  std::vector<std::uint32_t> violation;
  for (std::uint32_t layer = 0; layer < layers.size(); ++layer) {
    if (layers[layer].empty()) continue;
    const std::size_t bs = stream.size();
    for (const auto& inst : layers[layer]) stream.emplace_back(inst, layer);
    const std::size_t be = stream.size();
    first.appended(layer, bs);
    if (options.enabled && !done.empty()) {
      // Into the predecessor (depth 0) with all of B's instructions or only its loads (its
      // compute and stores then stay behind: a prefetch of its first tiles), and the loads alone
      // into up to kMaxDepth layers further back, where the scheduler kept B's region clear of
      // theirs (step_schedule.h). Each choice is timed against the layers apart over the same
      // window (from the layer before the one moved into); the largest gain wins.
      double best_gain = 0;
      std::vector<std::size_t> chosen;
      std::size_t chosen_lo = 0;
      // Where each of B's instructions may go at the earliest: behind its last conflict, scanned
      // back to the earliest instruction of the layers it may move into. (A layer's first
      // instruction is not always behind its predecessor's: its loads may have moved further
      // back than the predecessor's.)
      std::size_t depths = 0, deepest = bs;  // how many depths fit the scan budget
      while (depths <= kMaxDepth && depths < done.size()) {
        const std::size_t lo = std::min(deepest, first[done[done.size() - 1 - depths]]);
        if (static_cast<std::uint64_t>(bs - lo) * (be - bs) > kMaxPairsScanned) break;
        deepest = lo;
        ++depths;
      }
      if (depths > 0) {
        std::vector<const isa::Instruction*> code;
        std::vector<const cost::Footprint*> footprints;
        for (std::size_t i = deepest; i < be; ++i) {
          code.push_back(&stream[i].inst);
          footprints.push_back(&stream[i].fp);
        }
        // Relative to `deepest`: the same for the same code anywhere in the stream.
        const std::vector<std::uint32_t> last_conflict = cache.find_or_scan(
            code, footprints, static_cast<std::uint32_t>(bs - deepest),
            [&] {
              std::vector<std::uint32_t> found(be - bs, 0);
              for (std::size_t j = 0; j < found.size(); ++j)
                for (std::size_t p = bs; p-- > deepest;)
                  if (conflict(stream[p], stream[bs + j])) {
                    found[j] = static_cast<std::uint32_t>(p + 1 - deepest);
                    break;
                  }
              return found;
            },
            options.check_window_cache);
        std::vector<std::size_t> after(be - bs, 0);
        for (std::size_t j = 0; j < after.size(); ++j)
          if (last_conflict[j]) after[j] = deepest + last_conflict[j];
        // Deeper windows only change where B's leading loads go (loads only): not worth timing
        // once none of them can go further back than the last window's start.
        std::size_t earliest_load = bs, leading_loads = 0;
        for (std::size_t j = 0; j < after.size() && stream[bs + j].unit == Unit::Load; ++j, ++leading_loads)
          earliest_load = std::min(earliest_load, after[j]);
        std::size_t previous_lo = bs;
        for (std::size_t depth = 0; depth < depths; ++depth) {
          const std::size_t lo = first[done[done.size() - 1 - depth]];
          if (depth > 0 && earliest_load >= previous_lo) break;
          previous_lo = lo;
          const std::size_t from = depth + 1 < done.size() ? std::min(lo, first[done[done.size() - 2 - depth]]) : lo;
          // The orders timed at this depth, the layers apart first: different modes and lags often
          // give the same order, and the same order has the same cycles, so it could not beat the
          // first (a gain must be strictly larger) and is not timed again.
          std::vector<std::vector<std::size_t>> timed{identity(lo, be)};
          const std::size_t cut = bs + std::min<std::size_t>(be - bs, kWindowTail);
          // All of B in its own order; its loads in order, or overtaking B's earlier loads; or
          // only the first half of its leading loads (the rest stay behind A's own loads, which
          // A's compute may be waiting for).
          for (const std::size_t mode : {0, 1, 2, 3}) {
            const bool loads_only = mode > 0;
            if (depth > 0 && !loads_only) continue;
            if (mode == 3 && leading_loads < 4) continue;
            const std::size_t max_loads = mode == 3 ? leading_loads / 2 : be - bs;
            for (const int lag : kLags) {
              std::vector<std::size_t> trial = merge(stream, after, lo, bs, be, done[done.size() - 1 - depth], lag,
                                                     loads_only, mode == 2 ? kOvertake : 0, max_loads);
              if (std::find(timed.begin(), timed.end(), trial) == timed.end()) timed.push_back(std::move(trial));
            }
          }
          const std::vector<double> cycles =
              windows_cycles(stream, from, lo, timed, config, cut, cache, options.check_window_cache);
          const double apart = cycles.front();
          for (std::size_t k = 1; k < timed.size(); ++k) {
            const double gain = apart - cycles[k];
            if (gain > apart * kMinGain && gain > best_gain) {
              best_gain = gain;
              chosen = timed[k];
              chosen_lo = lo;
            }
          }
        }
      }
      if (options.log)
        std::fprintf(options.log, "interleave layer %u into %u: %s%.0f cycles\n", layer, done.back(),
                     chosen.empty() ? "kept apart, " : "saves ", chosen.empty() ? 0.0 : best_gain);
      // Each instruction the move put ahead of one that was ahead of it must not conflict with it.
      // Only B's instructions go ahead of others: where the code moved into kept its order (merge
      // keeps it), an instruction of it is passed by none behind it and is not looked at.
      bool kept_order = true;
      for (std::size_t x = 0, last = 0; x < chosen.size() && kept_order; ++x)
        if (chosen[x] < bs) {
          kept_order = last <= chosen[x];
          last = chosen[x];
        }
      if (options.check_order && violation.empty())
        for (std::size_t x = 0; x < chosen.size() && violation.empty(); ++x) {
          if (kept_order && chosen[x] < bs) continue;
          for (std::size_t y = x + 1; y < chosen.size(); ++y)
            if (chosen[y] < chosen[x] && conflict(stream[chosen[y]], stream[chosen[x]])) {
              violation = {stream[chosen[x]].owner, stream[chosen[y]].owner};
              break;
            }
        }
      if (!chosen.empty()) {
        std::vector<Item> moved;
        moved.reserve(chosen.size());
        for (const std::size_t i : chosen) moved.push_back(std::move(stream[i]));
        std::move(moved.begin(), moved.end(), stream.begin() + static_cast<std::ptrdiff_t>(chosen_lo));
        first.reordered(stream, chosen_lo);
      }
    }
    done.push_back(layer);
  }
  if (options.log && options.enabled)
    std::fprintf(options.log, "interleave windows: %zu timed, %zu alike up to DDR placement\n", cache.misses(), cache.hits());
  InterleavedCode out;
  out.order_violation = std::move(violation);
  out.code.reserve(stream.size());
  out.owner.reserve(stream.size());
  for (auto& it : stream) {
    out.code.push_back(std::move(it.inst));
    out.owner.push_back(it.owner);
  }
  return out;
}

}  // namespace npu::compiler
