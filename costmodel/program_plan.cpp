#include "costmodel/program_plan.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "costmodel/dma_cost.h"
#include "costmodel/mac_cost.h"
#include "costmodel/mac_shapes.h"
#include "costmodel/timing_error.h"
#include "costmodel/vector_cost.h"

namespace npu::cost {

using isa::DType;
using isa::Field;
using isa::Opcode;
using isa::Unit;

std::string instruction_label(std::uint64_t index, Opcode op) {
  return fmt::format("instruction #{} ({})", index, isa::opcode_info(op).mnemonic);
}

namespace {

std::uint64_t esize(std::int64_t dtype) { return isa::dtype_bytes(static_cast<DType>(dtype)); }

// Checks one instruction's fields and operand ranges; accumulates SRAM traffic and peak.
class Checker {
 public:
  Checker(const HardwareConfig& c, std::uint64_t index, const isa::Instruction& in, PlannedOp& op,
          std::uint64_t& peak, bool trial)
      : c_(c), index_(index), in_(in), op_(op), peak_(peak), trial_(trial) {}
  // PlanOptions::trial: operands outside the memories are timed, not refused.
  bool trial() const { return trial_; }

  template <typename... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) const {
    throw TimingError(instruction_label(index_, in_.opcode) + ": " + fmt::format(f, std::forward<Args>(args)...));
  }

  std::uint64_t u(Field f) const { return static_cast<std::uint64_t>(in_.get(f)); }

  std::uint64_t at_least(Field f, std::uint64_t min) const {
    const std::uint64_t v = u(f);
    if (v < min) fail("{} = {} must be >= {}", isa::field_info(f).name, v, min);
    return v;
  }

  void dtype_in(Field f, std::initializer_list<DType> allowed) const {
    const auto t = static_cast<DType>(in_.get(f));
    for (DType a : allowed)
      if (t == a) return;
    fail("{} = {} ({}) is not supported here", isa::field_info(f).name, in_.get(f), isa::dtype_name(t));
  }

  // Bytes of a tensor whose shape is the product of `dims` (each >= 1) with `es`-byte
  // elements. Three 24-bit dimensions can overflow 64 bits, so a product beyond the
  // scratchpad is an error here, before it could wrap.
  std::uint64_t shape_bytes(std::initializer_list<Field> dims, std::uint64_t es) const {
    std::uint64_t bytes = es;
    bool too_big = false;
    std::string names, values;
    for (Field f : dims) {
      const std::uint64_t v = at_least(f, 1);
      too_big = too_big || __builtin_mul_overflow(bytes, v, &bytes) || bytes > c_.sram.capacity_bytes;
      names += fmt::format("{}{}", names.empty() ? "" : " x ", isa::field_info(f).name);
      values += fmt::format("{}{}", values.empty() ? "" : " x ", v);
    }
    if (too_big)
      fail("{} = {} elements of {} bytes exceed scratchpad capacity {}", names, values, es, c_.sram.capacity_bytes);
    return bytes;
  }

  // Every enum field holds one of its enum's values.
  void enums() const {
    const isa::OpcodeInfo& info = isa::opcode_info(in_.opcode);
    for (int i = 0; i < info.field_count; ++i) {
      const isa::FieldSlot& s = info.fields[i];
      if (s.enum_type == isa::EnumType::None) continue;
      const int count = isa::enum_info(s.enum_type).count;
      if (in_.values[i] >= count)
        fail("{} = {} is not a value of {} (0..{})", isa::field_info(s.field).name, in_.values[i],
             isa::enum_info(s.enum_type).name, count - 1);
    }
  }

  // The spelling of an enum field's value ("gelu").
  std::string_view name_of(Field f) const { return isa::enum_value_name(isa::field_enum(in_.opcode, f), in_.get(f)); }

