// The code generators' shared state (codegen_context.h): DDR placement of values and
// constants, aliases and strided views, the scratchpad homes the step scheduler chose.
#include "compiler/backend/codegen_context.h"

#include <algorithm>

#include "compiler/passes/passes.h"
#include "compiler/quant/int8_layer_params.h"
#include "compiler/quant/quant_math.h"
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
  sram_capacity = std::min<std::uint64_t>(c.sram.capacity_bytes, (1ull << 24)) / alignment * alignment;
  sram_base = 0;
  sram_bytes = sram_capacity;
  // The per-image copies of a batched layer (passes/batch_split.cpp) pack the same weights and
  // parameters: stored once, as the model stores them.
  share_equal_data = std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return !batch_image_base(n.name).empty(); });
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

bool CodegenContext::place_in_shared_sram(const std::string& name) {
  if (tensors_.count(name)) return false;
  const Tensor& t = graph.tensor(name);
  DdrTensor d;
  describe(t, d);
  d.elem = elem_bytes(t);
  const auto bytes = (static_cast<std::uint64_t>(d.bytes()) + 63) / 64 * 64;
  if (next_shared_ + bytes > isa::kSharedSramBase + config.engines.shared_sram_bytes) return false;
  d.addr = next_shared_;
  next_shared_ += bytes;
  tensors_[name] = d;
  return true;
}

void CodegenContext::begin_shared_sram_step() { next_shared_ = isa::kSharedSramBase; }

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
  if (auto first = resident_first_row.find(it->first); first != resident_first_row.end() && first->second > 0) {
    const DdrTensor& t = tensors_.at(it->first);
    return it->second.sram_addr - static_cast<std::uint64_t>(first->second * t.w * t.c * t.elem);
  }
  return it->second.sram_addr;
}

bool CodegenContext::in_ddr(const std::string& name) const {
  auto it = homes_.find(alias_root(name));
  return it == homes_.end() || it->second.in_ddr;
}

void throw_tile_too_big(const CodegenContext& ctx, const Node& n, std::uint64_t need) {
  throw CompileError(ctx.graph.source + ": layer '" + n.name + "' (" + n.op_type + "): the smallest tile needs " +
                     std::to_string(need) + " bytes of SRAM with double buffers; the scratchpad has " +
                     std::to_string(ctx.sram_bytes));
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
      std::uint16_t h = isa::float_to_half_saturating(v);
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
  if (share_equal_data)
    if (auto it = data_at_.find(bytes); it != data_at_.end()) return it->second;
  std::uint64_t a = allocate(bytes.size());
  if (share_equal_data) data_at_.emplace(bytes, a);
  program_.data.push_back({a, std::move(bytes)});
  return a;
}

}  // namespace npu::compiler
