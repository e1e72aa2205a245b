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

// The activation inputs a layer reads as the splits see them: (input index, value), skipping
// constants; nullopt when one is a view or a concat part (its box is not in its own shape).
std::optional<std::vector<std::pair<std::size_t, std::string>>> plain_inputs(CodegenContext& ctx, const Node& node) {
  std::vector<std::pair<std::size_t, std::string>> in;
  for (std::size_t k = 0; k < node.inputs.size(); ++k) {
    const std::string& v = node.inputs[k];
    if (v.empty() || ctx.graph.is_constant(v)) continue;
    if (ctx.alias_root(v) != v || ctx.concat_parts.count(v)) return std::nullopt;
    in.emplace_back(k, v);
  }
  return in;
}

std::uint64_t value_bytes(CodegenContext& ctx, const std::string& v) {
  const DdrTensor& t = ctx.tensor(v);
  return static_cast<std::uint64_t>(t.h * t.w * t.c * t.elem);
}

// Bytes of a layer's constant inputs (weights, bias) at the precision it runs in.
std::uint64_t constant_bytes(CodegenContext& ctx, const Node& n) {
  std::uint64_t bytes = 0;
  for (const std::string& v : n.inputs)
    if (!v.empty() && ctx.graph.is_constant(v))
      bytes += static_cast<std::uint64_t>(ctx.graph.tensor(v).elements()) * static_cast<std::uint64_t>(ctx.elem_bytes());
  return bytes;
}

// Row parts that overlap by their readers' halo. A 3x3 conv's part reads a row or two beyond
// the rows its engine wrote of its input, which would send the whole input through DDR (and
// a sync) so other engines' rows reach it. Computing those rows on every engine that needs
// them instead keeps the value on each engine's chip; the producer's own inputs then need the
// extra rows, so it pays when those inputs are smaller than the value (an inverted residual's
// expand conv: 24 channels in, 144 out) or are read from DDR anyway. Producers are taken from
// the last layer back, so an extended reader's wider reads are seen by its own producer.
void overlap_row_parts(CodegenContext& ctx, const StepLayerView& step, std::vector<EngineSplit>& splits) {
  const std::size_t n = step.nodes.size();
  std::map<std::string, std::size_t> producer;
  for (std::size_t i = 0; i < n; ++i)
    if ((*step.layers)[i].has_code)
      for (const auto& o : step.nodes[i]->outputs) producer[o] = i;
  auto row_split = [&](std::size_t i, std::size_t parts) {
    const auto& p = splits[i].parts;
    return step.families[i]->splitter && p.size() == parts && p.front().dim == LoopDim::Rows;
  };
  for (std::size_t j = n; j-- > 0;) {
    if (!(*step.layers)[j].has_code || splits[j].parts.size() < 2 || splits[j].parts.front().dim != LoopDim::Rows)
      continue;
    const Node& pn = *step.nodes[j];
    const std::string& v = pn.outputs[0];
    const std::size_t parts = splits[j].parts.size();
    const auto own_inputs = plain_inputs(ctx, pn);
    if (!own_inputs || pn.outputs.size() != 1) continue;
    // Per engine, the rows every reader's part needs of v; give up on a reader that is not
    // split the same way or reads v through a view.
    const DdrTensor& vt = ctx.tensor(v);
    // A reader's rows start inside a wider part's rows on chip: at an aligned address only when
    // every row is a whole number of alignment units.
    if (static_cast<std::uint64_t>(vt.w * vt.c * vt.elem) % ctx.alignment != 0) continue;
    std::vector<std::pair<std::int64_t, std::int64_t>> need(parts, {vt.h, 0});
    bool readers_ok = true, read_at_all = false;
    for (std::size_t i = j + 1; i < n && readers_ok; ++i) {
      const Node& rn = *step.nodes[i];
      if (!(*step.layers)[i].has_code) {
        readers_ok = std::find(rn.inputs.begin(), rn.inputs.end(), v) == rn.inputs.end();
        continue;
      }
      const auto in = plain_inputs(ctx, rn);
      bool reads_v = std::find(rn.inputs.begin(), rn.inputs.end(), v) != rn.inputs.end();
      if (!reads_v) continue;
      if (!in || !row_split(i, parts)) {
        readers_ok = false;
        break;
      }
      read_at_all = true;
      for (const auto& [k, name] : *in) {
        if (name != v) continue;
        for (std::size_t e = 0; e < parts; ++e) {
          const ValueBox b = step.families[i]->splitter->reads(ctx, rn, splits[i].parts[e], k);
          if (b.channel_begin != 0 || b.channel_end != vt.c) readers_ok = false;
          need[e] = {std::min(need[e].first, b.row_begin), std::max(need[e].second, b.row_end)};
        }
      }
    }
    if (!readers_ok || !read_at_all) continue;
    std::vector<EnginePart> wider = splits[j].parts;
    bool halo = false;
    for (std::size_t e = 0; e < parts; ++e) {
      EnginePart& p = wider[e];
      const std::int64_t b = std::min(p.begin, need[e].first), end = std::max(p.end, need[e].second);
      if (b == p.begin && end == p.end) continue;
      if ((p.begin - b) + (end - p.end) > p.size()) {  // more than doubles the part's work
        halo = false;
        break;
      }
      p.begin = b;
      p.end = end;
      halo = true;
    }
    if (!halo) continue;
    // The bytes the wider parts add to DDR: each input now read beyond what its engine wrote.
    std::uint64_t newly_shared = 0;
    for (const auto& [k, u] : *own_inputs) {
      const auto p = producer.find(u);
      if (p == producer.end() || !row_split(p->second, parts)) continue;  // from DDR already
      const LayerSplitter& ps = *step.families[p->second]->splitter;
      const LayerSplitter& js = *step.families[j]->splitter;
      const Node& un = *step.nodes[p->second];
      bool was_local = true, stays_local = true;
      for (std::size_t e = 0; e < parts; ++e) {
        const ValueBox w = ps.writes(ctx, un, splits[p->second].parts[e]);
        was_local = was_local && w.contains(js.reads(ctx, pn, splits[j].parts[e], k));
        stays_local = stays_local && w.contains(js.reads(ctx, pn, wider[e], k));
      }
      if (was_local && !stays_local) newly_shared += value_bytes(ctx, u);
    }
    if (newly_shared >= value_bytes(ctx, v)) continue;
    splits[j].parts = std::move(wider);
    splits[j].why += splits[j].why.empty() ? "" : "; ";
    splits[j].why += "rows overlap by the next layer's halo";
  }
}

