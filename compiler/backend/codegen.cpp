#include "compiler/backend/codegen.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "compiler/backend/codegen_context.h"
#include "compiler/backend/dependency_tokens.h"
#include "compiler/backend/layer_interleave.h"
#include "compiler/backend/move_params.h"
#include "compiler/backend/op_registry.h"
#include "compiler/backend/program_generator.h"
#include "compiler/backend/step_schedule.h"
#include "compiler/core/node_work.h"
#include "compiler/core/npu_ops.h"
#include "compiler/quant/quantization_stage.h"
#include "costmodel/dma_cost.h"
#include "costmodel/footprint.h"
#include "costmodel/program_estimate.h"
#include "costmodel/shared_sram.h"
#include "isa/instruction_set.h"

namespace npu::compiler {
namespace {

// A channel concatenation read only as the (first) input of ungrouped convs in this step needs
// no data movement: each reader runs one reduction slice per part, reading the parts in place.
bool concat_read_in_parts(const Graph& g, const Node& n, const std::set<std::string>& step_outputs) {
  if (n.op_type != "Concat" || n.outputs.empty() || step_outputs.count(n.outputs[0]) || g.is_graph_output(n.outputs[0]))
    return false;
  const std::vector<int> readers = g.consumers(n.outputs[0]);
  if (readers.empty()) return false;
  for (int r : readers) {
    const Node& c = g.nodes[static_cast<std::size_t>(r)];
    if (c.device != Node::Device::Npu || c.op_type != "FusedConv" || c.get_int("group", 1) != 1) return false;
    for (std::size_t i = 1; i < c.inputs.size(); ++i)
      if (c.inputs[i] == n.outputs[0]) return false;  // as weights or residual
  }
  return true;
}

// A KV-cache update, Concat(past, new) -> present with `past` a model input read by nothing
// else: the host can write past straight into present's bytes (a strided view), so the Concat
// moves only the new part, as decoders keep their cache in place (one buffer for past and
// present). Needs the same element encoding on both sides and row-major bytes the host copies.
bool concat_in_place(const Graph& g, const Node& n, const std::set<std::string>& step_inputs) {
  if (n.op_type != "Concat" || n.inputs.size() < 2 || n.outputs.empty()) return false;
  const std::string& past = n.inputs[0];
  if (past.empty() || !step_inputs.count(past) || g.is_constant(past) || g.is_graph_output(past)) return false;
  if (std::find(g.inputs.begin(), g.inputs.end(), past) == g.inputs.end()) return false;
  if (g.consumers(past).size() != 1 || std::count(n.inputs.begin(), n.inputs.end(), past) != 1) return false;
  const Tensor& x = g.tensor(past);
  const Tensor& y = g.tensor(n.outputs[0]);
  if (!x.shape_known || !y.shape_known || x.shape.size() != y.shape.size()) return false;
  if (x.quant.valid() != y.quant.valid() ||
      (x.quant.valid() && (x.quant.scale != y.quant.scale || x.quant.zero_point != y.quant.zero_point)))
    return false;
  const AxisOrder row_major = identity_order(x.shape.size());
  auto plain = [&](const Tensor& t) {
    return same_bytes(t.shape, order_or_identity(t.order, t.shape.size()), row_major) &&
           t.host_layout == layout_name(t.shape.size(), row_major);
  };
  return plain(x) && same_bytes(y.shape, order_or_identity(y.order, y.shape.size()), row_major);
}

// A part of a channel Concat that its producer can store straight into the Concat's output (a
// channel slice of its pixels in DDR), so the Concat copies nothing for it: a conv's output on
// the NPU in this step that nothing but this Concat reads, once, and that leaves the step only
// through it. Inception's blocks concatenate four to six branch convs this way; their readers
// include a pool, so the output cannot be read in parts (concat_read_in_parts) and was a copy
// through DDR. Such a part is never resident (it has no reader in the step).
bool part_stored_in_place(const Graph& g, const Node& concat, const std::string& part, const std::set<int>& step_nodes,
                          const std::set<std::string>& step_outputs) {
  if (part.empty() || g.is_constant(part) || g.is_graph_output(part) || step_outputs.count(part)) return false;
  if (std::count(concat.inputs.begin(), concat.inputs.end(), part) != 1 || g.consumers(part).size() != 1) return false;
  const int p = g.producer(part);
  if (p < 0 || !step_nodes.count(p)) return false;
  const Node& conv = g.nodes[static_cast<std::size_t>(p)];
  if (conv.device != Node::Device::Npu || conv.op_type != "FusedConv" || conv.outputs.empty() || conv.outputs[0] != part)
    return false;
  const Tensor& x = g.tensor(part);
  const Tensor& y = g.tensor(concat.outputs[0]);
  if (!x.shape_known || !y.shape_known || x.shape.size() != 4 || y.shape.size() != 4 || x.elem_type != y.elem_type ||
      x.order != y.order)
    return false;
  return x.quant.valid() == y.quant.valid() &&
         (!x.quant.valid() || (x.quant.scale == y.quant.scale && x.quant.zero_point == y.quant.zero_point &&
                               x.quant.channel_scales.empty() && y.quant.channel_scales.empty()));
}

}  // namespace

// The op family that lowers an NPU node (op_registry.h).
const NpuOpFamily& family_of(const Graph& g, const Node& n) {
  if (const NpuOpFamily* f = npu_op_family(n)) return *f;
  throw CompileError(g.source + ": internal: NPU node '" + n.name + "' (" + n.op_type + ") belongs to no op family");
}

// What a layer without a tiler of its own does in a region of `budget` bytes: its code,
// generated without keeping constants, timed by the cost model's program estimate.
std::optional<LayerDemand> generated_demand(CodegenContext& ctx, const NpuOpFamily& family, const Node& n, std::uint64_t budget) {
  const SramRegion saved{ctx.sram_base, ctx.sram_bytes};
  ctx.set_region({0, budget});
  ctx.dry_run = true;
  std::optional<LayerDemand> d;
  try {
    LayerCode code = family.generate(ctx, n);
    code.code.push_back(isa::make_instruction(isa::Opcode::Halt));
    const auto time = [&]() -> std::optional<CodeTiming> {
      try {
        derive_dependency_tokens(code.code, 0, code.code.size());
        CodeTiming t;
        for (const auto& in : code.code) {
          const cost::Footprint f = cost::footprint(in);
          for (const auto* ranges : {&f.ddr_read, &f.ddr_write})
            for (const auto& r : *ranges) t.ddr_bytes += static_cast<double>(r.end - r.begin);
        }
        t.cycles = cost::estimate_program(code.code, ctx.tiling()).cycles;
        return t;
      } catch (const CompileError&) {
        return std::nullopt;
      }
    };
    const std::optional<CodeTiming> t = ctx.tiling_config ? time() : ctx.trial_timings.find_or_time(code.code, time);
    // The generator sized its tiles from the region: it needs the whole of it.
    if (t) d = LayerDemand{budget, t->cycles, t->ddr_bytes, true};
  } catch (const CompileError&) {
  }
  ctx.dry_run = false;
  ctx.set_region(saved);
  return d;
}

// A region-aware layer touches only its region and the homes of the resident values it reads
// or writes: anything else may be another layer's live data (the scheduler placed them apart).
void check_within_region(CodegenContext& ctx, const Node& n, const StepLayer& L,
                         const std::map<std::string, StepValue>& values, const std::vector<isa::Instruction>& code) {
  std::vector<cost::ByteRange> allowed{{ctx.sram_base, ctx.sram_base + ctx.sram_bytes}};
  for (const auto* names : {&L.inputs, &L.outputs})
    for (const auto& v : *names)
      if (auto h = ctx.homes().find(ctx.alias_root(v)); h != ctx.homes().end() && h->second.resident)
        if (auto sv = values.find(h->first); sv != values.end())
          allowed.push_back({h->second.sram_addr, h->second.sram_addr + sv->second.bytes});
  for (const auto& in : code) {
    const cost::Footprint f = cost::footprint(in);
    for (const auto* ranges : {&f.sram_read, &f.sram_write})
      for (const auto& r : *ranges) {
        if (r.end <= r.begin) continue;
        bool inside = false;
        for (const auto& a : allowed) inside |= r.begin >= a.begin && r.end <= a.end;
        if (!inside)
          throw CompileError(ctx.graph.source + ": layer '" + n.name + "': internal: " +
                             std::string(isa::opcode_info(in.opcode).mnemonic) + " touches scratchpad bytes [" +
                             std::to_string(r.begin) + ", " + std::to_string(r.end) + ") outside its region [" +
                             std::to_string(ctx.sram_base) + ", " + std::to_string(ctx.sram_base + ctx.sram_bytes) +
                             ") and its resident values");
      }
  }
}

void ProgramGenerator::record_cpu_layers(const StepNodes& step) {
  for (int i : step.nodes) {
    const Node& n = g_.nodes[i];
    LayerRecord rec;
    rec.name = n.name;
    rec.op = n.op_type;
    rec.device = "cpu";
    rec.macs = node_macs(g_, n);
    rec.fused_nodes = n.fused_nodes;
    model_.layers.push_back(rec);
  }
}

void ProgramGenerator::generate_npu_step(const StepNodes& step, NpuStep& npu) {
  if (config_.engines.count > 1) return generate_engine_streams(step, npu);
  isa::Program& program = ctx_.program();
  npu.first_instruction = static_cast<std::uint32_t>(program.code.size());
  place_step_inputs(step);
  place_concat_parts(step);
  const StepLayers sl = describe_step(step);
  const StepSchedule plan = schedule(step, sl);
  ctx_.homes() = plan.homes;
  append_interleaved(step, generate_layers(step, sl, plan));
  ctx_.precision = options_.precision;
  program.code.push_back(isa::make_instruction(isa::Opcode::Halt));
  npu.end_instruction = static_cast<std::uint32_t>(program.code.size());
  // No barriers between layers: each instruction waits for exactly what it depends on.
  derive_dependency_tokens(program.code, npu.first_instruction, npu.end_instruction);
  if (options_.debug_schedule) log_step_estimate(npu);
  for (const auto& o : step.outputs) step_outputs_.insert(o);
  ctx_.homes().clear();
  ctx_.set_region({0, ctx_.sram_capacity});
  ctx_.previous_region = {};
}

// The step's inputs in DDR: a KV cache's past inside its Concat's output (concat_in_place).
void ProgramGenerator::place_step_inputs(const StepNodes& step) {
  const std::set<std::string> this_step_inputs(step.inputs.begin(), step.inputs.end());
  for (int i : step.nodes) {
    const Node& n = g_.nodes[static_cast<std::size_t>(i)];
    if (!concat_in_place(g_, n, this_step_inputs)) continue;
    ctx_.place_inside(n.inputs[0], n.outputs[0], 0);
    ctx_.concat_in_place[n.outputs[0]] = n.inputs[0];
  }
  for (const auto& in : step.inputs) {
    ctx_.tensor(in);
    step_inputs_.insert(in);
  }
}

// Concats whose parts their producers store in place (part_stored_in_place): one engine only (an
// engine's part of a layer addresses its values as whole tensors of their own), not when
// every value is stored for tests to read back, nor with a shared SRAM (the output might live
// there). The Concat's output must hold its channels innermost, densely (NHWC in DDR).
void ProgramGenerator::place_concat_parts(const StepNodes& step) {
  if (options_.store_all_values || cost::has_shared_sram(config_) || config_.engines.count > 1) return;
  const std::set<int> nodes(step.nodes.begin(), step.nodes.end());
  const std::set<std::string> outputs(step.outputs.begin(), step.outputs.end());
  for (int i : step.nodes) {
    const Node& n = g_.nodes[static_cast<std::size_t>(i)];
    if (n.op_type != "Concat" || n.device != Node::Device::Npu || n.outputs.empty() ||
        concat_read_in_parts(g_, n, outputs) || ctx_.concat_in_place.count(n.outputs[0]))
      continue;
    // Every part or none: a Concat still copying some parts would write the output's bytes
    // beside the convs' stores, and simulated slower (LLaMA prefill on default-dram +1.7 %).
    // Checked before the output gets its DDR address here (earlier than its first use would
    // give it one, which moves every later value's bytes).
    if (concat_axis(g_, n) != 1 ||
        !std::all_of(n.inputs.begin(), n.inputs.end(),
                     [&](const std::string& in) { return part_stored_in_place(g_, n, in, nodes, outputs); }))
      continue;
    const DdrTensor y = ctx_.tensor(n.outputs[0]);
    if (y.shape.size() != 4 || y.strides.size() != 4 || y.strides[1] != 1 || y.strides[3] != y.shape[1]) continue;
    std::int64_t offset = 0;
    for (const auto& in : n.inputs) {
      ctx_.place_inside(in, n.outputs[0], offset);
      offset += g_.tensor(in).shape[1];
    }
    ctx_.concat_stored_in_place.insert(n.outputs[0]);
  }
}

// The values of `step` that may live in the shared SRAM: every value a layer of the step writes
// that nothing after the step reads, itself or through a view (the memory is the step's: the
// next step, the host and a CPU layer see only DDR). None without a shared SRAM, nor when every
// value is stored for tests to read back from DDR. In the order the layers write them: the
// shared SRAM goes to the first that fit, and a value kept on chip never touches its bytes.
std::set<std::string> ProgramGenerator::shared_sram_candidates(const StepNodes& step) {
  if (!cost::has_shared_sram(config_) || options_.store_all_values) return {};
  ctx_.begin_shared_sram_step();
  std::map<std::string, std::string> view_of;
  for (int i : step.nodes) {
    const Node& n = g_.nodes[static_cast<std::size_t>(i)];
    if (is_view_op(n.op_type)) view_of[n.outputs[0]] = n.inputs[0];
  }
  std::set<std::string> handed_on;
  for (std::string v : step.outputs) {
    for (auto it = view_of.find(v); it != view_of.end(); it = view_of.find(v)) v = it->second;
    handed_on.insert(v);
  }
  std::set<std::string> local;
  for (int i : step.nodes) {
    const Node& n = g_.nodes[static_cast<std::size_t>(i)];
    if (is_view_op(n.op_type)) continue;
    for (const auto& v : n.outputs)
      if (!v.empty() && !handed_on.count(v) && !g_.is_graph_output(v)) local.insert(v);
  }
  return local;
}

// Views and concatenations read in parts have no code; every other layer reads and writes the
// values (alias roots) the scheduler may keep on chip.
ProgramGenerator::StepLayers ProgramGenerator::describe_step(const StepNodes& step) {
  StepLayers sl;
  const std::set<std::string> outputs_of_step(step.outputs.begin(), step.outputs.end());
  const std::set<std::string> step_local = shared_sram_candidates(step);
  for (int i : step.nodes) {
    const Node& n = g_.nodes[i];
    StepLayer L;
    const NpuOpFamily& family = family_of(g_, n);
    if (is_view_op(n.op_type)) {
      ctx_.alias(n.outputs[0], n.inputs[0]);  // the layout pass made the output the same bytes
      L.has_code = false;
      L.region_aware = true;
    } else if (concat_read_in_parts(g_, n, outputs_of_step)) {
      ctx_.concat_parts[n.outputs[0]] = n.inputs;  // its readers take the parts: no code
      L.has_code = false;
      L.region_aware = true;
    } else if (n.op_type == "Concat" && ctx_.concat_stored_in_place.count(n.outputs[0])) {
      L.has_code = false;  // every part's producer stored it there: the output is in DDR
      L.region_aware = true;
    } else {
      L.region_aware = family.region_aware;
      L.reads_resident = family.reads_resident;
      L.writes_resident = family.writes_resident;
      for (const auto& v : n.inputs) {
        if (v.empty() || g_.is_constant(v)) continue;
        if (auto parts = ctx_.concat_parts.find(v); parts != ctx_.concat_parts.end())
          for (const auto& p : parts->second) L.inputs.push_back(ctx_.alias_root(p));
        else
          L.inputs.push_back(ctx_.alias_root(v));
        if (family.on_chip && !family.on_chip(g_, n, v)) L.ddr_only.insert(ctx_.alias_root(v));
      }
      for (const auto& v : n.outputs) {
        if (family.on_chip && !v.empty() && !family.on_chip(g_, n, v)) L.ddr_only.insert(v);
        L.outputs.push_back(v);
        StepValue& sv = sl.values[v];
        if (step_local.count(v)) ctx_.place_in_shared_sram(v);
        sv.bytes = ctx_.align(static_cast<std::uint64_t>(ctx_.tensor(v).bytes()));
      }
    }
    sl.layers.push_back(L);
    sl.families.push_back(&family);
  }
  for (auto& [v, sv] : sl.values) {
    for (const auto& o : outputs_of_step)
      if (ctx_.alias_root(o) == v) sv.step_output = true;
  }
  return sl;
}

// The scratchpad plan: which values stay on chip and each layer's region, each layer priced by
// its family's demand or by timing its generated code.
StepSchedule ProgramGenerator::schedule(const StepNodes& step, const StepLayers& sl,
                                        const std::function<void(std::size_t)>& before_layer, double ddr_share) {
  StepScheduleOptions so;
  so.capacity = ctx_.sram_capacity;
  so.alignment = ctx_.alignment;
  so.keep_all_in_ddr = options_.store_all_values;
  so.log = options_.debug_schedule ? stderr : nullptr;
  so.ddr_bytes_per_cycle = config_.ddr.model == DdrModel::Ideal ? 1e9 : cost::ddr_bytes_per_cycle(config_) / ddr_share;
  DemandFn demand = [&](std::size_t i, const std::map<std::string, ValueHome>& homes,
                        std::uint64_t budget) -> std::optional<LayerDemand> {
    const Node& n = g_.nodes[static_cast<std::size_t>(step.nodes[i])];
    ctx_.precision = precision_of(n);
    if (before_layer) before_layer(i);
    if (sl.families[i]->demand) {
      ctx_.homes() = homes;
      return sl.families[i]->demand(ctx_, n, budget);
    }
    ctx_.homes() = homes;
    // Resident values sit above the trial region where addresses reach (else at 0: the
    // estimate then only serialises more).
    const std::uint64_t above = ctx_.sram_capacity < (std::uint64_t{1} << 24) ? ctx_.sram_capacity : 0;
    for (auto& [v, h] : ctx_.homes()) h.sram_addr = above;
    return generated_demand(ctx_, *sl.families[i], n, budget);
  };
  return schedule_step(sl.layers, sl.values, so, demand);
}

// Each layer's code in its region (checked against it), and its record.
std::vector<std::vector<isa::Instruction>> ProgramGenerator::generate_layers(const StepNodes& step, const StepLayers& sl,
                                                                             const StepSchedule& schedule) {
  std::vector<std::vector<isa::Instruction>> layer_code;
  for (std::size_t li = 0; li < step.nodes.size(); ++li) {
    const Node& n = g_.nodes[static_cast<std::size_t>(step.nodes[li])];
    LayerCode code = generate_layer(step, sl, schedule, li);
    LayerRecord rec = layer_record(n);
    rec.macs = code.macs;
    rec.planned_ddr_bytes = code.planned_ddr_bytes;
    if (sl.layers[li].has_code) rec.mapping = code.mapping.describe();
    model_.layers.push_back(rec);
    layer_code.push_back(std::move(code.code));
  }
  return layer_code;
}

LayerCode ProgramGenerator::generate_layer(const StepNodes& step, const StepLayers& sl, const StepSchedule& schedule,
                                           std::size_t li) {
  const Node& n = g_.nodes[static_cast<std::size_t>(step.nodes[li])];
  const StepLayer& L = sl.layers[li];
  LayerCode code;
  ctx_.precision = precision_of(n);
  if (!L.has_code) return code;
  ctx_.set_region(schedule.scratch[li]);
  ctx_.third_weight_slot = !schedule.third_weight_slot.empty() && schedule.third_weight_slot[li];
  if (options_.debug_schedule)
    std::fprintf(stderr, "%s: region %llu + %llu est %.0f%s\n", n.name.c_str(), (unsigned long long)schedule.scratch[li].base,
                 (unsigned long long)schedule.scratch[li].bytes, schedule.est_cycles[li],
                 ctx_.third_weight_slot ? " (3 weight buffers)" : "");
  code = sl.families[li]->generate(ctx_, n);
  if (L.region_aware) check_within_region(ctx_, n, L, sl.values, code.code);
  ctx_.previous_region = schedule.scratch[li];
  return code;
}

LayerRecord ProgramGenerator::layer_record(const Node& n) const {
  LayerRecord rec;
  rec.name = n.name;
  rec.op = n.get_string("pattern", n.op_type);
  rec.device = "npu";
  rec.fused_nodes = n.fused_nodes;
  return rec;
}

// Each layer's instructions move into its predecessor's code where the cost model says the
// step gets faster (layer_interleave.h); the records then name the runs that are theirs.
void ProgramGenerator::append_interleaved(const StepNodes& step, const std::vector<std::vector<isa::Instruction>>& layer_code) {
  isa::Program& program = ctx_.program();
  InterleaveOptions io;
  io.enabled = options_.interleave_layers;
  io.check_order = options_.check_interleave;
  io.log = options_.debug_schedule ? stderr : nullptr;
  InterleavedCode merged = interleave_layers(layer_code, config_, io);
  if (!merged.order_violation.empty()) {
    auto name = [&](std::uint32_t li) { return g_.nodes[static_cast<std::size_t>(step.nodes[li])].name; };
    throw CompileError(g_.source + ": internal: interleaving put an instruction of layer '" + name(merged.order_violation[0]) +
                       "' before a conflicting one of layer '" + name(merged.order_violation[1]) + "'");
  }
  const std::size_t first_record = model_.layers.size() - layer_code.size();
  const auto step_first = static_cast<std::uint32_t>(program.code.size());
  std::uint32_t previous_end = step_first;  // where the last layer with code ended
  for (std::size_t li = 0; li < layer_code.size(); ++li) {
    LayerRecord& rec = model_.layers[first_record + li];
    for (std::uint32_t k = 0; k < merged.owner.size(); ++k) {
      if (merged.owner[k] != li) continue;
      const std::uint32_t at = step_first + k;
      if (rec.runs.empty() || rec.runs.back().end != at) rec.runs.push_back({at, at + 1});
      else ++rec.runs.back().end;
    }
    if (!rec.runs.empty()) {
      rec.first_instruction = rec.runs.front().first;
      rec.end_instruction = previous_end = rec.runs.back().end;
    } else {  // no code: an empty span where its code would have been
      rec.first_instruction = rec.end_instruction = previous_end;
    }
    if (rec.runs.size() == 1) rec.runs.clear();
  }
  program.code.insert(program.code.end(), merged.code.begin(), merged.code.end());
}

// --debug-schedule: the step's estimate, and each instruction's estimated start and end.
void ProgramGenerator::log_step_estimate(const NpuStep& npu) {
  const isa::Program& program = ctx_.program();
  const auto est = cost::estimate_program(program.code, npu.first_instruction, npu.end_instruction, config_);
  std::fprintf(stderr, "step estimate %.0f cycles\n", est.cycles);
  if (options_.debug_estimate_file.empty()) return;
  if (FILE* f = std::fopen(options_.debug_estimate_file.c_str(), "w")) {
    for (std::size_t k = 0; k < est.instructions.size(); ++k)
      std::fprintf(f, "%zu %.0f %.0f\n", npu.first_instruction + k, est.instructions[k].start_cycle, est.instructions[k].end_cycle);
    std::fclose(f);
  }
}

// The program's tensor table: every value placed in DDR, its role, encoding and layout.
void ProgramGenerator::fill_tensor_table() {
  for (const auto& [name, d] : ctx_.placed()) {
    const Tensor& t = g_.tensor(name);
    isa::TensorEntry e;
    e.name = name;
    e.role = step_outputs_.count(name) ? isa::TensorRole::Output
             : step_inputs_.count(name) ? isa::TensorRole::Input
                                       : isa::TensorRole::Intermediate;
    e.dtype = d.elem == 1 ? isa::DType::Int8 : d.elem == 4 ? isa::DType::Int32 : isa::DType::Fp16;
    // shape in memory order; layout names the order (ND[a,b,...] only for NPU-internal values).
    // An NHWC image the host hands over or reads back as it is is row-major, and named NHWC.
    // Where the layout pass's order and the placement's are the same bytes (a 4-D value with one
    // channel: row-major is NHWC), the entry names the pass's, which the host layout was set from.
    const AxisOrder planned = order_or_identity(t.order, t.shape.size());
    const AxisOrder& named = same_bytes(t.shape, planned, d.order) ? planned : d.order;
    e.shape = physical_shape(t.shape, named);
    e.layout = t.host_layout == "NHWC" ? "NHWC" : layout_name(t.shape.size(), named);
    e.host_layout = t.host_layout;
    e.ddr_addr = d.addr;
    e.size_bytes = static_cast<std::uint64_t>(d.bytes());
    if (d.span_bytes() != d.bytes()) {  // a view inside another value (concat_in_place)
      e.shape = t.shape;
      e.layout = isa::strided_layout_name(d.strides);
      e.size_bytes = static_cast<std::uint64_t>(d.span_bytes());
    }
    if (e.dtype == isa::DType::Int8) {
      e.scale = d.quant.scale;
      e.zero_point = d.quant.zero_point;
    }
    ctx_.program().tensors.push_back(e);
  }
}

void ProgramGenerator::describe_weight_only() {
  if (ctx_.weight_only.quantized() && ctx_.int8()) {
    model_.quantization.weights = "int4 per output channel (its scale in the requantisation), int8 activations, " +
                                 std::to_string(ctx_.weight_only_layers) + " MatMul/Gemm layer(s)";
  } else if (ctx_.weight_only.quantized()) {
    model_.quantization.weights = std::string(weight_only_name(options_.quant.weights)) +
                                 (options_.quant.weights == WeightOnly::Int4
                                      ? " per-group (" + std::to_string(options_.quant.group_size) + " weights per fp16 scale)"
                                      : " per-channel (one fp16 scale per output channel)") +
                                 ", fp16 activations, " + std::to_string(ctx_.weight_only_layers) + " MatMul/Gemm layer(s)";
  }
}

void generate_program(const Graph& g, const std::vector<StepNodes>& steps, const HardwareConfig& config,
                      const CompileOptions& options, CompiledModel& model, const Int8ParamsCache* int8_params) {
  ProgramGenerator(g, steps, config, options, model, int8_params).run();
}

}  // namespace npu::compiler
