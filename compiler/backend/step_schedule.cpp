#include "compiler/backend/step_schedule.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <tuple>

#include "compiler/backend/sram_allocator.h"

namespace npu::compiler {
namespace {

// How much more a smaller region may cost, per compaction level: 0 is the layer's own choice
// (a layer sizing its tiles from its region still shrinks within 2%), 1 its compact region,
// higher levels squeeze it further to make room for a resident value, whose DDR time saved
// must still exceed what the layers lose.
constexpr double kNearBest[] = {1.02, 1.02, 1.05, 1.12, 1.25};
constexpr int kLevels = sizeof(kNearBest) / sizeof(kNearBest[0]);
constexpr std::uint64_t kSmallestProbe = 4096;
// How many predecessors' regions a layer's region may stay clear of.
constexpr std::int64_t kMaxReach = 10;
// A layer is bound by its transfers when its DDR time is over this share of its estimated
// cycles: it gets a third weight buffer where the bytes are free.
constexpr double kDdrBoundShare = 0.7;

std::string fmt_level(int level) { return " (compaction level " + std::to_string(level) + ")"; }

struct Pref {
  std::uint64_t bytes = 0;
  double cycles = 0, ddr_bytes = 0;
  std::uint64_t weight_slot_bytes = 0;  // LayerDemand's
};

class StepScheduler {
 public:
  StepScheduler(const std::vector<StepLayer>& layers, const std::map<std::string, StepValue>& values,
                const StepScheduleOptions& o, const DemandFn& demand)
      : layers_(layers), values_(values), o_(o), demand_(demand) {
    for (std::size_t i = 0; i < layers.size(); ++i) {
      for (const auto& v : layers[i].outputs) producer_[v] = static_cast<std::int64_t>(i);
      for (const auto& v : layers[i].inputs) readers_[v].push_back(static_cast<std::int64_t>(i));
    }
  }

  StepSchedule run();

 private:
  bool aware(std::int64_t i) const {
    return i >= 0 && i < static_cast<std::int64_t>(layers_.size()) && layers_[static_cast<std::size_t>(i)].region_aware;
  }
  // Layer i's scratch shares no bytes with its predecessor's, unless one of them takes the
  // whole scratchpad anyway; a layer given a longer reach shares none with its reach_[i]
  // predecessors' either (its first loads can then run under theirs).
  LiveBuffer scratch_buffer(std::size_t i, std::uint64_t bytes) const {
    const auto at = static_cast<std::int64_t>(i);
    std::int64_t first = at;
    if (separate_[i])
      for (std::int64_t k = 1; k <= reach_[i] && aware(at) && aware(at - k); ++k) first = at - k;
    return {first, at, bytes};
  }
  std::pair<std::int64_t, std::int64_t> lifetime(const std::string& v) const {
    const std::int64_t p = producer_.at(v);
    std::int64_t last = p;
    if (auto it = readers_.find(v); it != readers_.end())
      for (std::int64_t r : it->second) last = std::max(last, r);
    return {aware(p - 1) ? p - 1 : p, last};
  }
  std::optional<Pref> preferred(std::size_t i, const std::map<std::string, ValueHome>& homes, int level);
  std::optional<LayerDemand> demand(std::size_t i, const std::map<std::string, ValueHome>& homes, const std::string& state,
                                    std::uint64_t budget);
  std::optional<std::vector<std::uint64_t>> place(const std::map<std::string, ValueHome>& homes,
                                                  const std::vector<Pref>& prefs, std::vector<std::string>& order,
                                                  std::size_t* failed = nullptr) const;