  // A scratchpad operand: base aligned, whole range inside the capacity.
  void sram(Field f, std::uint64_t bytes, bool write) { sram_at(f, u(f), bytes, write); }
  void sram_at(Field f, std::uint64_t addr, std::uint64_t bytes, bool write) { sram_span(f, addr, bytes, bytes, write); }
  // An operand that spans `span_bytes` but moves `traffic_bytes` (broadcast operands).
  void sram_span(Field f, std::uint64_t addr, std::uint64_t span_bytes, std::uint64_t traffic_bytes, bool write) {
    const auto align = static_cast<std::uint64_t>(c_.sram.alignment_bytes);
    if (!trial_ && addr % align != 0)
      fail("{} {:#x} is not a multiple of sram.alignment_bytes ({})", isa::field_info(f).name, addr, align);
    if (!trial_ && addr + span_bytes > c_.sram.capacity_bytes)
      fail("{} {:#x} + {} bytes exceeds scratchpad capacity {}", isa::field_info(f).name, addr, span_bytes,
           c_.sram.capacity_bytes);
    peak_ = std::max(peak_, addr + span_bytes);
    (write ? op_.sram_write_bytes : op_.sram_read_bytes) += traffic_bytes;
    add_range(addr, span_bytes);
  }

  // Remembers an operand's scratchpad range for bank conflicts (PlannedOp::ranges).
  void add_range(std::uint64_t addr, std::uint64_t bytes) {
    for (int i = 0; i < op_.range_count; ++i)
      if (op_.ranges[i].addr == addr && op_.ranges[i].bytes == bytes) return;
    if (op_.range_count == PlannedOp::kMaxRanges) {
      // More operands than slots: widen the last range to cover this one too.
      auto& last = op_.ranges[PlannedOp::kMaxRanges - 1];
      const std::uint64_t lo = std::min<std::uint64_t>(last.addr, addr);
      const std::uint64_t hi = std::max<std::uint64_t>(last.addr + last.bytes, addr + bytes);
      last = {static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(hi - lo)};
      return;
    }
    op_.ranges[op_.range_count++] = {static_cast<std::uint32_t>(addr), static_cast<std::uint32_t>(bytes)};
  }

  // dst [u(dst), +dst_bytes) and src [u(src), +src_bytes) may only overlap as allowed.
  enum class Overlap { Never, SameAddress };
  void no_overlap(Field dst, std::uint64_t dst_bytes, Field src, std::uint64_t src_bytes, Overlap allowed) const {
    const std::uint64_t d = u(dst), s = u(src);
    if (d < s + src_bytes && s < d + dst_bytes && !(allowed == Overlap::SameAddress && d == s))
      fail("{} [{:#x}, {:#x}) overlaps {} [{:#x}, {:#x}){}", isa::field_info(dst).name, d, d + dst_bytes,
           isa::field_info(src).name, s, s + src_bytes,
           allowed == Overlap::SameAddress ? " (only the same address is allowed: in place)" : "");
  }

