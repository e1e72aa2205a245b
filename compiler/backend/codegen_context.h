// What every layer's code generator needs: where values live (DDR, and for values the step
// scheduler keeps on chip, the scratchpad), how to add constant data, the layer's scratchpad
// region and the precision. One per program. The contract between generators and the step
// scheduler is written down in compiler/README.md.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/backend/code_timing_cache.h"
#include "compiler/backend/layer_mapping.h"
#include "compiler/backend/sram_tiling.h"
#include "compiler/core/graph.h"
#include "compiler/core/tensor_layout.h"
#include "compiler/quant/int8_layer_params.h"
#include "hwconfig/hardware_config.h"
#include "isa/instruction.h"
#include "isa/program.h"

namespace npu::compiler {

class Int8ParamsCache;

// A value as the NPU stores it in DDR: its logical shape with the axes in memory order `order`
// (tensor_layout.h), int8 or fp16. h, w, c view it as one image for the ops that need one: an
// NHWC value is H x W x C; any other value is (all outer dims) x 1 x (innermost dim), so a
// [M, K] or [1, T, D] row-major value is M x 1 x K or T x 1 x D.
struct DdrTensor {
  std::uint64_t addr = 0;
  std::int64_t h = 1, w = 1, c = 1;
  std::vector<std::int64_t> shape;    // logical
  AxisOrder order;                    // memory order of the logical axes
  std::vector<std::int64_t> strides;  // elements between neighbours along each logical axis
  std::int64_t elements() const {  // all of them (the image view leaves out a batch > 1)
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return shape.empty() ? h * w * c : n;
  }
  std::int64_t bytes() const { return elements() * elem; }
  // Bytes from the first element to past the last (more than bytes() for a strided view).
  std::int64_t span_bytes() const {
    std::int64_t last = 0;
    for (std::size_t a = 0; a < shape.size() && a < strides.size(); ++a) last += (shape[a] - 1) * strides[a];
    return shape.empty() || elements() == 0 ? bytes() : (last + 1) * elem;
  }
  std::int64_t elem = 1;  // bytes per element
  QuantParams quant;
};

// Where the step scheduler keeps a value for the step: in DDR (the default), and/or resident in
// the scratchpad as the whole dense NHWC tensor at sram_addr from the moment its producer writes
// it until its last consumer has read it.
struct ValueHome {
  bool resident = false;
  std::uint64_t sram_addr = 0;
  bool in_ddr = true;
};

struct SramRegion {
  std::uint64_t base = 0, bytes = 0;
};

struct LayerCode {
  std::vector<isa::Instruction> code;
  std::uint64_t planned_ddr_bytes = 0;
  std::uint64_t macs = 0;
  double est_cycles = 0;  // the tiler's estimate of the layer alone (0: none)
  LayerMapping mapping;   // what the generator lowered (layer_mapping.h)
};

class CodegenContext {
 public:
  CodegenContext(const Graph& graph, const HardwareConfig& config, Precision precision,
                 const Int8ParamsCache* int8_params = nullptr);

  const Graph& graph;
  const HardwareConfig& config;
  Precision precision;
  std::uint64_t sram_capacity = 0;  // usable scratchpad (capacity, capped by 24-bit addresses)
  // The current layer's scratch region [sram_base, sram_base + sram_bytes): generators place
  // their tile buffers only there (and read/write resident values where homes() says).
  std::uint64_t sram_base = 0;
  std::uint64_t sram_bytes = 0;
  // The region of the step's previous layer with code (bytes 0: none): its last tiles may still
  // be running when this layer's first loads could start.
  SramRegion previous_region;
  // The step scheduler gave this layer's region room for a third weight buffer
  // (with_third_weight_slot).
  bool third_weight_slot = false;
  // Multi-engine steps (engine_split.h): the part of the current layer this engine computes
  // (none: all of it; only families with a LayerSplitter get one), and the config the conv
  // tiler prices with (the DDR bandwidth shared by the engines that run at once; null: config).
  std::optional<EnginePart> part;
  // Per layer, the weight load order all its row parts keep (LayerSplitter::share_load_order).
  std::map<std::string, WeightLoadOrder> weight_orders;
  const HardwareConfig* tiling_config = nullptr;
  const HardwareConfig& tiling() const { return tiling_config ? *tiling_config : config; }
  std::uint64_t alignment = 64;

