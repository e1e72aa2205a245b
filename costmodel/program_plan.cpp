#include "costmodel/program_plan.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "costmodel/dma_cost.h"
#include "costmodel/mac_cost.h"
#include "costmodel/mac_shapes.h"
#include "costmodel/shared_sram.h"
#include "costmodel/timing_error.h"
#include "costmodel/vector_cost.h"
#include "isa/operands.h"
#include "isa/program.h"

namespace npu::cost {

using isa::DType;
using isa::Field;
using isa::Opcode;
using isa::Unit;

std::string instruction_label(std::uint64_t index, Opcode op) {
  return fmt::format("instruction #{} ({})", index, isa::opcode_info(op).mnemonic);
}

namespace {

// Checks one instruction's fields and operand ranges; accumulates SRAM traffic and peak.
class Checker {
 public:
  Checker(const HardwareConfig& c, std::uint64_t index, const isa::Instruction& in, PlannedOp& op,
          std::uint64_t& peak, bool trial)
      : c_(c), index_(index), in_(in), op_(op), peak_(peak), trial_(trial) {}
  // PlanOptions::trial: operands outside the memories, or overlapping, are timed, not refused.
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

  // The instruction's operands as the ISA table defines them (isa/operands.h): each inside
  // its memory, a scratchpad one at an aligned address, and what the instruction writes
  // overlapping what it reads only as the table allows. Counts the scratchpad operands' bytes
  // moved as traffic, their spans for the peak and as ranges for the banks. Returns them.
  isa::Operands check_operands() {
    const isa::Operands operands = isa::operands(in_);
    for (const isa::Operand& o : operands) {
      const std::string_view name = isa::field_info(o.address()).name;
      if (o.overflow)
        fail("{} spans {} bytes, beyond 2^64 ({})", name, o.rule->bytes,
             isa::rule_field_values(in_, o.rule->bytes));
      if (o.memory() == isa::Memory::Ddr) {
        if (!trial_ && in_shared_sram(c_, o.addr)) {
          if (o.end() > isa::kSharedSramBase + c_.engines.shared_sram_bytes)
            fail("{} {:#x} + {} bytes exceeds the shared SRAM ({} bytes from {:#x}, engines.shared_sram_kib)", name,
                 o.addr, o.bytes, c_.engines.shared_sram_bytes, isa::kSharedSramBase);
          continue;
        }
        if (!trial_ && has_shared_sram(c_) && o.end() > isa::kSharedSramBase)
          fail("{} {:#x} + {} bytes runs into the shared SRAM window at {:#x}: a span lies in DDR or in the window",
               name, o.addr, o.bytes, isa::kSharedSramBase);
        if (!trial_ && o.end() > c_.ddr.capacity_bytes)
          fail("{} {:#x} + {} bytes exceeds DDR capacity {}", name, o.addr, o.bytes, c_.ddr.capacity_bytes);
        continue;
      }
      const auto align = static_cast<std::uint64_t>(c_.sram.alignment_bytes);
      if (!trial_ && o.addr % align != 0)
        fail("{} {:#x} is not a multiple of sram.alignment_bytes ({})", name, o.addr, align);
      if (!trial_ && o.end() > c_.sram.capacity_bytes)
        fail("{} {:#x} + {} bytes exceeds scratchpad capacity {}", name, o.addr, o.bytes, c_.sram.capacity_bytes);
      peak_ = std::max(peak_, o.end());
      (o.access() == isa::Access::Write ? op_.sram_write_bytes : op_.sram_read_bytes) += o.moved;
      add_range(o.addr, o.bytes);
    }
    for (const isa::Operand& written : operands) {
      if (trial_ || written.access() != isa::Access::Write) continue;
      for (const isa::Operand& read : operands)
        if (read.access() == isa::Access::Read && read.memory() == written.memory()) no_overlap(written, read);
    }
    return operands;
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

  // What the instruction writes may overlap a read operand only as the read operand's rule allows.
  void no_overlap(const isa::Operand& written, const isa::Operand& read) const {
    if (read.overlap == isa::Overlap::Unchecked) return;
    const bool overlapping = written.addr < read.end() && read.addr < written.end();
    const bool in_place = read.overlap == isa::Overlap::InPlace && written.addr == read.addr;
    if (overlapping && !in_place)
      fail("{} [{:#x}, {:#x}) overlaps {} [{:#x}, {:#x}){}", isa::field_info(written.address()).name, written.addr,
           written.end(), isa::field_info(read.address()).name, read.addr, read.end(),
           read.overlap == isa::Overlap::InPlace ? " (only the same address is allowed: in place)" : "");
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
  // The runs per residue, kept as a sparse list (residue, runs): a dimension with stride s
  // adds i * s for i < count, whose residues repeat with a period of at most `burst`, so the
  // list stays at most `burst` long and the work is (entries x period) per dimension.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs{{t.ddr_addr % burst, 1}}, step;
  std::vector<std::uint64_t> next(burst, 0);
  auto spread = [&](std::uint64_t count, std::uint64_t stride) {
    const std::uint64_t s = stride % burst;
    if (count == 1) return;
    if (s == 0) {
      for (auto& run : runs) run.second *= count;
      return;
    }
    std::uint64_t period = 1;
    while (period < burst && (period * s) % burst != 0) ++period;
    step.clear();
    for (std::uint64_t i = 0; i < std::min(count, period); ++i)
      step.emplace_back((i * s) % burst, count / period + (i < count % period ? 1 : 0));
    for (const auto& [r, n] : runs)
      for (const auto& [q, m] : step) next[(r + q) % burst] += n * m;
    runs.clear();
    for (std::uint64_t r = 0; r < burst; ++r)
      if (next[r]) {
        runs.emplace_back(r, next[r]);
        next[r] = 0;
      }
  };
  spread(t.count1, t.ddr_stride1);
  spread(t.count2, t.ddr_stride2);
  spread(t.count3, t.ddr_stride3);
  std::uint64_t bursts = 0;
  for (const auto& [r, n] : runs) bursts += n * run_bursts(r, t.len0, burst);
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
  const bool four_d = in.has(Field::count3);  // mload has three dimensions
  t.count3 = four_d ? ck.at_least(Field::count3, 1) : 1;
  t.ddr_stride1 = ck.u(Field::ddr_stride1);
  t.ddr_stride2 = ck.u(Field::ddr_stride2);
  t.ddr_stride3 = four_d ? ck.u(Field::ddr_stride3) : 0;
  t.sram_stride1 = ck.u(Field::sram_stride1);
  t.sram_stride2 = ck.u(Field::sram_stride2);
  t.sram_stride3 = four_d ? ck.u(Field::sram_stride3) : 0;
  t.bytes = t.len0 * t.count1 * t.count2 * t.count3;
  t.push = in.push;
  // More bytes than the destination holds can only overwrite themselves (runs at stride 0);
  // refused, as is a transfer no simulation could finish (the fields allow 7e13 bytes).
  t.shared = in_shared_sram(c, t.ddr_addr);
  const std::uint64_t room = !t.store ? c.sram.capacity_bytes : t.shared ? c.engines.shared_sram_bytes : c.ddr.capacity_bytes;
  if (t.bytes > room && !ck.trial())
    ck.fail("moves {} bytes (len0 {} x count1 {} x count2 {} x count3 {}), more than the {} it writes holds ({} bytes)",
            t.bytes, t.len0, t.count1, t.count2, t.count3, !t.store ? "scratchpad" : t.shared ? "shared SRAM" : "DDR", room);
  ck.check_operands();  // both spans inside their memories; the bytes moved are the traffic

  if (!t.shared) t.bus_bytes = bus_bytes(t, static_cast<std::uint64_t>(c.ddr.burst_bytes));
  // Any run whose DDR address is below the DMA's alignment goes through the bounce buffer.
  if (needs_bounce(t.ddr_addr, t.count1, t.ddr_stride1, t.count2, t.ddr_stride2, t.count3, t.ddr_stride3, c.dma))
    t.bounce_cycles = bounce_cycles(t.bytes, c.dma);
  return t;
}

// A gather: count runs of len0 bytes, run i timed at table row i % rows (see DmaTransfer).
DmaTransfer plan_gather(Checker& ck, const HardwareConfig& c, const isa::Instruction& in, std::uint32_t index) {
  DmaTransfer t;
  t.index = index;
  t.channel = static_cast<std::uint32_t>(ck.u(Field::channel) % static_cast<std::uint64_t>(c.dma.channels));
  t.ddr_addr = ck.u(Field::ddr_addr);
  t.sram_addr = ck.u(Field::sram_addr);
  t.index_addr = ck.u(Field::index_addr);
  t.len0 = ck.at_least(Field::len0, 1);
  t.count1 = ck.at_least(Field::count, 1);
  t.gather_rows = ck.at_least(Field::rows, 1);
  t.ddr_stride1 = ck.u(Field::ddr_stride1);
  t.sram_stride1 = ck.u(Field::sram_stride1);
  if (t.ddr_stride1 < t.len0) ck.fail("ddr_stride1 = {} is less than len0 = {} (table rows would overlap)", t.ddr_stride1, t.len0);
  if (t.count1 > 1 && t.sram_stride1 < t.len0)
    ck.fail("sram_stride1 = {} is less than len0 = {} (gathered rows would overlap)", t.sram_stride1, t.len0);
  t.bytes = t.len0 * t.count1;
  t.push = in.push;
  ck.check_operands();
  t.shared = in_shared_sram(c, t.ddr_addr);
  const auto burst = static_cast<std::uint64_t>(c.ddr.burst_bytes);
  for (std::uint64_t i = 0; i < t.count1 && !t.shared; ++i)
    t.bus_bytes += run_bursts(t.ddr_addr + (i % t.gather_rows) * t.ddr_stride1, t.len0, burst) * burst;
  if (needs_bounce(t.ddr_addr, std::min(t.count1, t.gather_rows), t.ddr_stride1, 1, 0, 1, 0, c.dma))
    t.bounce_cycles = bounce_cycles(t.bytes, c.dma);
  return t;
}

// The checks counted each operand once; the array streams some of them several times.
void set_traffic(PlannedOp& op, const SramTraffic& t) {
  op.sram_read_bytes = t.read;
  op.sram_write_bytes = t.written;
}

// The int32 accumulators the last int8 gemm/conv on the compute unit wrote (its written
// operand): what a drain may read (it runs in the array's output stage as they leave the array).
struct Accumulators {
  bool valid = false;
  std::uint64_t addr = 0, bytes = 0;
  std::uint32_t index = 0;
};

Accumulators accumulators_of(const isa::Instruction& in, const isa::Operands& operands, std::uint32_t index) {
  Accumulators a;
  a.valid = in.get(Field::mac_dtype) == static_cast<std::int64_t>(isa::MacDType::Int8);
  a.index = index;
  for (const isa::Operand& o : operands)
    if (o.access() == isa::Access::Write) {
      a.addr = o.addr;
      a.bytes = o.bytes;
    }
  return a;
}

void plan_drain(Checker& ck, const isa::Instruction& in, const MacArrayCost& mac, const Accumulators& acc, PlannedOp& op) {
  const std::uint64_t n = ck.at_least(Field::count, 1);
  ck.at_least(Field::channels, 1);
  if (in.get(Field::clamp_min) > in.get(Field::clamp_max))
    ck.fail("clamp_min {} > clamp_max {}", in.get(Field::clamp_min), in.get(Field::clamp_max));
  if (!acc.valid && !ck.trial())
    ck.fail("no int8 conv or gemm before it on the compute unit: a drain takes the accumulators of the one just before it");
  if (!ck.trial() && (ck.u(Field::src_addr) != acc.addr || n * 4 != acc.bytes))
    ck.fail("src_addr {:#x} + {} int32 is not the accumulator block of instruction #{} ({:#x} + {} bytes), the compute "
            "instruction just before it", ck.u(Field::src_addr), n, acc.index, acc.addr, acc.bytes);
  ck.check_operands();
  op.cycles = mac.drain_cycles();
  op.vector_elements = n;
}

// Returns the instruction's operands (a drain after it reads its accumulators).
isa::Operands plan_compute(Checker& ck, const isa::Instruction& in, const MacArrayCost& mac, PlannedOp& op) {
  if (in.opcode == Opcode::Gemm) {
    const GemmShape s = GemmShape::of(in);
    if (s.swap && !mac.flexible()) ck.fail("swap = 1 needs mac_array.mapping: flexible (this config's array is fixed)");
    if (s.fp16 && (s.a_zero_point != 0 || s.b_zero_point != 0))
      ck.fail("a_zero_point = {}, b_zero_point = {}: zero points need mac_dtype int8", s.a_zero_point, s.b_zero_point);
    ck.at_least(Field::m, 1);
    ck.at_least(Field::n, 1);
    ck.at_least(Field::k, 1);
    const WeightStorage& w = s.b_storage;
    if (w.quantized() && !s.fp16 && w.format != isa::WeightFormat::Int4)
      ck.fail("b_format {} needs mac_dtype fp16 (weight-only quantisation; int8 A takes int8 B as b_format same)",
              isa::enum_name(w.format));
    if (w.quantized() && !s.fp16 && w.group != 0)
      ck.fail("b_group = {} with mac_dtype int8: int4 B has no scales there (the drain requantises each column)", w.group);
    const isa::Operands operands = ck.check_operands();
    op.cycles = mac.cycles(s);
    op.macs = s.m * s.n * s.k;
    op.fp16 = s.fp16;
    set_traffic(op, mac.traffic(s));
    return operands;
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
  const isa::Operands operands = ck.check_operands();
  op.cycles = mac.cycles(s);
  op.macs = s.macs();
  op.fp16 = s.fp16;
  set_traffic(op, mac.traffic(s));
  return operands;
}

// What the vector instructions' fields must hold beyond their width; the operands (sizes,
// placement, overlaps) follow from the ISA table.
void check_vector_fields(Checker& ck, const isa::Instruction& in) {
  const std::initializer_list<DType> any = {DType::Int8, DType::Int32, DType::Fp16, DType::Fp32};
  const std::initializer_list<DType> floats = {DType::Fp16, DType::Fp32};
  auto clamps = [&] {
    if (in.get(Field::clamp_min) > in.get(Field::clamp_max))
      ck.fail("clamp_min {} > clamp_max {}", in.get(Field::clamp_min), in.get(Field::clamp_max));
  };
  switch (in.opcode) {
    case Opcode::BiasAdd:
      ck.dtype_in(Field::dtype, {DType::Int32, DType::Fp32});
      ck.at_least(Field::count, 1);
      ck.at_least(Field::channels, 1);
      break;
    case Opcode::Requantize:
      ck.at_least(Field::count, 1);
      ck.at_least(Field::channels, 1);
      clamps();
      break;
    case Opcode::Clip:
      ck.dtype_in(Field::dtype, any);
      ck.at_least(Field::count, 1);
      break;
    case Opcode::QuantizedAdd:
      ck.at_least(Field::count, 1);
      clamps();
      break;
    case Opcode::Pool: {
      for (Field f : {Field::in_h, Field::in_w, Field::channels, Field::kernel_h, Field::kernel_w,
                      Field::stride_h, Field::stride_w})
        ck.at_least(f, 1);
      const PoolShape s = PoolShape::of(in);
      if (s.out_h == 0 || s.out_w == 0)
        ck.fail("the {}x{} window does not fit the padded {}x{} input", s.kernel_h, s.kernel_w,
                s.in_h + s.pad_top + s.pad_bottom, s.in_w + s.pad_left + s.pad_right);
      break;
    }
    case Opcode::Activation:
      ck.dtype_in(Field::dtype, floats);
      ck.at_least(Field::count, 1);
      break;
    case Opcode::Softmax:
      ck.dtype_in(Field::dtype, floats);
      for (Field f : {Field::rows, Field::cols, Field::inner}) ck.at_least(f, 1);
      break;
    case Opcode::Binary:
    case Opcode::QuantizedBinary:
      if (in.opcode == Opcode::Binary) {
        const auto t = static_cast<DType>(in.get(Field::dtype));
        const auto fn = static_cast<isa::BinaryFunction>(in.get(Field::function));
        const bool integer = t == DType::Int8 || t == DType::Int32;
        if (integer && (fn == isa::BinaryFunction::Div || fn == isa::BinaryFunction::Pow || fn == isa::BinaryFunction::Prelu))
          ck.fail("function = {} needs a float dtype (dtype = {})", ck.name_of(Field::function), isa::dtype_name(t));
      } else {
        clamps();
        if (ck.u(Field::shift) > 62) ck.fail("shift = {} must be 0..62", ck.u(Field::shift));
      }
      ck.at_least(Field::rows, 1);
      ck.at_least(Field::cols, 1);
      break;
    case Opcode::Reduce: {
      const auto t = static_cast<DType>(in.get(Field::dtype));
      const auto fn = static_cast<isa::ReduceFunction>(in.get(Field::function));
      if (t == DType::Int32) ck.fail("dtype = int32 is not supported here (int8, fp16, fp32)");
      if (t == DType::Int8 && fn == isa::ReduceFunction::SumSquare)
        ck.fail("function = sum_square needs a float dtype (dtype = int8)");
      for (Field f : {Field::outer, Field::length, Field::inner}) ck.at_least(f, 1);
      break;
    }
    case Opcode::LayerNorm: {
      ck.dtype_in(Field::dtype, floats);
      ck.at_least(Field::cols, 1);
      ck.at_least(Field::rows, 1);
      const float eps = in.get_float(Field::epsilon);
      if (!(eps >= 0.0f) || std::isinf(eps)) ck.fail("epsilon = {} must be finite and >= 0", eps);
      break;
    }
    case Opcode::Transpose:
      for (Field f : {Field::batch, Field::rows, Field::cols}) ck.at_least(f, 1);
      break;
    case Opcode::Copy:
      ck.at_least(Field::rows, 1);
      ck.at_least(Field::row_bytes, 1);
      if (in.get(Field::rows) > 1)
        for (Field f : {Field::dst_stride, Field::src_stride})
          if (in.get(f) < in.get(Field::row_bytes))
            ck.fail("{} = {} is below row_bytes = {}: the rows would overlap", isa::field_info(f).name, in.get(f),
                    in.get(Field::row_bytes));
      break;
    case Opcode::Quantize:
    case Opcode::Dequantize: {
      ck.dtype_in(Field::dtype, floats);
      const float scale = in.get_float(Field::scale);
      if (!(scale > 0.0f) || std::isinf(scale)) ck.fail("scale = {} must be positive and finite", scale);
      ck.at_least(Field::count, 1);
      break;
    }
    default:  // cast, add, mul, lut, fill
      ck.at_least(Field::count, 1);
      break;
  }
}

void plan_vector(Checker& ck, const isa::Instruction& in, const HardwareConfig& c, PlannedOp& op) {
  check_vector_fields(ck, in);
  ck.check_operands();
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
    dma_count += code[i].unit() == Unit::Load || code[i].unit() == Unit::Store;
  plan.transfers.reserve(dma_count);
  Accumulators accumulators;
  std::uint64_t tokens[isa::kQueueCount][isa::kQueueCount] = {};  // pushed, not yet popped: [src][dst]
  for (std::size_t i = 0; i < end - first; ++i) {
    const isa::Instruction& in = code[first + i];
    if (static_cast<int>(in.opcode) >= static_cast<int>(Opcode::kCount))
      throw TimingError(fmt::format("instruction #{}: unknown opcode {}", options.index_base + i, static_cast<int>(in.opcode)));
    PlannedOp op;
    op.opcode = in.opcode;
    op.unit = in.unit();
    op.pop = in.pop & 0xf;
    op.push = in.push & 0xf;
    op.index = options.index_base + static_cast<std::uint32_t>(i);
    op.engine = options.engine;
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
        plan.transfers.push_back(in.opcode == Opcode::Gather ? plan_gather(ck, config, in, op.index)
                                                             : plan_dma(ck, config, in, op.index));
        plan.transfers.back().engine = options.engine;
        op.cycles = 0;
        break;
      case Unit::Compute:
        if (in.opcode == Opcode::Drain) {
          plan_drain(ck, in, mac, accumulators, op);
          accumulators.valid = false;
          break;
        }
        accumulators = accumulators_of(in, plan_compute(ck, in, mac, op), op.index);
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
  halt.index = options.index_base + plan.code_size;
  halt.engine = options.engine;
  plan.ops.push_back(halt);
  return plan;
}

std::vector<ProgramPlan> plan_engines(const isa::Program& program, const HardwareConfig& config) {
  if (!program.engine_starts.empty()) isa::check_engine_starts(program.engine_starts, program.code.size(), "program");
  const std::size_t engines = program.engine_count();
  if (engines > static_cast<std::size_t>(config.engines.count))
    throw TimingError(fmt::format("the program has {} engine streams, the config {} engine(s) (engines.count)", engines,
                                  config.engines.count));
  std::vector<ProgramPlan> plans;
  for (std::size_t e = 0; e < engines; ++e) {
    const auto [first, end] = program.engine_range(e);
    PlanOptions options;
    options.index_base = static_cast<std::uint32_t>(first);
    options.engine = static_cast<std::uint8_t>(e);
    plans.push_back(plan_program(program.code, first, end, config, options));
    const ProgramPlan& plan = plans.back();
    if (engines > 1 && (plan.ops.back().index != end - 1 || plan.ops.size() != end - first))
      throw TimingError(fmt::format("engine {}'s stream [{}, {}) must end with its halt, and only there", e, first, end));
  }
  // Every sync's and mload's group, resolved; each member must hold as many of the group's
  // syncs (and mloads) as the others, and the k-th mloads of a group must read the same DDR bytes.
  std::map<std::pair<int, int>, std::vector<std::size_t>> syncs;  // group -> syncs per engine
  std::map<std::pair<int, int>, std::vector<std::vector<const DmaTransfer*>>> mloads;  // group -> per engine
  for (std::size_t e = 0; e < engines; ++e)
    for (PlannedOp& op : plans[e].ops) {
      if (op.opcode != Opcode::Sync && op.opcode != Opcode::MulticastLoad) continue;
      const auto& in = program.code[op.index];
      int first = static_cast<int>(in.get(Field::group_first)), count = static_cast<int>(in.get(Field::group_count));
      if (count == 0) {
        first = 0;
        count = static_cast<int>(engines);
      }
      if (first + count > static_cast<int>(engines) || static_cast<int>(e) < first || static_cast<int>(e) >= first + count)
        throw TimingError(fmt::format("{} (engine {}): group_first {} group_count {} must lie within the program's {} "
                                      "engine(s) and include engine {}",
                                      instruction_label(op.index, op.opcode), e, first, count, engines, e));
      if (op.opcode == Opcode::MulticastLoad) {
        if (count < 2) continue;  // a load
        DmaTransfer& t = plans[e].transfers[op.transfer];
        auto& per_engine = mloads[{first, count}];
        per_engine.resize(engines);
        t.multicast_first = static_cast<std::uint8_t>(first);
        t.multicast_count = static_cast<std::uint8_t>(count);
        t.multicast_round = static_cast<std::uint32_t>(per_engine[e].size());
        per_engine[e].push_back(&t);
        continue;
      }
      op.sync_first = static_cast<std::uint8_t>(first);
      op.sync_count = static_cast<std::uint8_t>(count);
      auto& per_engine = syncs[{first, count}];
      per_engine.resize(engines, 0);
      ++per_engine[e];
    }
  for (const auto& [group, per_engine] : syncs)
    for (int e = group.first; e < group.first + group.second; ++e)
      if (per_engine[static_cast<std::size_t>(e)] != per_engine[static_cast<std::size_t>(group.first)])
        throw TimingError(fmt::format("engine {} has {} sync(s) of engines {}-{}, engine {} {}: every member must meet "
                                      "the others at each",
                                      e, per_engine[static_cast<std::size_t>(e)], group.first,
                                      group.first + group.second - 1, group.first,
                                      per_engine[static_cast<std::size_t>(group.first)]));
  auto same_ddr_side = [](const DmaTransfer& a, const DmaTransfer& b) {
    return a.ddr_addr == b.ddr_addr && a.len0 == b.len0 && a.count1 == b.count1 && a.count2 == b.count2 &&
           a.ddr_stride1 == b.ddr_stride1 && a.ddr_stride2 == b.ddr_stride2;
  };
  for (const auto& [group, per_engine] : mloads) {
    const auto& lead = per_engine[static_cast<std::size_t>(group.first)];
    for (int e = group.first + 1; e < group.first + group.second; ++e) {
      const auto& mine = per_engine[static_cast<std::size_t>(e)];
      if (mine.size() != lead.size())
        throw TimingError(fmt::format("engine {} has {} mload(s) of engines {}-{}, engine {} {}: every member must meet "
                                      "the others at each",
                                      e, mine.size(), group.first, group.first + group.second - 1, group.first, lead.size()));
      for (std::size_t k = 0; k < mine.size(); ++k)
        if (!same_ddr_side(*mine[k], *lead[k]))
          throw TimingError(fmt::format("{} (engine {}) is mload {} of engines {}-{} and reads other DDR bytes than "
                                        "{} (engine {}): ddr_addr {:#x} len0 {} count1 {} count2 {} against {:#x} {} {} {}",
                                        instruction_label(mine[k]->index, Opcode::MulticastLoad), e, k, group.first,
                                        group.first + group.second - 1,
                                        instruction_label(lead[k]->index, Opcode::MulticastLoad), group.first,
                                        mine[k]->ddr_addr, mine[k]->len0, mine[k]->count1, mine[k]->count2,
                                        lead[k]->ddr_addr, lead[k]->len0, lead[k]->count1, lead[k]->count2));
    }
  }
  return plans;
}

}  // namespace npu::cost
