#include "compiler/backend/engine_split.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace npu::compiler {
namespace {

// Output rows cut as evenly as they go, at e * extent / k: layers of the same height (or twice
// it, behind a stride of 2) get parts whose rows line up, so their values stay on each engine.
std::vector<EnginePart> cut_rows(std::int64_t extent, int k) {
  std::vector<EnginePart> parts;
  for (int e = 0; e < k; ++e) {
    const std::int64_t b = extent * e / k, end = extent * (e + 1) / k;
    if (end > b) parts.push_back({LoopDim::Rows, b, end});
  }
  return parts;
}

// Output-channel units in chunks of whole granules where there are enough of them.
std::vector<EnginePart> cut_channels(std::int64_t extent, int k, std::int64_t granule) {
  std::int64_t chunk = (extent + k - 1) / k;
  if (granule > 1 && extent >= granule * k) chunk = (chunk + granule - 1) / granule * granule;
  std::vector<EnginePart> parts;
  for (std::int64_t b = 0; b < extent; b += chunk) parts.push_back({LoopDim::OutChannels, b, std::min(extent, b + chunk)});
  return parts;
}

std::string cycles_text(double c) {
  char s[32];
  std::snprintf(s, sizeof s, "%.0f", c);
  return s;
}

ValueBox whole(CodegenContext& ctx, const std::string& value) {
  const DdrTensor& t = ctx.tensor(value);
  return {0, t.h, 0, t.c};
}

}  // namespace

std::vector<EngineSplit> choose_engine_splits(CodegenContext& ctx, const StepLayerView& step, int engines,
                                              EngineSplitMode mode, const PartPrice& price) {
  std::vector<EngineSplit> splits(step.nodes.size());
  if (engines < 2 || mode == EngineSplitMode::None) return splits;
  for (std::size_t i = 0; i < step.nodes.size(); ++i) {
    const LayerSplitter* splitter = step.families[i]->splitter;
    if (!(*step.layers)[i].has_code) continue;
    if (!splitter) {
      splits[i].why = std::string(step.families[i]->name) + " layers do not split";
      continue;
    }
    const Node& n = *step.nodes[i];
    struct Option {
      std::vector<EnginePart> parts;
      double cycles = 0;
    };
    std::vector<Option> options;
    for (const LoopDim dim : {LoopDim::Rows, LoopDim::OutChannels}) {
      if ((mode == EngineSplitMode::Rows && dim != LoopDim::Rows) || (mode == EngineSplitMode::Channels && dim != LoopDim::OutChannels))
        continue;
      const std::int64_t extent = splitter->extent(ctx, n, dim);
      if (extent < 2) continue;
      const int k = static_cast<int>(std::min<std::int64_t>(engines, extent));
      Option o;
      o.parts = dim == LoopDim::Rows ? cut_rows(extent, k) : cut_channels(extent, k, splitter->channel_granule(ctx, n));
      if (o.parts.size() < 2) continue;
      bool fits = true;
      for (const EnginePart& p : o.parts) {
        const auto c = price(i, p, static_cast<int>(o.parts.size()));
        if (!c) fits = false;
        else o.cycles = std::max(o.cycles, *c);
      }
      if (fits) options.push_back(std::move(o));
    }
    EngineSplit& split = splits[i];
    if (options.empty()) {
      split.why = "no split fits";
      continue;
    }
    const Option* best = &options.front();
    for (const Option& o : options)
      if (o.cycles < best->cycles) best = &o;
    // The estimates behind the choice: the slowest engine's part of each split, and the layer whole.
    std::string estimates;
    for (const Option& o : options)
      estimates += ", by " + std::string(engine_split_dim_name(o.parts.front().dim)) + " " + cycles_text(o.cycles);
    if (mode != EngineSplitMode::Auto) {
      split.parts = best->parts;
      split.why = "forced; est " + cycles_text(best->cycles) + " cycles on the slowest engine";
      continue;
    }
    const std::optional<double> alone = price(i, std::nullopt, 1);
    const double whole_cycles = alone.value_or(std::numeric_limits<double>::infinity());
    const std::string whole = alone ? "whole " + cycles_text(whole_cycles) : std::string("whole: no plan");
    split.why = "est cycles " + whole + estimates;
    if (whole_cycles <= best->cycles) continue;
    split.parts = best->parts;
  }
  return splits;
}

std::optional<EnginePart> StepShares::part(std::size_t layer, int engine) const {
  const EngineSplit& s = splits[layer];
  if (s.parts.empty() || engine >= static_cast<int>(s.parts.size())) return std::nullopt;
  return s.parts[static_cast<std::size_t>(engine)];
}