  bool int8() const { return precision == Precision::Int8; }
  std::int64_t elem_bytes() const { return int8() ? 1 : 2; }
  // Per value: int8 when it has quantisation parameters, else fp16 (an fp16 program's values, an
  // int8 program's masked attention scores, -inf where masked, and its fp16 layers' values);
  // integer values (a gather's run-time indices, an int16 graph input or output:
  // integer_boundary.h) are int32.
  std::int64_t elem_bytes(const Tensor& t) const {
    if (t.elem_type == kInt32 || t.elem_type == kInt64 || t.elem_type == kInt16) return 4;
    return t.quant.valid() ? 1 : 2;
  }
  std::uint64_t align(std::uint64_t v) const { return (v + alignment - 1) / alignment * alignment; }

  // DDR placement of an activation (allocated on first use; reshapes alias their input).
  const DdrTensor& tensor(const std::string& name);
  // The shared SRAM (engines.shared_sram_kib; isa::kSharedSramBase window): places a value
  // there instead of DDR if it has no place yet and fits what the step has left; whether it
  // did. Only for values one NPU step writes and reads (the memory keeps nothing across steps).
  bool place_in_shared_sram(const std::string& name);
  // A new step: its values may take the whole shared SRAM again.
  void begin_shared_sram_step();
  void alias(const std::string& name, const std::string& same_as);
  // The scratchpad address of a value kept resident for the step, if it is. A value this engine
  // holds only from row k on (resident_first_row: a multi-engine step's row part) answers where
  // its row 0 would be, so rows are found as for a whole tensor (unsigned wrap-around included).
  std::optional<std::uint64_t> resident(const std::string& name) const;
  // Where a value kept on chip at `home` (its resident() address) holds the byte its DDR image
  // has at `ddr_addr` (of the value or a view of it): the scratchpad copy is the DDR bytes as they are.
  std::uint64_t home_addr(const std::string& name, std::uint64_t home, std::uint64_t ddr_addr) {
    return home + (ddr_addr - tensor(alias_root(name)).addr);
  }
  std::map<std::string, std::int64_t> resident_first_row;
  // Whether the value must be (also) in DDR: a generator writing it stores it there.
  bool in_ddr(const std::string& name) const;
  std::map<std::string, ValueHome>& homes() { return homes_; }
  // Makes [base, base + bytes) the current layer's region.
  void set_region(SramRegion r) {
    sram_base = r.base;
    sram_bytes = r.bytes;
  }
  // Constant bytes placed in DDR (a program data segment); returns the address. With
  // share_equal_data (multi-engine steps, where each engine's part of a row-split layer places
  // the same weights) equal bytes are placed once.
  std::uint64_t add_data(std::vector<std::uint8_t> bytes);
  bool share_equal_data = false;
  // Set while the step scheduler costs a layer's code in a trial region: constants are not kept.
  bool dry_run = false;
  // Trial code timed with `config` (generated_demand; a part priced with tiling_config is not kept).
  CodeTimingCache trial_timings;
  // A constant operand as a data segment, its axes in `order` (empty: row-major): int8 on `q`
  // (int8 programs, q valid) or fp16 (fp16 programs, or no q: an int8 island's masks). Placed
  // once per (name, q, order). The second form places a constant codegen computed itself
  // (named uniquely by the caller).
  const DdrTensor& constant(const std::string& name, const QuantParams& q, const AxisOrder& order = {});
  const DdrTensor& constant(const Tensor& value, const QuantParams& q, const AxisOrder& order = {});

