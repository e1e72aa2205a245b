#include "compiler/codegen.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "compiler/codegen_context.h"
#include "compiler/dependency_tokens.h"
#include "costmodel/dma_cost.h"
#include "costmodel/footprint.h"
#include "costmodel/program_estimate.h"
#include "compiler/layer_interleave.h"
#include "compiler/step_schedule.h"
#include "compiler/codegen_move.h"
#include "compiler/lowering_cache.h"
#include "compiler/npu_ops.h"
#include "compiler/precision_converters.h"
#include "compiler/quantization_stage.h"
#include "compiler/quant_math.h"
#include "compiler/rowwise_params.h"
#include "isa/fp16.h"
#include "isa/instruction_set.h"

namespace npu::compiler {

void nhwc_extents(const std::vector<std::int64_t>& s, const AxisOrder& order, std::int64_t& h, std::int64_t& w,
                  std::int64_t& c) {
  h = w = c = 1;
  const AxisOrder o = order_or_identity(order, s.size());
  if (s.size() == 4 && same_bytes(s, o, nhwc_order())) {
    h = s[2];
    w = s[3];
    c = s[1];
    return;
  }
  const auto p = physical_shape(s, o);
  if (p.empty()) return;
  for (std::size_t i = 0; i + 1 < p.size(); ++i) h *= p[i];
  c = p.back();
}

namespace {

void describe(const Tensor& t, DdrTensor& d) {
  d.shape = t.shape;
  d.order = order_or_identity(t.order, t.shape.size());
  if (same_bytes(t.shape, d.order, default_order(t.shape.size()))) d.order = default_order(t.shape.size());
  d.strides = logical_strides(t.shape, d.order);
  nhwc_extents(t.shape, d.order, d.h, d.w, d.c);
  d.quant = t.quant;
}

}  // namespace

CodegenContext::CodegenContext(const Graph& g, const HardwareConfig& c, Precision p, const Int8ParamsCache* cache)
    : graph(g), config(c), precision(p), int8_params_(cache) {
  alignment = static_cast<std::uint64_t>(std::max(1, c.sram.alignment_bytes));
  sram_capacity = std::min<std::uint64_t>(c.sram.capacity_bytes, (1ull << 24)) / alignment * alignment;
  sram_base = 0;
  sram_bytes = sram_capacity;
}

std::shared_ptr<const Int8ConvParams> CodegenContext::conv_params(const Node& node) const {
  if (int8_params_) return int8_params_->conv(graph, node);
  return std::make_shared<const Int8ConvParams>(int8_conv_params(graph, node));
}

std::uint64_t CodegenContext::allocate(std::uint64_t bytes) {
  std::uint64_t a = next_ddr_;
  next_ddr_ = (next_ddr_ + bytes + 63) / 64 * 64;
  if (next_ddr_ > config.ddr.capacity_bytes)
    throw CompileError(graph.source + ": the program needs " + std::to_string(next_ddr_) +
                       " bytes of DDR; the config has " + std::to_string(config.ddr.capacity_bytes));
  return a;
}

const DdrTensor& CodegenContext::tensor(const std::string& name) {
  auto it = tensors_.find(name);
  if (it != tensors_.end()) return it->second;
  const Tensor& t = graph.tensor(name);
  DdrTensor d;
  describe(t, d);
  d.elem = elem_bytes(t);
  d.addr = allocate(static_cast<std::uint64_t>(d.bytes()));
  return tensors_[name] = d;
}

void CodegenContext::place_inside(const std::string& part, const std::string& whole, std::int64_t offset) {
  DdrTensor d = tensor(whole);
  const std::vector<std::int64_t> strides = d.strides;
  describe(graph.tensor(part), d);
  d.strides = strides;
  d.addr += static_cast<std::uint64_t>(offset * d.elem);
  tensors_[part] = d;
}

void CodegenContext::alias(const std::string& name, const std::string& same_as) {
  DdrTensor d = tensor(same_as);
  describe(graph.tensor(name), d);
  tensors_[name] = d;
  alias_of_[name] = same_as;
}

const std::string& CodegenContext::alias_root(const std::string& name) const {
  const std::string* n = &name;
  for (auto it = alias_of_.find(*n); it != alias_of_.end(); it = alias_of_.find(*n)) n = &it->second;
  return *n;
}

std::optional<std::uint64_t> CodegenContext::resident(const std::string& name) const {
  auto it = homes_.find(alias_root(name));
  if (it == homes_.end() || !it->second.resident) return std::nullopt;
  return it->second.sram_addr;
}

bool CodegenContext::in_ddr(const std::string& name) const {
  auto it = homes_.find(alias_root(name));
  return it == homes_.end() || it->second.in_ddr;
}

const DdrTensor& CodegenContext::constant(const std::string& name, const QuantParams& q, const AxisOrder& order) {
  return constant(graph.tensor(name), q, order);
}

const DdrTensor& CodegenContext::constant(const Tensor& t, const QuantParams& q, const AxisOrder& order) {
  const AxisOrder o = order_or_identity(order, t.shape.size());
  const bool quantized = int8() && q.valid();  // else fp16 (also the masks of an int8 island)
  auto key = std::make_tuple(t.name, quantized ? q.scale : 0.0f, quantized ? q.zero_point : 0, o);
  auto it = constants_.find(key);
  if (it != constants_.end()) return it->second;
  DdrTensor d;
  d.shape = t.shape;
  d.order = o;
  d.strides = logical_strides(t.shape, d.order);
  nhwc_extents(t.shape, d.order, d.h, d.w, d.c);
  d.elem = quantized ? 1 : 2;
  d.quant = quantized ? q : QuantParams{};
  std::vector<float> logical;
  const std::int64_t n = t.elements();
  for (std::int64_t i = 0; i < n; ++i)
    logical.push_back(t.floats.empty() ? static_cast<float>(t.ints.at(static_cast<std::size_t>(i)))
                                       : t.floats.at(static_cast<std::size_t>(i)));
  std::vector<std::uint8_t> bytes;
  for (float v : to_physical(logical, t.shape, d.order)) {
    if (quantized) {
      bytes.push_back(static_cast<std::uint8_t>(quantize_value(v, q.scale, q.zero_point)));
    } else {
      std::uint16_t h = isa::float_to_half(v);
      bytes.push_back(static_cast<std::uint8_t>(h & 0xff));
      bytes.push_back(static_cast<std::uint8_t>(h >> 8));
    }
  }
  d.addr = add_data(std::move(bytes));
  if (dry_run) return dry_constants_.emplace_back(d);  // a trial: the address is not real, keep none
  return constants_[key] = d;
}

std::uint64_t CodegenContext::add_data(std::vector<std::uint8_t> bytes) {
  if (dry_run) return next_ddr_;  // costed, not kept
  std::uint64_t a = allocate(bytes.size());
  program_.data.push_back({a, std::move(bytes)});
  return a;
}

std::uint64_t node_macs(const Graph& g, const Node& n) {
  const std::string& op = n.op_type;
  if (op != "Conv" && op != "FusedConv" && op != "Gemm" && op != "FusedGemm" && op != "MatMul") return 0;
  if (n.inputs.size() < 2 || n.outputs.empty()) return 0;
  if (op == "MatMul") {  // y [.., M, N] from a k-long reduction per element
    const Tensor& a = g.tensor(n.inputs[0]);
    const Tensor& y = g.tensor(n.outputs[0]);
    if (!a.shape_known || !y.shape_known || a.shape.empty()) return 0;
    return static_cast<std::uint64_t>(y.elements() * a.shape.back());
  }
  const Tensor& w = g.tensor(n.inputs[1]);
  const Tensor& y = g.tensor(n.outputs[0]);
  if (!w.shape_known || !y.shape_known) return 0;
  if (op == "Conv" || op == "FusedConv") {
    std::int64_t per_output = w.elements() / std::max<std::int64_t>(w.shape[0], 1);
    return static_cast<std::uint64_t>(y.elements() * per_output);
  }
  const Tensor& x = g.tensor(n.inputs[0]);
  std::int64_t k = x.shape.empty() ? 1 : x.shape.back();
  return static_cast<std::uint64_t>(y.elements() * k);
}

namespace {

// What codegen knows about each NPU layer kind: its generator and what it can do with the
// scratchpad. Generators not yet written against a region get the whole scratchpad from
// address 0 and read and write DDR only (compiler/README.md).
struct LayerKind {
  LayerCode (*generate)(CodegenContext&, const Node&) = nullptr;
  bool region_aware = false;     // tiles in [ctx.sram_base, +ctx.sram_bytes)
  bool reads_resident = false;   // reads inputs in place where ctx.resident() says
  bool writes_resident = false;  // leaves its output in place where ctx.resident() says
};

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

LayerKind layer_kind(const Node& n) {
  const std::string& op = n.op_type;
  if (is_precision_converter(n)) return {generate_convert, false, false, false};
  if (op == "FusedConv" || op == "FusedGemm") return {generate_conv, true, true, true};
  if (op == "MaxPool" || op == "AveragePool") return {generate_pool, true, true, true};
  if (op == "Resize" || op == "Upsample") return {generate_resize, true, false, false};
  if (move_ops().count(op)) return {generate_move, true, false, false};
  if (op == "MatMul") return {generate_matmul, true, false, false};
  if (is_rowwise_op(op)) return {generate_rowwise, true, false, false};
  return {generate_elementwise, true, false, false};
}

// What a layer without a tiler of its own does in a region of `budget` bytes: its code,
// generated without keeping constants, timed by the cost model's program estimate.
std::optional<LayerDemand> generated_demand(CodegenContext& ctx, const LayerKind& kind, const Node& n, std::uint64_t budget) {
  const SramRegion saved{ctx.sram_base, ctx.sram_bytes};
  ctx.set_region({0, budget});
  ctx.dry_run = true;
  std::optional<LayerDemand> d;
  try {
    LayerCode code = kind.generate(ctx, n);
    code.code.push_back(isa::make_instruction(isa::Opcode::Halt));
    derive_dependency_tokens(code.code, 0, code.code.size());
    double bus = 0;
    for (const auto& in : code.code) {
      const cost::Footprint f = cost::footprint(in);
      for (const auto* ranges : {&f.ddr_read, &f.ddr_write})
        for (const auto& r : *ranges) bus += static_cast<double>(r.end - r.begin);
    }
    // The generator sized its tiles from the region: it needs the whole of it.
    d = LayerDemand{budget, cost::estimate_program(code.code, ctx.config).cycles, bus, true};
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

}  // namespace

void generate_program(const Graph& g, const std::vector<StepNodes>& steps, const HardwareConfig& config,
                      const CompileOptions& options, CompiledModel& model, const Int8ParamsCache* int8_params) {
  const Precision precision = options.precision;
  CodegenContext ctx(g, config, precision, int8_params);
  if (options.quant.weights != WeightOnly::None) {
    ctx.weight_only.format = options.quant.weights == WeightOnly::Int4 ? isa::WeightFormat::Int4 : isa::WeightFormat::Int8;
    ctx.weight_only.group = options.quant.weights == WeightOnly::Int4 ? static_cast<std::uint64_t>(options.quant.group_size) : 0;
  }
  isa::Program& program = ctx.program();
  std::set<std::string> step_inputs, step_outputs;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    if (steps[s].device != Node::Device::Npu) {
      for (int i : steps[s].nodes) {
        const Node& n = g.nodes[i];
        LayerRecord rec;
        rec.name = n.name;
        rec.op = n.op_type;
        rec.device = "cpu";
        rec.macs = node_macs(g, n);
        rec.fused_nodes = n.fused_nodes;
        model.layers.push_back(rec);
      }
      continue;
    }
    NpuStep& step = model.steps.at(s).npu;
    step.first_instruction = static_cast<std::uint32_t>(program.code.size());
    const std::set<std::string> this_step_inputs(steps[s].inputs.begin(), steps[s].inputs.end());
    for (int i : steps[s].nodes) {
      const Node& n = g.nodes[static_cast<std::size_t>(i)];
      if (!concat_in_place(g, n, this_step_inputs)) continue;
      ctx.place_inside(n.inputs[0], n.outputs[0], 0);
      ctx.concat_in_place[n.outputs[0]] = n.inputs[0];
    }
    for (const auto& in : steps[s].inputs) {
      ctx.tensor(in);
      step_inputs.insert(in);
    }
    // The step's layers and values, as the scheduler sees them.
    std::vector<StepLayer> layers;
    std::vector<LayerKind> kinds;
    std::map<std::string, StepValue> values;
    std::set<std::string> outputs_of_step(steps[s].outputs.begin(), steps[s].outputs.end());
    for (int i : steps[s].nodes) {
      const Node& n = g.nodes[i];
      StepLayer L;
      LayerKind kind = layer_kind(n);
      if (is_view_op(n.op_type)) {
        ctx.alias(n.outputs[0], n.inputs[0]);  // the layout pass made the output the same bytes
        L.has_code = false;
        L.region_aware = true;
      } else if (concat_read_in_parts(g, n, outputs_of_step)) {
        ctx.concat_parts[n.outputs[0]] = n.inputs;  // its readers take the parts: no code
        L.has_code = false;
        L.region_aware = true;
      } else {
        L.region_aware = kind.region_aware;
        L.reads_resident = kind.reads_resident;
        L.writes_resident = kind.writes_resident;
        for (const auto& v : n.inputs) {
          if (v.empty() || g.is_constant(v)) continue;
          if (auto parts = ctx.concat_parts.find(v); parts != ctx.concat_parts.end())
            for (const auto& p : parts->second) L.inputs.push_back(ctx.alias_root(p));
          else
            L.inputs.push_back(ctx.alias_root(v));
        }
        for (const auto& v : n.outputs) {
          L.outputs.push_back(v);
          StepValue& sv = values[v];
          sv.bytes = ctx.align(static_cast<std::uint64_t>(ctx.tensor(v).bytes()));
        }
      }
      layers.push_back(L);
      kinds.push_back(kind);
    }
    for (auto& [v, sv] : values) {
      for (const auto& o : outputs_of_step)
        if (ctx.alias_root(o) == v) sv.step_output = true;
    }
    StepScheduleOptions so;
    so.capacity = ctx.sram_capacity;
    so.alignment = ctx.alignment;
    so.keep_all_in_ddr = options.store_all_values;
    so.ddr_bytes_per_cycle = config.ddr.model == DdrModel::Ideal ? 1e9 : cost::ddr_bytes_per_cycle(config);
    DemandFn demand = [&](std::size_t i, const std::map<std::string, ValueHome>& homes,
                          std::uint64_t budget) -> std::optional<LayerDemand> {
      const Node& n = g.nodes[static_cast<std::size_t>(steps[s].nodes[i])];
      // Mixed programs: this layer's precision (quantization_stage.h), the program's otherwise.
      ctx.precision = runs_in_fp16(n) ? Precision::Fp16 : precision;
      if (kinds[i].generate == generate_conv) {
        ctx.homes() = homes;
        return conv_demand(ctx, n, budget);
      }
      ctx.homes() = homes;
      // Resident values sit above the trial region where addresses reach (else at 0: the
      // estimate then only serialises more).
      const std::uint64_t above = ctx.sram_capacity < (std::uint64_t{1} << 24) ? ctx.sram_capacity : 0;
      for (auto& [v, h] : ctx.homes()) h.sram_addr = above;
      return generated_demand(ctx, kinds[i], n, budget);
    };
    StepSchedule schedule = schedule_step(layers, values, so, demand);
    ctx.homes() = schedule.homes;

    std::vector<std::vector<isa::Instruction>> layer_code;
    for (std::size_t li = 0; li < steps[s].nodes.size(); ++li) {
      const Node& n = g.nodes[static_cast<std::size_t>(steps[s].nodes[li])];
      LayerCode code;
      ctx.precision = runs_in_fp16(n) ? Precision::Fp16 : precision;
      if (layers[li].has_code) {
        ctx.set_region(schedule.scratch[li]);
        ctx.third_weight_slot = !schedule.third_weight_slot.empty() && schedule.third_weight_slot[li];
        if (std::getenv("NPUSIM_DEBUG_SCHEDULE"))
          std::fprintf(stderr, "%s: region %llu + %llu est %.0f%s\n", n.name.c_str(), (unsigned long long)schedule.scratch[li].base,
                       (unsigned long long)schedule.scratch[li].bytes, schedule.est_cycles[li],
                       ctx.third_weight_slot ? " (3 weight buffers)" : "");
        code = kinds[li].generate(ctx, n);
        if (layers[li].region_aware) check_within_region(ctx, n, layers[li], values, code.code);
        ctx.previous_region = schedule.scratch[li];
      }
      LayerRecord rec;
      rec.name = n.name;
      rec.op = n.get_string("pattern", n.op_type);
      rec.device = "npu";
      rec.macs = code.macs;
      rec.planned_ddr_bytes = code.planned_ddr_bytes;
      rec.fused_nodes = n.fused_nodes;
      model.layers.push_back(rec);
      layer_code.push_back(std::move(code.code));
    }
    // Each layer's instructions move into its predecessor's code where the cost model says the
    // step gets faster (layer_interleave.h); the records then name the runs that are theirs.
    InterleavedCode merged = interleave_layers(layer_code, config, options.interleave_layers && !std::getenv("NPUSIM_NO_INTERLEAVE"),
                                               options.check_interleave || std::getenv("NPUSIM_CHECK_INTERLEAVE"));
    if (!merged.order_violation.empty()) {
      auto name = [&](std::uint32_t li) { return g.nodes[static_cast<std::size_t>(steps[s].nodes[li])].name; };
      throw CompileError(g.source + ": internal: interleaving put an instruction of layer '" + name(merged.order_violation[0]) +
                         "' before a conflicting one of layer '" + name(merged.order_violation[1]) + "'");
    }
    const std::size_t first_record = model.layers.size() - layer_code.size();
    const auto step_first = static_cast<std::uint32_t>(program.code.size());
    std::uint32_t previous_end = step_first;  // where the last layer with code ended
    for (std::size_t li = 0; li < layer_code.size(); ++li) {
      LayerRecord& rec = model.layers[first_record + li];
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
    ctx.precision = precision;
    program.code.push_back(isa::make_instruction(isa::Opcode::Halt));
    step.end_instruction = static_cast<std::uint32_t>(program.code.size());
    // No barriers between layers: each instruction waits for exactly what it depends on.
    derive_dependency_tokens(program.code, step.first_instruction, step.end_instruction);
    if (std::getenv("NPUSIM_DEBUG_SCHEDULE")) {
      const auto est = cost::estimate_program(program.code, step.first_instruction, step.end_instruction, config);
      std::fprintf(stderr, "step estimate %.0f cycles\n", est.cycles);
      if (const char* path = std::getenv("NPUSIM_DEBUG_ESTIMATE_FILE")) {
        if (FILE* f = std::fopen(path, "w")) {
          for (std::size_t k = 0; k < est.instructions.size(); ++k)
            std::fprintf(f, "%zu %.0f %.0f\n", step.first_instruction + k, est.instructions[k].start_cycle, est.instructions[k].end_cycle);
          std::fclose(f);
        }
      }
    }
    for (const auto& o : steps[s].outputs) step_outputs.insert(o);
    ctx.homes().clear();
    ctx.set_region({0, ctx.sram_capacity});
    ctx.previous_region = {};
  }
  for (const auto& [name, d] : ctx.placed()) {
    const Tensor& t = g.tensor(name);
    isa::TensorEntry e;
    e.name = name;
    e.role = step_outputs.count(name) ? isa::TensorRole::Output
             : step_inputs.count(name) ? isa::TensorRole::Input
                                       : isa::TensorRole::Intermediate;
    e.dtype = d.elem == 1 ? isa::DType::Int8 : isa::DType::Fp16;
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
    program.tensors.push_back(e);
  }
  if (ctx.weight_only.quantized()) {
    model.quantization.weights = std::string(weight_only_name(options.quant.weights)) +
                                 (options.quant.weights == WeightOnly::Int4
                                      ? " per-group (" + std::to_string(options.quant.group_size) + " weights per fp16 scale)"
                                      : " per-channel (one fp16 scale per output channel)") +
                                 ", fp16 activations, " + std::to_string(ctx.weight_only_layers) + " MatMul/Gemm layer(s)";
  }
  model.program = std::move(program);
}

}  // namespace npu::compiler