// The split of a conv/gemm layer that adds the fewest DDR bytes to what one engine moves:
// by rows every engine loads all the weights; by output channels every engine reads all the
// input (a depthwise part only its own channels) and the output leaves the chip, stored and
// read back, since the next layer's parts read all its channels (sram_tiling.h). Rows need
// `min_rows_per_engine` per part: with two, the next 3x3 layer's halo can overlap them
// (overlap_row_parts); one-row parts send the value through DDR instead.
LoopDim traffic_dim(CodegenContext& ctx, const Node& n, const LayerSplitter& splitter, int engines,
                    int min_rows_per_engine) {
  const std::int64_t rows = splitter.extent(ctx, n, LoopDim::Rows);
  const std::int64_t channels = splitter.extent(ctx, n, LoopDim::OutChannels);
  if (channels < 2) return LoopDim::Rows;
  if (rows < min_rows_per_engine * engines) return LoopDim::OutChannels;
  const std::uint64_t weights = constant_bytes(ctx, n);
  std::uint64_t input = 0;  // the conv's input; a residual reads as the output does
  for (const std::string& v : n.inputs)
    if (!v.empty() && !ctx.graph.is_constant(v) && input == 0) input = value_bytes(ctx, v);
  const std::uint64_t k = static_cast<std::uint64_t>(engines) - 1;
  const bool own_channels = splitter.reads(ctx, n, EnginePart{LoopDim::OutChannels, 0, 1}, 0).channel_end < ctx.tensor(n.inputs[0]).c;
  // With multicast loads every engine's copy of the same bytes is one DDR read.
  const std::uint64_t copies = ctx.config.engines.shared_loads == SharedLoads::Multicast ? 0 : k;
  const std::uint64_t by_rows = weights * copies;
  const std::uint64_t by_channels = (own_channels ? 0 : input * copies) + 2 * value_bytes(ctx, n.outputs[0]);
  return by_rows <= by_channels ? LoopDim::Rows : LoopDim::OutChannels;
}

}  // namespace

std::vector<EngineSplit> choose_engine_splits(CodegenContext& ctx, const StepLayerView& step, int engines,
                                              EngineSplitMode mode, const PartPrice& price,
                                              int traffic_min_rows_per_engine) {
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
    if (mode != EngineSplitMode::Auto && mode != EngineSplitMode::LayerPrice && mode != EngineSplitMode::Traffic) {
      split.parts = best->parts;
      split.why = "forced; est " + cycles_text(best->cycles) + " cycles on the slowest engine";
      continue;
    }
    const std::optional<double> alone = price(i, std::nullopt, 1);
    const double whole_cycles = alone.value_or(std::numeric_limits<double>::infinity());
    const std::string whole = alone ? "whole " + cycles_text(whole_cycles) : std::string("whole: no plan");
    split.why = "est cycles " + whole + estimates;
    if (mode == EngineSplitMode::Traffic) {
      const LoopDim fewest = traffic_dim(ctx, n, *splitter, engines, traffic_min_rows_per_engine);
      for (const Option& o : options)
        if (o.parts.front().dim == fewest) best = &o;
      split.parts = best->parts;
      split.why = "fewest DDR bytes; " + split.why;
      continue;
    }
    if (whole_cycles <= best->cycles) continue;
    split.parts = best->parts;
  }
  overlap_row_parts(ctx, step, splits);
  return splits;
}

double row_part_bandwidth_share(CodegenContext& ctx, const Node& node, int engines) {
  const auto weights = static_cast<double>(constant_bytes(ctx, node));
  double activations = 0;
  for (const std::string& v : node.inputs)
    if (!v.empty() && !ctx.graph.is_constant(v)) activations += static_cast<double>(value_bytes(ctx, v));
  for (const std::string& v : node.outputs) activations += static_cast<double>(value_bytes(ctx, v));
  if (engines < 2 || weights + activations <= 0) return 1.0;
  return (activations / engines + weights) / (activations + weights);
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