  // INT8 parameters of a FusedConv/FusedGemm: from the lowered model's cache when there is one.
  std::shared_ptr<const Int8ConvParams> conv_params(const Node& node) const;

  isa::Program& program() { return program_; }
  std::map<std::string, DdrTensor>& placed() { return tensors_; }
  // The value a reshape aliases, followed to its source (itself when not an alias).
  const std::string& alias_root(const std::string& name) const;
  // Conv/gemm tile plans the step scheduler's questions produced, by layer and placement of its
  // values: codegen takes the fastest that fits the region it was given (the tiler's search
  // from that exact budget may take another path).
  std::map<std::string, std::vector<TilePlan>> conv_plans;
  // The same question asked again (the scheduler probes the same budgets under many placements
  // of other layers' values): the index of its answer in conv_plans, -1 when nothing fitted.
  std::map<std::pair<std::string, std::uint64_t>, std::ptrdiff_t> conv_plan_of_budget;
  // Channel concatenations that emit no code: their readers (convs) read the parts, in order.
  std::map<std::string, std::vector<std::string>> concat_parts;
  // Concat outputs whose first part the host writes in place (a strided view of the output's
  // bytes, place_inside): the Concat moves only the other parts.
  std::map<std::string, std::string> concat_in_place;
  // Concat outputs whose every part its producer (a conv) stored in place, a channel slice of
  // the output's bytes (place_inside): the Concat emits no code.
  std::set<std::string> concat_stored_in_place;
  // Places `part` at `offset` elements into `whole`'s bytes, with `whole`'s strides.
  void place_inside(const std::string& part, const std::string& whole, std::int64_t offset);
  // --weights: FusedGemm weights of fp16 layers stored int8 / packed int4 with fp16 scales
  // (group: rows per scale, 0 for int8's one per column); how many layers got it.
  cost::WeightStorage weight_only;
  int weight_only_layers = 0;

 private:
  std::uint64_t allocate(std::uint64_t bytes);
  const Int8ParamsCache* int8_params_ = nullptr;
  std::map<std::string, DdrTensor> tensors_;
  std::map<std::string, std::string> alias_of_;
  std::map<std::string, ValueHome> homes_;
  std::map<std::tuple<std::string, float, std::int32_t, AxisOrder>, DdrTensor> constants_;
  std::deque<DdrTensor> dry_constants_;  // handed out during dry runs (stable references)
  std::map<std::vector<std::uint8_t>, std::uint64_t> data_at_;  // share_equal_data's placements
  isa::Program program_;
  std::uint64_t next_ddr_ = 0x1000;  // 0 is left unused so a zero address is always a bug
  std::uint64_t next_shared_ = isa::kSharedSramBase;
};

// The h x w x c image view of a value of logical `shape` stored in `order` (see DdrTensor).
void nhwc_extents(const std::vector<std::int64_t>& shape, const AxisOrder& order, std::int64_t& h, std::int64_t& w,
                  std::int64_t& c);

// "layer 'x' (Op): the smallest tile needs N bytes of SRAM with double buffers; ...": what a
// generator throws when even its smallest tile does not fit the region.
[[noreturn]] void throw_tile_too_big(const CodegenContext& ctx, const Node& node, std::uint64_t need);

// What a layer would do in a region of `budget` bytes with the homes now set (op_registry.h:
// a family's demand, or the scheduler's timing of its code): nullopt when nothing fits.
struct LayerDemand {
  std::uint64_t sram_bytes = 0;  // of the region the plan uses
  double cycles = 0;             // its estimate
  double ddr_bytes = 0;          // DDR bus bytes it moves
  bool takes_all = false;        // sizes its tiles from the whole region it is given
  std::uint64_t weight_slot_bytes = 0;  // what a third weight buffer adds (0: it would not pay)
};

}  // namespace npu::compiler
