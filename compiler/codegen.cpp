#include "compiler/codegen.h"

#include <algorithm>
#include <set>

#include "compiler/codegen_context.h"
#include "compiler/codegen_move.h"
#include "compiler/lowering_cache.h"
#include "compiler/npu_ops.h"
#include "compiler/precision_converters.h"
#include "compiler/quantization_stage.h"
#include "compiler/quant_math.h"
#include "compiler/rowwise_params.h"
#include "isa/fp16.h"

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
  sram_bytes = std::min<std::uint64_t>(c.sram.capacity_bytes, (1ull << 24)) / alignment * alignment;
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

void CodegenContext::alias(const std::string& name, const std::string& same_as) {
  DdrTensor d = tensor(same_as);
  describe(graph.tensor(name), d);
  tensors_[name] = d;
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
  return constants_[key] = d;
}

std::uint64_t CodegenContext::add_data(std::vector<std::uint8_t> bytes) {
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

void generate_program(const Graph& g, const std::vector<StepNodes>& steps, const HardwareConfig& config,
                      Precision precision, CompiledModel& model, const Int8ParamsCache* int8_params) {
  CodegenContext ctx(g, config, precision, int8_params);
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
    for (const auto& in : steps[s].inputs) {
      ctx.tensor(in);
      step_inputs.insert(in);
    }
    for (int i : steps[s].nodes) {
      const Node& n = g.nodes[i];
      const std::string& op = n.op_type;
      LayerCode code;
      // Mixed programs: this layer's precision (quantization_stage.h), the program's otherwise.
      ctx.precision = runs_in_fp16(n) ? Precision::Fp16 : precision;
      if (is_precision_converter(n)) {
        code = generate_convert(ctx, n);
      } else if (is_view_op(op)) {
        ctx.alias(n.outputs[0], n.inputs[0]);  // the layout pass made the output the same bytes
      } else if (move_ops().count(op)) {
        code = generate_move(ctx, n);
      } else if (op == "FusedConv" || op == "FusedGemm") {
        code = generate_conv(ctx, n);
      } else if (op == "MaxPool" || op == "AveragePool") {
        code = generate_pool(ctx, n);
      } else if (op == "Resize" || op == "Upsample") {
        code = generate_resize(ctx, n);
      } else if (is_rowwise_op(op)) {
        code = generate_rowwise(ctx, n);
      } else if (op == "MatMul") {
        code = generate_matmul(ctx, n);
      } else {
        code = generate_elementwise(ctx, n);
      }
      LayerRecord rec;
      rec.name = n.name;
      rec.op = n.get_string("pattern", op);
      rec.device = "npu";
      rec.macs = code.macs;
      rec.planned_ddr_bytes = code.planned_ddr_bytes;
      rec.fused_nodes = n.fused_nodes;
      rec.first_instruction = static_cast<std::uint32_t>(program.code.size());
      program.code.insert(program.code.end(), code.code.begin(), code.code.end());
      // Layers communicate through DDR: the next layer may only start once this one's stores land.
      if (!code.code.empty()) program.code.push_back(isa::make_instruction(isa::Opcode::Barrier));
      rec.end_instruction = static_cast<std::uint32_t>(program.code.size());
      model.layers.push_back(rec);
    }
    ctx.precision = precision;
    program.code.push_back(isa::make_instruction(isa::Opcode::Halt));
    step.end_instruction = static_cast<std::uint32_t>(program.code.size());
    for (const auto& o : steps[s].outputs) step_outputs.insert(o);
  }
  for (const auto& [name, d] : ctx.placed()) {
    const Tensor& t = g.tensor(name);
    isa::TensorEntry e;
    e.name = name;
    e.role = step_outputs.count(name) ? isa::TensorRole::Output
             : step_inputs.count(name) ? isa::TensorRole::Input
                                       : isa::TensorRole::Intermediate;
    e.dtype = d.elem == 1 ? isa::DType::Int8 : isa::DType::Fp16;
    // shape in memory order; layout names the order: NHWC, NC / ND (row-major), or
    // ND[a,b,...] listing the logical axes outermost first (only NPU-internal values).
    e.shape = physical_shape(t.shape, d.order);
    if (t.shape.size() == 4 && d.order == nhwc_order()) {
      e.layout = "NHWC";
    } else if (d.order == identity_order(t.shape.size())) {
      e.layout = t.shape.size() == 2 ? "NC" : "ND";
    } else {
      e.layout = "ND[";
      for (std::size_t i = 0; i < d.order.size(); ++i) e.layout += (i ? "," : "") + std::to_string(d.order[i]);
      e.layout += "]";
    }
    e.ddr_addr = d.addr;
    e.size_bytes = static_cast<std::uint64_t>(d.bytes());
    if (e.dtype == isa::DType::Int8) {
      e.scale = d.quant.scale;
      e.zero_point = d.quant.zero_point;
    }
    program.tensors.push_back(e);
  }
  model.program = std::move(program);
}

}  // namespace npu::compiler
