// An NPU step on several engines (engines.count > 1; compiler/README.md, "Several engines"):
// each layer's split (engine_split.h), then per engine a step of its own: its scheduler over
// its parts (the values it may keep on chip, sized as its part of them), its parts' code, a sync
// before every layer that reads what another engine wrote, interleaving, a halt and tokens.
// The streams follow each other in the program; NpuStep::engine_starts says where each begins.
#include <algorithm>
#include <cstdio>
#include <map>

#include "compiler/backend/dependency_tokens.h"
#include "compiler/backend/engine_split.h"
#include "compiler/backend/layer_interleave.h"
#include "compiler/backend/multicast_loads.h"
#include "compiler/backend/program_generator.h"
#include "container/compiled_model.h"
#include "costmodel/program_estimate.h"
#include "isa/instruction_set.h"

namespace npu::compiler {

namespace {

// Where a layer's sync goes: behind its leading loads of constants (weights, parameters,
// tables: data segments no engine writes), so they may move ahead into the layer before
// (layer_interleave.h moves nothing across a control instruction) instead of starting only
// when every engine has arrived.
std::size_t sync_position(const std::vector<isa::Instruction>& code, const isa::Program& program) {
  auto constant = [&](const isa::Instruction& in) {
    if (in.opcode != isa::Opcode::Load) return false;
    const auto at = static_cast<std::uint64_t>(in.get(isa::Field::ddr_addr));
    for (const isa::DataSegment& d : program.data)
      if (at >= d.ddr_addr && at < d.ddr_addr + d.bytes.size()) return true;
    return false;
  };
  std::size_t i = 0;
  while (i < code.size() && constant(code[i])) ++i;
  return i;
}

}  // namespace

void ProgramGenerator::generate_engine_streams(const StepNodes& step, NpuStep& npu) {
  const int engines = config_.engines.count;
  isa::Program& program = ctx_.program();
  npu.first_instruction = static_cast<std::uint32_t>(program.code.size());
  ctx_.share_equal_data = true;  // the parts of a row-split layer load the same weights
  place_step_inputs(step);
  const StepLayers sl = describe_step(step);
  const std::size_t n = step.nodes.size();

  StepLayerView view;
  for (int i : step.nodes) view.nodes.push_back(&g_.nodes[static_cast<std::size_t>(i)]);
  view.families = sl.families;
  view.layers = &sl.layers;
  view.values = &sl.values;

  // While k engines run at once each gets a k-th of the DDR bandwidth: the tiler prices their
  // parts with that (its DMA estimates then trade bytes against cycles as the shared bus will).
  // A row part's weights, which every part loads, are one multicast for all: its share is then
  // the bandwidth its own bytes take of the layer's time (engine_split.h).
  std::map<double, HardwareConfig> shared_ddr;
  const bool multicast = config_.engines.shared_loads == SharedLoads::Multicast;
  auto tiling_for = [&](double share) -> const HardwareConfig* {
    if (share >= 1) return nullptr;
    auto [it, fresh] = shared_ddr.try_emplace(share, config_);
    if (fresh) it->second.ddr.bandwidth_gbps *= share;
    return &it->second;
  };
  auto set_part = [&](std::size_t layer, const std::optional<EnginePart>& part, int at_once, bool pricing = false) {
    ctx_.part = part;
    double share = 1.0 / at_once;
    if (part && part->dim == LoopDim::Rows && multicast && at_once > 1 && (!pricing || options_.multicast_row_prices))
      share = row_part_bandwidth_share(ctx_, *view.nodes[layer], at_once);
    ctx_.tiling_config = tiling_for(share);
  };
  auto no_part = [&] {
    ctx_.part = std::nullopt;
    ctx_.tiling_config = nullptr;
  };

  const PartPrice price = [&](std::size_t i, const std::optional<EnginePart>& part, int at_once) -> std::optional<double> {
    const Node& node = *view.nodes[i];
    ctx_.precision = precision_of(node);
    ctx_.homes().clear();
    set_part(i, part, at_once, /*pricing=*/true);
    const NpuOpFamily& f = *sl.families[i];
    // The part's code timed (with the shared DDR bandwidth), not the tiler's own estimate: a
    // part's strided channel runs and its replicated weights cost what the DMA makes of them.
    const auto d = generated_demand(ctx_, f, node, ctx_.sram_capacity);
    no_part();
    if (!d) return std::nullopt;
    return d->cycles;
  };
  const StepShares shares =
      share_step(ctx_, view, choose_engine_splits(ctx_, view, engines, options_.engine_split, price, options_.traffic_min_rows_per_engine), engines);

  // Row parts of a layer plan their weight loads in one order, so they multicast.
  for (std::size_t i = 0; i < n; ++i) {
    const auto& parts = shares.splits[i].parts;
    const LayerSplitter* splitter = sl.families[i]->splitter;
    if (parts.size() < 2 || parts.front().dim != LoopDim::Rows || !splitter || !splitter->share_load_order) continue;
    ctx_.precision = precision_of(*view.nodes[i]);
    ctx_.homes().clear();
    set_part(i, parts.front(), static_cast<int>(parts.size()));
    splitter->share_load_order(ctx_, *view.nodes[i], parts);
    no_part();
  }

  // Each engine's step: its parts scheduled, generated and interleaved.
  std::vector<InterleavedCode> streams(static_cast<std::size_t>(engines));
  std::vector<LayerRecord> records;
  for (int i : step.nodes) records.push_back(layer_record(g_.nodes[static_cast<std::size_t>(i)]));
  std::vector<std::string> mappings(n);
  for (int e = 0; e < engines; ++e) {
    StepLayers mine = sl;
    for (std::size_t i = 0; i < n; ++i)
      if (mine.layers[i].has_code && !shares.runs(i, e)) {
        mine.layers[i].has_code = false;
        mine.layers[i].region_aware = true;
        mine.layers[i].inputs.clear();
        mine.layers[i].outputs.clear();
      }
    mine.values = shares.values[static_cast<std::size_t>(e)];
    ctx_.resident_first_row = shares.first_row[static_cast<std::size_t>(e)];
    auto own_part = [&](std::size_t i) { set_part(i, shares.part(i, e), shares.splits[i].engines()); };
    const StepSchedule plan = schedule(step, mine, own_part, engines);
    ctx_.homes() = plan.homes;
    ctx_.previous_region = {};
    std::vector<std::vector<isa::Instruction>> layer_code(n);
    for (std::size_t i = 0; i < n; ++i) {
      own_part(i);
      LayerCode code = generate_layer(step, mine, plan, i);
      if (shares.sync_before[i]) code.code.insert(code.code.begin() + sync_position(code.code, program), isa::make_instruction(isa::Opcode::Sync));
      records[i].macs += code.macs;
      records[i].planned_ddr_bytes += code.planned_ddr_bytes;
      if (mine.layers[i].has_code && mappings[i].empty()) {
        code.mapping.split = shares.splits[i];
        mappings[i] = code.mapping.describe();
      }
      layer_code[i] = std::move(code.code);
    }
    no_part();
    InterleaveOptions io;
    io.enabled = options_.interleave_layers;
    io.check_order = options_.check_interleave;
    io.log = options_.debug_schedule ? stderr : nullptr;
    streams[static_cast<std::size_t>(e)] = interleave_layers(layer_code, config_, io);
    const auto& violation = streams[static_cast<std::size_t>(e)].order_violation;
    if (!violation.empty())
      throw CompileError(g_.source + ": internal: interleaving put an instruction of layer '" +
                         view.nodes[violation[0]]->name + "' before a conflicting one of layer '" +
                         view.nodes[violation[1]]->name + "' on engine " + std::to_string(e));
    ctx_.homes().clear();
    ctx_.resident_first_row.clear();
    ctx_.set_region({0, ctx_.sram_capacity});
  }

  // Bytes several engines load, loaded once for all (before the tokens: an mload takes a load's).
  if (config_.engines.shared_loads == SharedLoads::Multicast) {
    // Below what the DDR moves in its own latency a load is mostly latency: sharing it saves
    // little bus time, while every mload is a rendezvous that ties the engines' timing together.
    const auto latency_bytes = static_cast<std::uint64_t>(config_.ddr.latency_ns * config_.ddr.bandwidth_gbps);
    const std::vector<MulticastCount> multicast = multicast_shared_loads(streams, latency_bytes);
    for (std::size_t i = 0; i < multicast.size() && i < n; ++i)
      if (multicast[i].loads > 0 && !mappings[i].empty())
        mappings[i] += "; " + std::to_string(multicast[i].loads) + " load(s) multicast to " + std::to_string(engines) +
                       " engines (" + size_text(multicast[i].bytes) + " read once)";
  }

  // The streams one after another, each ending with its halt, tokens within each.
  npu.engine_starts.clear();
  for (int e = 0; e < engines; ++e) {
    const auto first = static_cast<std::uint32_t>(program.code.size());
    npu.engine_starts.push_back(first);
    const InterleavedCode& s = streams[static_cast<std::size_t>(e)];
    for (std::uint32_t k = 0; k < s.owner.size(); ++k) {
      LayerRecord& rec = records[s.owner[k]];
      const std::uint32_t at = first + k;
      if (rec.runs.empty() || rec.runs.back().end != at) rec.runs.push_back({at, at + 1});
      else ++rec.runs.back().end;
    }
    program.code.insert(program.code.end(), s.code.begin(), s.code.end());
    program.code.push_back(isa::make_instruction(isa::Opcode::Halt));
    derive_dependency_tokens(program.code, first, program.code.size());
  }
  npu.end_instruction = static_cast<std::uint32_t>(program.code.size());
  std::uint32_t previous_end = npu.first_instruction;
  for (std::size_t i = 0; i < n; ++i) {
    LayerRecord& rec = records[i];
    rec.mapping = mappings[i];
    if (!rec.runs.empty()) {
      rec.first_instruction = rec.runs.front().first;
      rec.end_instruction = previous_end = rec.runs.back().end;
    } else {
      rec.first_instruction = rec.end_instruction = previous_end;
    }
    if (rec.runs.size() == 1) rec.runs.clear();
    model_.layers.push_back(std::move(rec));
  }
  ctx_.precision = options_.precision;
  ctx_.weight_orders.clear();
  if (options_.debug_schedule)
    std::fprintf(stderr, "step estimate %.0f cycles on %d engines\n",
                 cost::estimate_engines(container::step_program(program, npu), config_), engines);
  for (const auto& o : step.outputs) step_outputs_.insert(o);
  ctx_.previous_region = {};
}

}  // namespace npu::compiler