  const std::vector<StepLayer>& layers_;
  const std::map<std::string, StepValue>& values_;
  const StepScheduleOptions& o_;
  const DemandFn& demand_;
  std::map<std::string, std::int64_t> producer_;
  std::map<std::string, std::vector<std::int64_t>> readers_;
  std::map<std::pair<std::size_t, std::string>, std::optional<Pref>> memo_;
  std::map<std::tuple<std::size_t, std::string, std::uint64_t>, std::optional<LayerDemand>> demands_;
  std::vector<int> compact_;  // per layer: the compaction level it was asked for
  std::vector<bool> separate_;  // per layer: its scratch region shares no bytes with its predecessor's
  std::vector<std::int64_t> reach_;  // per layer: how many predecessors' regions its own stays clear of
};

// demand_'s answer for layer i in `budget` bytes, asked once per home state of its values (`state`,
// as preferred's memo keys it): every compaction level above 0, and level 0 of a layer that
// takes all it is given, probes the same falling budgets, and generating a layer's trial code
// for each is most of what scheduling ViT-B/16 costs.
std::optional<LayerDemand> StepScheduler::demand(std::size_t i, const std::map<std::string, ValueHome>& homes,
                                                 const std::string& state, std::uint64_t budget) {
  auto key = std::make_tuple(i, state, budget);
  if (auto it = demands_.find(key); it != demands_.end()) return it->second;
  std::optional<LayerDemand> d = demand_(i, homes, budget);
  demands_.emplace(std::move(key), d);
  return d;
}

// What the layer takes of the whole scratchpad, or (level > 0) the smallest region, in steps of
// a fifth from that, which keeps it within kNearBest[level] of its best estimated cycles and
// DDR bytes.
std::optional<Pref> StepScheduler::preferred(std::size_t i, const std::map<std::string, ValueHome>& homes, int level) {
  const StepLayer& L = layers_[i];
  if (!L.has_code) return Pref{};
  std::string state;  // where each of its values lives: in DDR only, both, resident only
  for (const auto* names : {&L.inputs, &L.outputs})
    for (const auto& v : *names) {
      auto it = homes.find(v);
      state += it == homes.end() ? 'd' : it->second.in_ddr ? 'b' : 'r';
    }
  const std::string key = static_cast<char>('0' + level) + state;
  auto memo = memo_.find({i, key});
  if (memo != memo_.end()) return memo->second;
  std::optional<Pref> result;
  if (auto full = demand(i, homes, state, o_.capacity)) {
    Pref best{full->sram_bytes, full->cycles, full->ddr_bytes, full->weight_slot_bytes};
    if (!L.region_aware) {
      best.bytes = o_.capacity;
    } else if (level > 0 || full->takes_all) {  // a layer sizing its tiles from the region is never given all of it
      auto smaller = [&](std::uint64_t b) { return b * 4 / 5 / o_.alignment * o_.alignment; };
      for (std::uint64_t budget = smaller(best.bytes); budget >= kSmallestProbe && budget >= o_.capacity / 64;
           budget = smaller(std::min(budget, best.bytes))) {
        auto d = demand(i, homes, state, budget);
        const double near = kNearBest[level];
        if (!d || d->cycles > full->cycles * near || d->ddr_bytes > full->ddr_bytes * near) break;
        best = {d->sram_bytes, d->cycles, d->ddr_bytes, d->weight_slot_bytes};
      }
    }
    result = best;
  }
  memo_.emplace(std::make_pair(i, key), result);
  return result;
}

std::optional<std::vector<std::uint64_t>> StepScheduler::place(const std::map<std::string, ValueHome>& homes,
                                                               const std::vector<Pref>& prefs,
                                                               std::vector<std::string>& order, std::size_t* failed) const {
  std::vector<LiveBuffer> buffers;
  for (std::size_t i = 0; i < layers_.size(); ++i) buffers.push_back(scratch_buffer(i, prefs[i].bytes));
  order.clear();
  for (const auto& [v, home] : homes) {
    auto [first, last] = lifetime(v);
    buffers.push_back({first, last, values_.at(v).bytes});
    order.push_back(v);
  }
  return place_buffers(buffers, o_.capacity, o_.alignment, failed);
}

StepSchedule StepScheduler::run() {
  const std::size_t n = layers_.size();
  std::map<std::string, ValueHome> homes;
  std::vector<Pref> prefs(n);
  compact_.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    auto p = preferred(i, homes, 0);
    prefs[i] = p ? *p : Pref{o_.capacity, 0};  // no plan at all: the generator reports it
  }
  // Neighbouring layers that do not fit side by side even compact tile one after the other:
  // while placement fails, the layer that did not fit (or its successor) stops being kept
  // apart from its predecessor.
  separate_.assign(n, true);
  reach_.assign(n, 1);
  std::vector<std::string> none;
  if (!place(homes, prefs, none)) {
    for (std::size_t i = 0; i < n; ++i) {
      compact_[i] = 1;
      if (auto p = preferred(i, homes, 1)) prefs[i] = *p;
    }
    std::size_t failed = 0;
    while (!place(homes, prefs, none, &failed)) {
      std::size_t i = failed < n ? failed : n - 1;
      if (!separate_[i] && i + 1 < n) ++i;
      while (i > 0 && !separate_[i]) --i;  // a predecessor still kept apart
      if (!separate_[i]) break;           // nothing left to merge: cannot happen
      separate_[i] = false;
    }
  }
  // Candidates, most DDR traffic saved per byte and position held first.
  struct Candidate {
    std::string value;
    double density;
    std::uint64_t bytes;
  };
  std::vector<Candidate> candidates;
  for (const auto& [v, p] : producer_) {
    const StepValue& val = values_.at(v);
    auto readers = readers_.find(v);
    const StepLayer& producer = layers_[static_cast<std::size_t>(p)];
    if (readers == readers_.end() || !producer.writes_resident || producer.ddr_only.count(v)) continue;
    if (val.bytes == 0 || val.bytes > o_.capacity / 2 || val.off_chip) continue;
    auto [first, last] = lifetime(v);
    candidates.push_back({v, (1.0 + static_cast<double>(readers->second.size())) / static_cast<double>(last - first + 1),
                          val.bytes});
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.density != b.density ? a.density > b.density : a.bytes < b.bytes;
  });
  std::vector<std::string> order;
  for (const auto& c : candidates) {
    const std::int64_t p = producer_.at(c.value);
    ValueHome home;
    home.resident = true;
    home.in_ddr = o_.keep_all_in_ddr || values_.at(c.value).step_output || values_.at(c.value).read_elsewhere;
    for (std::int64_t r : readers_.at(c.value))
      if (!layers_[static_cast<std::size_t>(r)].reads_resident || layers_[static_cast<std::size_t>(r)].ddr_only.count(c.value))
        home.in_ddr = true;
    auto trial = homes;
    trial[c.value] = home;
    std::set<std::int64_t> affected(readers_.at(c.value).begin(), readers_.at(c.value).end());
    affected.insert(p);
    // First as the layers are; while that does not fit, with every layer alive meanwhile
    // squeezed one compaction level further.
    auto [first, last] = lifetime(c.value);
    bool admitted = false;
    std::vector<Pref> trial_prefs;
    std::vector<int> trial_compact;
    for (int shrink = 0; shrink < kLevels; ++shrink) {
      trial_prefs = prefs;
      trial_compact = compact_;
      if (shrink)
        for (std::int64_t i = std::max<std::int64_t>(0, first - 1); i <= last && i < static_cast<std::int64_t>(n); ++i)
          trial_compact[static_cast<std::size_t>(i)] = std::max(trial_compact[static_cast<std::size_t>(i)], shrink);
      bool ok = true;
      std::size_t planless = n;  // the layer that has no plan with the value in place
      for (std::size_t i = 0; i < n && ok; ++i) {
        if (!affected.count(static_cast<std::int64_t>(i)) && trial_compact[i] == compact_[i]) continue;
        auto pr = preferred(i, trial, trial_compact[i]);
        if (!pr) ok = false, planless = i;
        else trial_prefs[i] = *pr;
      }
      // Worth it only if the layers' estimates lose less than the DDR time it saves.
      double slower = 0, saved = 0;
      for (std::size_t i = 0; i < n && ok; ++i) {
        slower += trial_prefs[i].cycles - prefs[i].cycles;
        saved += prefs[i].ddr_bytes - trial_prefs[i].ddr_bytes;
      }
      if (ok && slower > saved / o_.ddr_bytes_per_cycle) {
        if (o_.log)
          std::fprintf(o_.log, "keep %s in DDR: %.0f cycles slower, %.0f saved\n", c.value.c_str(), slower,
                       saved / o_.ddr_bytes_per_cycle);
        break;
      }
      if (ok && place(trial, trial_prefs, order)) {
        admitted = true;
        break;
      }
      if (o_.log)
        std::fprintf(o_.log, "keep %s in DDR: %s%s\n", c.value.c_str(),
                     ok ? "does not fit" : ("no plan with it in place for layer " + std::to_string(planless)).c_str(),
                     shrink ? fmt_level(shrink).c_str() : "");
    }
    if (!admitted) continue;
    compact_ = std::move(trial_compact);
    homes = std::move(trial);
    prefs = std::move(trial_prefs);
  }
  // Neighbours made to share bytes before any value was admitted may fit apart in the final
  // regions (squeezed or not): keep them apart where they now fit.
  for (std::size_t i = 0; i < n; ++i) {
    if (separate_[i]) continue;
    separate_[i] = true;
    if (!place(homes, prefs, order)) separate_[i] = false;
  }
  // Every layer with DDR transfers then keeps its region clear of up to kMaxReach predecessors'
  // while everything still fits, the most DDR-bound first (a layer's estimate includes its DDR
  // time: the share is how much of it the transfers take): its weights can then load under
  // earlier layers' compute (compiler/backend/layer_interleave.h moves the loads there where the
  // cost model finds it faster). Until 2026-12-07 only the bound layers did; a decode step's
  // GEMVs, whose array time about equals their weights' DDR time, then waited for the attention
  // chain's regions.
  auto ddr_share = [&](std::size_t i) {
    return prefs[i].cycles > 0 ? prefs[i].ddr_bytes / o_.ddr_bytes_per_cycle / prefs[i].cycles : 0.0;
  };
  // (A layer that moves no DDR byte has nothing to load early: its reach would only hold bytes
  // that others could reach into; measured: GPT-tiny decode on npu-40tops-55gbps 7.7 % slower.)
  std::vector<std::size_t> by_share;  // the layers kept apart from their predecessor, the most DDR-bound first
  for (std::size_t i = 0; i < n; ++i)
    if (layers_[i].has_code && separate_[i] && ddr_share(i) > 0) by_share.push_back(i);
  std::stable_sort(by_share.begin(), by_share.end(), [&](std::size_t a, std::size_t b) { return ddr_share(a) > ddr_share(b); });
  std::vector<std::size_t> bound;
  for (const std::size_t i : by_share)
    if (ddr_share(i) > kDdrBoundShare) bound.push_back(i);
  // First, where the bytes are free, a third weight buffer for those layers (more took the
  // bytes deep reach needs: measured worse on ResNet-18, npu-40tops-55gbps): their loads run a
  // chunk further ahead, across the wait for their input. Then the reach.
  std::vector<bool> third_weight_slot(n, false);
  auto reach_out = [&](std::size_t i) {
    // Usually the whole reach fits: one placement instead of one per step of it (every layer of
    // a 400-layer model reaching out one step at a time tripled its compile time).
    const std::int64_t was = reach_[i];
    reach_[i] = kMaxReach;
    if (place(homes, prefs, order)) return;
    reach_[i] = was;
    for (std::int64_t r = reach_[i] + 1; r < kMaxReach; ++r) {
      reach_[i] = r;
      if (!place(homes, prefs, order)) {
        reach_[i] = r - 1;
        break;
      }
    }
  };
  auto deepen = [&](std::size_t i) {
    if (prefs[i].weight_slot_bytes == 0) return;
    prefs[i].bytes += prefs[i].weight_slot_bytes;
    third_weight_slot[i] = place(homes, prefs, order).has_value();
    if (!third_weight_slot[i]) prefs[i].bytes -= prefs[i].weight_slot_bytes;
  };
  for (const std::size_t i : bound) deepen(i);
  for (const std::size_t i : by_share) reach_out(i);
  auto offsets = place(homes, prefs, order);
  StepSchedule out;
  if (!offsets) {  // cannot happen: every admission was placed
    out.scratch.assign(n, SramRegion{0, o_.capacity});
    out.est_cycles.assign(n, 0);
    return out;
  }
  out.third_weight_slot = third_weight_slot;
  for (std::size_t i = 0; i < n; ++i) {
    out.scratch.push_back(layers_[i].region_aware ? SramRegion{(*offsets)[i], prefs[i].bytes} : SramRegion{0, o_.capacity});
    out.est_cycles.push_back(prefs[i].cycles);
  }
  for (std::size_t k = 0; k < order.size(); ++k) {
    ValueHome h = homes.at(order[k]);
    h.sram_addr = (*offsets)[n + k];
    out.homes[order[k]] = h;
  }
  return out;
}

}  // namespace

StepSchedule schedule_step(const std::vector<StepLayer>& layers, const std::map<std::string, StepValue>& values,
                           const StepScheduleOptions& options, const DemandFn& demand) {
  return StepScheduler(layers, values, options, demand).run();
}

}  // namespace npu::compiler