 private:
  const HardwareConfig& c_;
  std::uint64_t index_;
  const isa::Instruction& in_;
  PlannedOp& op_;
  std::uint64_t& peak_;
  bool trial_;
};

// Whole bursts over all runs, ceil((addr % burst + len0) / burst) each: the same count every
// DDR model adds to bus_bytes(), known per transfer here so the energy and bandwidth counters
// can attribute it. A run's bursts depend only on its address modulo the burst, so the runs
// are counted per residue, one dimension at a time (a transfer may have 2^30 runs).
std::uint64_t bus_bytes(const DmaTransfer& t, std::uint64_t burst) {
  if (t.ddr_stride1 % burst == 0 && t.ddr_stride2 % burst == 0 && t.ddr_stride3 % burst == 0)
    return t.count1 * t.count2 * t.count3 * run_bursts(t.ddr_addr, t.len0, burst) * burst;
  std::vector<std::uint64_t> runs(burst, 0);
  runs[t.ddr_addr % burst] = 1;
  std::vector<std::uint64_t> step(burst), next(burst);
  auto spread = [&](std::uint64_t count, std::uint64_t stride) {
    // i * stride mod burst repeats with a period of at most `burst` values of i.
    std::fill(step.begin(), step.end(), 0);
    const std::uint64_t s = stride % burst;
    std::uint64_t period = 1;
    while (period < burst && (period * s) % burst != 0) ++period;
    for (std::uint64_t i = 0; i < std::min(count, period); ++i)
      step[(i * s) % burst] += count / period + (i < count % period ? 1 : 0);
    std::fill(next.begin(), next.end(), 0);
    for (std::uint64_t r = 0; r < burst; ++r)
      if (runs[r])
        for (std::uint64_t q = 0; q < burst; ++q)
          if (step[q]) next[(r + q) % burst] += runs[r] * step[q];
    runs.swap(next);
  };
  spread(t.count1, t.ddr_stride1);
  spread(t.count2, t.ddr_stride2);
  spread(t.count3, t.ddr_stride3);
  std::uint64_t bursts = 0;
  for (std::uint64_t r = 0; r < burst; ++r)
    if (runs[r]) bursts += runs[r] * run_bursts(r, t.len0, burst);
  return bursts * burst;
}

DmaTransfer plan_dma(Checker& ck, const HardwareConfig& c, const isa::Instruction& in, std::uint32_t index) {
  DmaTransfer t;
  t.index = index;
  t.store = in.opcode == Opcode::Store;
  t.channel = static_cast<std::uint32_t>(ck.u(Field::channel) % static_cast<std::uint64_t>(c.dma.channels));
  t.ddr_addr = ck.u(Field::ddr_addr);
  t.sram_addr = ck.u(Field::sram_addr);
  t.len0 = ck.at_least(Field::len0, 1);
  t.count1 = ck.at_least(Field::count1, 1);
  t.count2 = ck.at_least(Field::count2, 1);
  t.count3 = ck.at_least(Field::count3, 1);
  t.ddr_stride1 = ck.u(Field::ddr_stride1);
  t.ddr_stride2 = ck.u(Field::ddr_stride2);
  t.ddr_stride3 = ck.u(Field::ddr_stride3);
  t.sram_stride1 = ck.u(Field::sram_stride1);
  t.sram_stride2 = ck.u(Field::sram_stride2);
  t.sram_stride3 = ck.u(Field::sram_stride3);
  t.bytes = t.len0 * t.count1 * t.count2 * t.count3;
  t.push = in.push;
  // More bytes than the destination holds can only overwrite themselves (runs at stride 0);
  // refused, as is a transfer no simulation could finish (the fields allow 7e13 bytes).
  const std::uint64_t room = t.store ? c.ddr.capacity_bytes : c.sram.capacity_bytes;
  if (t.bytes > room && !ck.trial())
    ck.fail("moves {} bytes (len0 {} x count1 {} x count2 {} x count3 {}), more than the {} it writes holds ({} bytes)",
            t.bytes, t.len0, t.count1, t.count2, t.count3, t.store ? "DDR" : "scratchpad", room);

  // Highest byte touched on each side (strides are unsigned, so the last run is the farthest).
  const std::uint64_t sram_span = (t.count3 - 1) * t.sram_stride3 + (t.count2 - 1) * t.sram_stride2 +
                                  (t.count1 - 1) * t.sram_stride1 + t.len0;
  const std::uint64_t ddr_span = (t.count3 - 1) * t.ddr_stride3 + (t.count2 - 1) * t.ddr_stride2 +
                                 (t.count1 - 1) * t.ddr_stride1 + t.len0;
  ck.sram_at(Field::sram_addr, t.sram_addr, sram_span, false);
  if (t.ddr_addr + ddr_span > c.ddr.capacity_bytes && !ck.trial())
    ck.fail("ddr_addr {:#x} + {} bytes exceeds DDR capacity {}", t.ddr_addr, ddr_span, c.ddr.capacity_bytes);

  t.bus_bytes = bus_bytes(t, static_cast<std::uint64_t>(c.ddr.burst_bytes));
  // Any run whose DDR address is below the DMA's alignment goes through the bounce buffer.
  if (needs_bounce(t.ddr_addr, t.count1, t.ddr_stride1, t.count2, t.ddr_stride2, t.count3, t.ddr_stride3, c.dma))
    t.bounce_cycles = bounce_cycles(t.bytes, c.dma);
  return t;
}

// The checks above counted each operand once; the array streams some of them several times.
void set_traffic(PlannedOp& op, const SramTraffic& t) {
  op.sram_read_bytes = t.read;
  op.sram_write_bytes = t.written;
}

// The int32 accumulators the last int8 gemm/conv on the compute unit wrote: what a drain may
// read (it runs in the array's output stage as they leave the array).
struct Accumulators {
  bool valid = false;
  std::uint64_t addr = 0, bytes = 0;
  std::uint32_t index = 0;
};

Accumulators accumulators_of(const isa::Instruction& in, std::uint32_t index) {
  Accumulators a;
  a.valid = in.get(Field::mac_dtype) == static_cast<std::int64_t>(isa::MacDType::Int8);
  a.index = index;
  if (in.opcode == Opcode::Gemm) {
    const GemmShape s = GemmShape::of(in);
    a.addr = static_cast<std::uint64_t>(in.get(Field::c_addr));
    a.bytes = s.m * s.n * 4;
  } else {
    const ConvShape s = ConvShape::of(in);
    a.addr = static_cast<std::uint64_t>(in.get(Field::out_addr));
    a.bytes = s.out_h * s.out_w * s.out_c * 4;
  }
  return a;
}

void plan_drain(Checker& ck, const isa::Instruction& in, const MacArrayCost& mac, const Accumulators& acc, PlannedOp& op) {
  const std::uint64_t n = ck.at_least(Field::count, 1), ch = ck.at_least(Field::channels, 1);
  if (in.get(Field::clamp_min) > in.get(Field::clamp_max))
    ck.fail("clamp_min {} > clamp_max {}", in.get(Field::clamp_min), in.get(Field::clamp_max));
  if (!acc.valid && !ck.trial())
    ck.fail("no int8 conv or gemm before it on the compute unit: a drain takes the accumulators of the one just before it");
  if (!ck.trial() && (ck.u(Field::src_addr) != acc.addr || n * 4 != acc.bytes))
    ck.fail("src_addr {:#x} + {} int32 is not the accumulator block of instruction #{} ({:#x} + {} bytes), the compute "
            "instruction just before it", ck.u(Field::src_addr), n, acc.index, acc.addr, acc.bytes);
  ck.sram(Field::src_addr, n * 4, false);
  ck.sram(Field::param_addr, ch * 4, false);
  ck.sram(Field::requant_addr, ch * 8, false);
  ck.no_overlap(Field::dst_addr, n, Field::src_addr, n * 4, Checker::Overlap::Never);
  ck.sram(Field::dst_addr, n, true);
  op.cycles = mac.drain_cycles();
  op.vector_elements = n;
}

void plan_compute(Checker& ck, const isa::Instruction& in, const MacArrayCost& mac, PlannedOp& op) {
  if (in.opcode == Opcode::Gemm) {
    const GemmShape s = GemmShape::of(in);
    if (s.swap && !mac.flexible()) ck.fail("swap = 1 needs mac_array.mapping: flexible (this config's array is fixed)");
    if (s.fp16 && (s.a_zero_point != 0 || s.b_zero_point != 0))
      ck.fail("a_zero_point = {}, b_zero_point = {}: zero points need mac_dtype int8", s.a_zero_point, s.b_zero_point);
    ck.at_least(Field::m, 1);
    ck.at_least(Field::n, 1);
    ck.at_least(Field::k, 1);
    const std::uint64_t es = s.fp16 ? 2 : 1;
    const WeightStorage& w = s.b_storage;
    if (w.quantized() && !s.fp16) ck.fail("b_format {} needs mac_dtype fp16 (weight-only quantisation)", isa::enum_name(w.format));
    ck.sram(Field::a_addr, s.m * s.k * es, false);
    ck.sram(Field::b_addr, w.value_bytes(s.k, s.n, es), false);
    if (w.quantized()) ck.sram(Field::b_scale_addr, w.scale_bytes(s.k, s.n), false);
    if (s.accumulate) ck.sram(Field::c_addr, s.m * s.n * 4, false);
    ck.sram(Field::c_addr, s.m * s.n * 4, true);
    op.cycles = mac.cycles(s);
    op.macs = s.m * s.n * s.k;
    op.fp16 = s.fp16;
    set_traffic(op, mac.traffic(s));
    return;
  }
  const ConvShape s = ConvShape::of(in);
  for (Field f : {Field::in_h, Field::in_w, Field::in_c, Field::out_c, Field::kernel_h, Field::kernel_w,
                  Field::stride_h, Field::stride_w, Field::dilation_h, Field::dilation_w, Field::groups})
    ck.at_least(f, 1);
  if (s.in_c % s.groups != 0 || s.out_c % s.groups != 0)
    ck.fail("groups = {} must divide in_c = {} and out_c = {}", s.groups, s.in_c, s.out_c);
  if (s.out_h == 0 || s.out_w == 0)
    ck.fail("the {}x{} window (dilation {}x{}) does not fit the padded {}x{} input", s.kernel_h, s.kernel_w,
            s.dilation_h, s.dilation_w, s.in_h + s.pad_top + s.pad_bottom, s.in_w + s.pad_left + s.pad_right);
  if ((s.mapping.swap || s.mapping.depthwise) && !mac.flexible())
    ck.fail("{} = 1 needs mac_array.mapping: flexible (this config's array is fixed)",
            s.mapping.depthwise ? "depthwise" : "swap");
  if (s.mapping.depthwise && (s.groups != s.in_c || s.groups != s.out_c))
    ck.fail("depthwise = 1 needs groups = in_c = out_c (got groups {}, in_c {}, out_c {})", s.groups, s.in_c, s.out_c);
  if (s.in_stride != 0 && s.in_stride < s.in_c) ck.fail("in_stride = {} is below in_c = {}", s.in_stride, s.in_c);
  const std::uint64_t es = s.fp16 ? 2 : 1;
  ck.sram(Field::in_addr, s.in_span() * es, false);
  ck.sram(Field::w_addr, s.kernel_h * s.kernel_w * s.in_c_per_group() * s.out_c * es, false);
  if (s.accumulate) ck.sram(Field::out_addr, s.out_h * s.out_w * s.out_c * 4, false);
  ck.sram(Field::out_addr, s.out_h * s.out_w * s.out_c * 4, true);
  op.cycles = mac.cycles(s);
  op.macs = s.macs();
  op.fp16 = s.fp16;
  set_traffic(op, mac.traffic(s));
}

// binary and qbinary: rows x cols with per-operand element strides (0 broadcasts).
void plan_binary(Checker& ck, const isa::Instruction& in) {
  const bool quantized = in.opcode == Opcode::QuantizedBinary;
  const std::uint64_t es = quantized ? 1 : esize(in.get(Field::dtype));
  if (!quantized) {
    const auto t = static_cast<DType>(in.get(Field::dtype));
    const auto fn = static_cast<isa::BinaryFunction>(in.get(Field::function));
    const bool integer = t == DType::Int8 || t == DType::Int32;
    if (integer && (fn == isa::BinaryFunction::Div || fn == isa::BinaryFunction::Pow || fn == isa::BinaryFunction::Prelu))
      ck.fail("function = {} needs a float dtype (dtype = {})", ck.name_of(Field::function), isa::dtype_name(t));
  } else {
    if (in.get(Field::clamp_min) > in.get(Field::clamp_max))
      ck.fail("clamp_min {} > clamp_max {}", in.get(Field::clamp_min), in.get(Field::clamp_max));
    if (ck.u(Field::shift) > 62) ck.fail("shift = {} must be 0..62", ck.u(Field::shift));
  }
  const std::uint64_t rows = ck.at_least(Field::rows, 1), cols = ck.at_least(Field::cols, 1);
  struct Operand {
    Field addr, row_stride, col_stride;
  };
  for (const Operand& o : {Operand{Field::a_addr, Field::a_row_stride, Field::a_col_stride},
                           Operand{Field::b_addr, Field::b_row_stride, Field::b_col_stride}}) {
    const std::uint64_t rs = ck.u(o.row_stride), cs = ck.u(o.col_stride);
    const std::uint64_t span = ((rows - 1) * rs + (cols - 1) * cs + 1) * es;
    const std::uint64_t distinct = (rs ? rows : 1) * (cs ? cols : 1) * es;  // a broadcast value is read once
    ck.sram_span(o.addr, ck.u(o.addr), span, distinct, false);
    // In place only element for element: a broadcast or strided operand would be overwritten
    // before all its uses.
    const bool dense = cs == 1 && (rows == 1 || rs == cols);
    ck.no_overlap(Field::dst_addr, rows * cols * es, o.addr, span,
                  dense ? Checker::Overlap::SameAddress : Checker::Overlap::Never);
  }
  ck.sram(Field::dst_addr, rows * cols * es, true);
}

void plan_vector(Checker& ck, const isa::Instruction& in, const HardwareConfig& c, PlannedOp& op) {
  const std::initializer_list<DType> any = {DType::Int8, DType::Int32, DType::Fp16, DType::Fp32};
  const std::initializer_list<DType> floats = {DType::Fp16, DType::Fp32};
  switch (in.opcode) {
    case Opcode::BiasAdd: {
      ck.dtype_in(Field::dtype, {DType::Int32, DType::Fp32});
      const std::uint64_t n = ck.at_least(Field::count, 1), ch = ck.at_least(Field::channels, 1);
      ck.sram(Field::src_addr, n * 4, false);
      ck.sram(Field::param_addr, ch * 4, false);
      ck.sram(Field::dst_addr, n * 4, true);
      break;
    }
    case Opcode::Requantize: {
      const std::uint64_t n = ck.at_least(Field::count, 1), ch = ck.at_least(Field::channels, 1);
      if (in.get(Field::clamp_min) > in.get(Field::clamp_max))
        ck.fail("clamp_min {} > clamp_max {}", in.get(Field::clamp_min), in.get(Field::clamp_max));
      ck.sram(Field::src_addr, n * 4, false);
      ck.sram(Field::param_addr, ch * 8, false);
      ck.sram(Field::dst_addr, n, true);
      break;
    }
    case Opcode::Cast: {
      const std::uint64_t n = ck.at_least(Field::count, 1);
      ck.sram(Field::src_addr, n * esize(in.get(Field::src_dtype)), false);
      ck.sram(Field::dst_addr, n * esize(in.get(Field::dst_dtype)), true);
      break;
    }
    case Opcode::Clip: {
      ck.dtype_in(Field::dtype, any);
      const std::uint64_t n = ck.at_least(Field::count, 1);
      ck.sram(Field::src_addr, n * esize(in.get(Field::dtype)), false);
      ck.sram(Field::dst_addr, n * esize(in.get(Field::dtype)), true);
      break;
    }
    case Opcode::Add:
    case Opcode::Mul: {
      const std::uint64_t n = ck.at_least(Field::count, 1), b = n * esize(in.get(Field::dtype));
      ck.sram(Field::a_addr, b, false);
      ck.sram(Field::b_addr, b, false);
      ck.sram(Field::dst_addr, b, true);
      break;
    }
    case Opcode::QuantizedAdd: {
      const std::uint64_t n = ck.at_least(Field::count, 1);
      if (in.get(Field::clamp_min) > in.get(Field::clamp_max))
        ck.fail("clamp_min {} > clamp_max {}", in.get(Field::clamp_min), in.get(Field::clamp_max));
      ck.sram(Field::a_addr, n, false);
      ck.sram(Field::b_addr, n, false);
      ck.sram(Field::dst_addr, n, true);
      break;
    }
    case Opcode::Pool: {
      for (Field f : {Field::in_h, Field::in_w, Field::channels, Field::kernel_h, Field::kernel_w,
                      Field::stride_h, Field::stride_w})
        ck.at_least(f, 1);
      const PoolShape s = PoolShape::of(in);
      if (s.out_h == 0 || s.out_w == 0)
        ck.fail("the {}x{} window does not fit the padded {}x{} input", s.kernel_h, s.kernel_w,
                s.in_h + s.pad_top + s.pad_bottom, s.in_w + s.pad_left + s.pad_right);
      const std::uint64_t es = esize(in.get(Field::dtype));
      ck.sram(Field::src_addr, s.in_h * s.in_w * s.channels * es, false);
      ck.sram(Field::dst_addr, s.out_h * s.out_w * s.channels * es, true);
      break;
    }
    case Opcode::Lut: {
      const std::uint64_t n = ck.at_least(Field::count, 1);
      ck.sram(Field::src_addr, n, false);
      ck.sram(Field::table_addr, 256, false);
      ck.sram(Field::dst_addr, n, true);
      break;
    }
    case Opcode::Activation: {
      ck.dtype_in(Field::dtype, floats);
      const std::uint64_t n = ck.at_least(Field::count, 1), b = n * esize(in.get(Field::dtype));
      ck.sram(Field::src_addr, b, false);
      ck.sram(Field::dst_addr, b, true);
      break;
    }
    case Opcode::Softmax: {
      ck.dtype_in(Field::dtype, floats);
      const std::uint64_t b = ck.at_least(Field::rows, 1) * ck.at_least(Field::cols, 1) *
                              ck.at_least(Field::inner, 1) * esize(in.get(Field::dtype));
      ck.sram(Field::src_addr, b, false);
      ck.sram(Field::dst_addr, b, true);
      ck.no_overlap(Field::dst_addr, b, Field::src_addr, b, Checker::Overlap::SameAddress);
      break;
    }
    case Opcode::Binary:
    case Opcode::QuantizedBinary: plan_binary(ck, in); break;
    case Opcode::Reduce: {
      const auto t = static_cast<DType>(in.get(Field::dtype));
      const auto fn = static_cast<isa::ReduceFunction>(in.get(Field::function));
      if (t == DType::Int32) ck.fail("dtype = int32 is not supported here (int8, fp16, fp32)");
      if (t == DType::Int8 && fn == isa::ReduceFunction::SumSquare)
        ck.fail("function = sum_square needs a float dtype (dtype = int8)");
      const std::uint64_t es = esize(in.get(Field::dtype));
      const std::uint64_t out_es = t == DType::Int8 && fn == isa::ReduceFunction::Sum ? 4 : es;
      const std::uint64_t src_bytes = ck.shape_bytes({Field::outer, Field::length, Field::inner}, es);
      const std::uint64_t dst_bytes = ck.shape_bytes({Field::outer, Field::inner}, out_es);
      ck.sram(Field::src_addr, src_bytes, false);
      ck.sram(Field::dst_addr, dst_bytes, true);
      ck.no_overlap(Field::dst_addr, dst_bytes, Field::src_addr, src_bytes,
                    out_es == es ? Checker::Overlap::SameAddress : Checker::Overlap::Never);
      break;
    }
    case Opcode::LayerNorm: {
      ck.dtype_in(Field::dtype, floats);
      const std::uint64_t cols = ck.at_least(Field::cols, 1);
      const std::uint64_t b = ck.at_least(Field::rows, 1) * cols * esize(in.get(Field::dtype));
      const float eps = in.get_float(Field::epsilon);
      if (!(eps >= 0.0f) || std::isinf(eps)) ck.fail("epsilon = {} must be finite and >= 0", eps);
      ck.sram(Field::src_addr, b, false);
      ck.sram(Field::param_addr, 2 * cols * 4, false);
      ck.sram(Field::dst_addr, b, true);
      ck.no_overlap(Field::dst_addr, b, Field::src_addr, b, Checker::Overlap::SameAddress);
      ck.no_overlap(Field::dst_addr, b, Field::param_addr, 2 * cols * 4, Checker::Overlap::Never);
      break;
    }
    case Opcode::Transpose: {
      const std::uint64_t b = ck.shape_bytes({Field::batch, Field::rows, Field::cols}, esize(in.get(Field::dtype)));
      ck.sram(Field::src_addr, b, false);
      ck.sram(Field::dst_addr, b, true);
      ck.no_overlap(Field::dst_addr, b, Field::src_addr, b, Checker::Overlap::Never);
      break;
    }
    case Opcode::Fill:
      ck.sram(Field::dst_addr, ck.at_least(Field::count, 1) * esize(in.get(Field::dtype)), true);
      break;
    case Opcode::Quantize:
    case Opcode::Dequantize: {
      ck.dtype_in(Field::dtype, floats);
      const float scale = in.get_float(Field::scale);
      if (!(scale > 0.0f) || std::isinf(scale)) ck.fail("scale = {} must be positive and finite", scale);
      const std::uint64_t n = ck.at_least(Field::count, 1), fb = n * esize(in.get(Field::dtype));
      const bool q = in.opcode == Opcode::Quantize;
      ck.sram(Field::src_addr, q ? fb : n, false);
      ck.sram(Field::dst_addr, q ? n : fb, true);
      // Quantize narrows, so in place is safe; dequantize widens and would overwrite its input.
      ck.no_overlap(Field::dst_addr, q ? n : fb, Field::src_addr, q ? fb : n,
                    q ? Checker::Overlap::SameAddress : Checker::Overlap::Never);
      break;
    }
    default: break;
  }
  op.cycles = vector_cycles(in, c.vector);
  op.vector_elements = vector_elements(in);
  // dtype codes of the ISA table: 2 fp16, 3 fp32 (a conversion is float if either side is).
  auto is_float = [&](Field f) { return in.has(f) && in.get(f) >= 2; };
  op.vector_float = is_float(Field::dtype) || is_float(Field::src_dtype) || is_float(Field::dst_dtype);
}

}  // namespace