bool StepShares::runs(std::size_t layer, int engine) const {
  return splits[layer].parts.empty() ? engine == 0 : engine < static_cast<int>(splits[layer].parts.size());
}

StepShares share_step(CodegenContext& ctx, const StepLayerView& step, std::vector<EngineSplit> splits, int engines) {
  StepShares shares;
  shares.engines = engines;
  shares.splits = std::move(splits);
  const std::size_t n = step.nodes.size();
  shares.sync_before.assign(n, false);
  // Per value: its producing layer and the box each engine writes; per layer and engine, the
  // boxes of the values it reads.
  std::map<std::string, std::size_t> producer;
  std::map<std::string, std::map<int, ValueBox>> written;
  struct Read {
    std::size_t layer;
    int engine;
    std::string value;
    ValueBox box;
  };
  std::vector<Read> reads;
  for (std::size_t i = 0; i < n; ++i) {
    const StepLayer& L = (*step.layers)[i];
    if (!L.has_code) continue;
    const Node& node = *step.nodes[i];
    const LayerSplitter* splitter = step.families[i]->splitter;
    for (int e = 0; e < engines; ++e) {
      if (!shares.runs(i, e)) continue;
      const std::optional<EnginePart> part = shares.part(i, e);
      for (const auto& o : L.outputs) {
        producer[o] = i;
        written[o][e] = part && o == node.outputs[0] ? splitter->writes(ctx, node, *part) : whole(ctx, o);
      }
      for (std::size_t k = 0; k < node.inputs.size(); ++k) {
        const std::string& v = node.inputs[k];
        if (v.empty() || ctx.graph.is_constant(v)) continue;
        const std::optional<ValueBox> box = part ? std::optional<ValueBox>(splitter->reads(ctx, node, *part, k)) : std::nullopt;
        // A box of a view is in the view's shape: the whole value it aliases stands for it.
        auto add = [&](const std::string& name, std::optional<ValueBox> b) {
          const std::string& root = ctx.alias_root(name);
          reads.push_back({i, e, root, b && root == name ? *b : whole(ctx, root)});
        };
        if (auto parts = ctx.concat_parts.find(v); parts != ctx.concat_parts.end()) {
          for (const auto& p : parts->second)  // a part: the same rows, all of its own channels
            add(p, box ? std::optional<ValueBox>(ValueBox{box->row_begin, box->row_end, 0, ctx.tensor(p).c}) : std::nullopt);
        } else {
          add(v, box);
        }
      }
    }
  }
  // A read is local when its engine wrote all of it: no sync, and the value may stay on that
  // engine's chip if all that engine's reads of it are local.
  std::set<std::string> read_elsewhere;
  std::vector<std::set<std::string>> off_chip(static_cast<std::size_t>(engines));
  for (const Read& r : reads) {
    auto p = producer.find(r.value);
    if (p == producer.end()) continue;  // a step input: in DDR before the step starts
    const auto& by_engine = written.at(r.value);
    const auto w = by_engine.find(r.engine);
    // The conv tiles read a resident value in whole rows of all its channels (sram_tiling.h):
    // a part reading some of its channels reads it from DDR.
    if (r.box.channel_begin != 0 || r.box.channel_end != ctx.tensor(r.value).c)
      off_chip[static_cast<std::size_t>(r.engine)].insert(r.value);
    if (w != by_engine.end() && w->second.contains(r.box)) continue;
    shares.sync_before[r.layer] = true;
    read_elsewhere.insert(r.value);
    off_chip[static_cast<std::size_t>(r.engine)].insert(r.value);
  }
  shares.values.resize(static_cast<std::size_t>(engines));
  shares.first_row.resize(static_cast<std::size_t>(engines));
  for (const auto& [value, by_engine] : written) {
    const DdrTensor& t = ctx.tensor(value);
    const StepValue& whole_value = step.values->at(value);
    for (const auto& [e, box] : by_engine) {
      StepValue sv = whole_value;
      const bool all_channels = box.channel_begin == 0 && box.channel_end == t.c;
      const bool all_rows = box.row_begin == 0 && box.row_end == t.h;
      if (!all_rows)
        sv.bytes = ctx.align(static_cast<std::uint64_t>((box.row_end - box.row_begin) * t.w * t.c * t.elem));
      sv.read_elsewhere = read_elsewhere.count(value) > 0;
      sv.off_chip = off_chip[static_cast<std::size_t>(e)].count(value) > 0 || !all_channels;
      shares.values[static_cast<std::size_t>(e)][value] = sv;
      if (box.row_begin > 0 && all_channels) shares.first_row[static_cast<std::size_t>(e)][value] = box.row_begin;
    }
  }
  return shares;
}

}  // namespace npu::compiler