ProgramPlan plan_program(const std::vector<isa::Instruction>& code, std::size_t first, std::size_t end,
                         const HardwareConfig& config, const PlanOptions& options) {
  end = std::max(first, std::min(end, code.size()));
  const MacArrayCost mac(config);
  ProgramPlan plan;
  plan.code_size = static_cast<std::uint32_t>(end - first);
  plan.ops.reserve(end - first + 1);
  std::size_t dma_count = 0;
  for (std::size_t i = first; i < end; ++i)
    dma_count += code[i].opcode == Opcode::Load || code[i].opcode == Opcode::Store;
  plan.transfers.reserve(dma_count);
  Accumulators accumulators;
  std::uint64_t tokens[isa::kQueueCount][isa::kQueueCount] = {};  // pushed, not yet popped: [src][dst]
  for (std::size_t i = 0; i < end - first; ++i) {
    const isa::Instruction& in = code[first + i];
    if (static_cast<int>(in.opcode) >= static_cast<int>(Opcode::kCount))
      throw TimingError(fmt::format("instruction #{}: unknown opcode {}", i, static_cast<int>(in.opcode)));
    PlannedOp op;
    op.opcode = in.opcode;
    op.unit = in.unit();
    op.pop = in.pop & 0xf;
    op.push = in.push & 0xf;
    op.index = static_cast<std::uint32_t>(i);
    if (options.unmatched_pops_satisfied && op.unit != Unit::Control) {
      const int u = static_cast<int>(op.unit);
      for (int src = 0; src < isa::kQueueCount; ++src) {
        if (!(op.pop & (1u << src))) continue;
        if (tokens[src][u] == 0) op.pop &= static_cast<std::uint8_t>(~(1u << src));
        else --tokens[src][u];
      }
      for (int dst = 0; dst < isa::kQueueCount; ++dst)
        if (op.push & (1u << dst)) ++tokens[u][dst];
    }
    Checker ck(config, i, in, op, plan.sram_peak_bytes, options.trial);
    if (in.pop > 0xf || in.push > 0xf) ck.fail("pop/push masks have bits above the 4 units");
    ck.enums();
    switch (op.unit) {
      case Unit::Load:
      case Unit::Store:
        op.transfer = static_cast<std::uint32_t>(plan.transfers.size());
        plan.transfers.push_back(plan_dma(ck, config, in, op.index));
        {
          const DmaTransfer& t = plan.transfers.back();
          op.sram_read_bytes = t.store ? t.bytes : 0;  // bytes moved, not the strided span
          op.sram_write_bytes = t.store ? 0 : t.bytes;
          op.cycles = 0;
        }
        break;
      case Unit::Compute:
        if (in.opcode == Opcode::Drain) {
          plan_drain(ck, in, mac, accumulators, op);
          accumulators.valid = false;
          break;
        }
        plan_compute(ck, in, mac, op);
        accumulators = accumulators_of(in, op.index);
        break;
      case Unit::Vector: plan_vector(ck, in, config, op); break;
      case Unit::Control:
        if (op.pop || op.push) ck.fail("barrier and halt take no dependency tokens (pop {}, push {})", op.pop, op.push);
        break;
    }
    plan.ops.push_back(op);
    if (op.opcode == Opcode::Halt) return plan;
  }
  PlannedOp halt;  // a program without halt ends as if it had one
  halt.index = plan.code_size;
  plan.ops.push_back(halt);
  return plan;
}

}  // namespace npu::cost
