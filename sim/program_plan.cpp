#include "sim/program_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "costmodel/dma_cost.h"
#include "costmodel/vector_cost.h"
#include "sim/simulator.h"
#include "sim/vector_unit.h"

namespace npu::sim {

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
          std::uint64_t& peak)
      : c_(c), index_(index), in_(in), op_(op), peak_(peak) {}

  template <typename... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) const {
    throw SimError(instruction_label(index_, in_.opcode) + ": " + fmt::format(f, std::forward<Args>(args)...));
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

  // A scratchpad operand: base aligned, whole range inside the capacity.
  void sram(Field f, std::uint64_t bytes, bool write) { sram_at(f, u(f), bytes, write); }
  void sram_at(Field f, std::uint64_t addr, std::uint64_t bytes, bool write) {
    const auto align = static_cast<std::uint64_t>(c_.sram.alignment_bytes);
    if (addr % align != 0)
      fail("{} {:#x} is not a multiple of sram.alignment_bytes ({})", isa::field_info(f).name, addr, align);
    if (addr + bytes > c_.sram.capacity_bytes)
      fail("{} {:#x} + {} bytes exceeds scratchpad capacity {}", isa::field_info(f).name, addr, bytes,
           c_.sram.capacity_bytes);
    peak_ = std::max(peak_, addr + bytes);
    (write ? op_.sram_write_bytes : op_.sram_read_bytes) += bytes;
  }

 private:
  const HardwareConfig& c_;
  std::uint64_t index_;
  const isa::Instruction& in_;
  PlannedOp& op_;
  std::uint64_t& peak_;
};

// Whole bursts over all runs, ceil((addr % burst + len0) / burst) each: the same count every
// DDR model adds to bus_bytes(), known per transfer here so the energy and bandwidth counters
// can attribute it. When every stride is a multiple of the burst, all runs look alike.
std::uint64_t bus_bytes(const DmaTransfer& t, std::uint64_t burst) {
  auto run_bursts = [&](std::uint64_t addr) { return cost::run_bursts(addr, t.len0, burst); };
  const std::uint64_t runs = t.count1 * t.count2 * t.count3;
  if (t.ddr_stride1 % burst == 0 && t.ddr_stride2 % burst == 0 && t.ddr_stride3 % burst == 0)
    return runs * run_bursts(t.ddr_addr) * burst;
  std::uint64_t bursts = 0;
  for (std::uint64_t i3 = 0; i3 < t.count3; ++i3)
    for (std::uint64_t i2 = 0; i2 < t.count2; ++i2)
      for (std::uint64_t i1 = 0; i1 < t.count1; ++i1)
        bursts += run_bursts(t.ddr_addr + i3 * t.ddr_stride3 + i2 * t.ddr_stride2 + i1 * t.ddr_stride1);
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

  // Highest byte touched on each side (strides are unsigned, so the last run is the farthest).
  const std::uint64_t sram_span = (t.count3 - 1) * t.sram_stride3 + (t.count2 - 1) * t.sram_stride2 +
                                  (t.count1 - 1) * t.sram_stride1 + t.len0;
  const std::uint64_t ddr_span = (t.count3 - 1) * t.ddr_stride3 + (t.count2 - 1) * t.ddr_stride2 +
                                 (t.count1 - 1) * t.ddr_stride1 + t.len0;
  ck.sram_at(Field::sram_addr, t.sram_addr, sram_span, false);
  if (t.ddr_addr + ddr_span > c.ddr.capacity_bytes)
    ck.fail("ddr_addr {:#x} + {} bytes exceeds DDR capacity {}", t.ddr_addr, ddr_span, c.ddr.capacity_bytes);

  t.bus_bytes = bus_bytes(t, static_cast<std::uint64_t>(c.ddr.burst_bytes));
  t.sram_cycles = cost::sram_port_cycles(t.bytes, c.sram);
  // Any run whose DDR address is below the DMA's alignment goes through the bounce buffer.
  if (cost::needs_bounce(t.ddr_addr, t.count1, t.ddr_stride1, t.count2, t.ddr_stride2, t.count3, t.ddr_stride3, c.dma))
    t.bounce_cycles = cost::bounce_cycles(t.bytes, c.dma);
  return t;
}

// The checks above counted each operand once; the array streams some of them several times.
void set_traffic(PlannedOp& op, const SramTraffic& t) {
  op.sram_read_bytes = t.read;
  op.sram_write_bytes = t.written;
}

void plan_compute(Checker& ck, const isa::Instruction& in, const MacArray& mac, PlannedOp& op) {
  if (ck.u(Field::mac_dtype) > 1) ck.fail("mac_dtype = {} must be 0 (int8) or 1 (fp16)", ck.u(Field::mac_dtype));
  if (in.opcode == Opcode::Gemm) {
    const GemmShape s = GemmShape::of(in);
    if (s.swap && !mac.flexible()) ck.fail("swap = 1 needs mac_array.mapping: flexible (this config's array is fixed)");
    ck.at_least(Field::m, 1);
    ck.at_least(Field::n, 1);
    ck.at_least(Field::k, 1);
    const std::uint64_t es = s.fp16 ? 2 : 1;
    ck.sram(Field::a_addr, s.m * s.k * es, false);
    ck.sram(Field::b_addr, s.k * s.n * es, false);
    if (s.accumulate) ck.sram(Field::c_addr, s.m * s.n * 4, false);
    ck.sram(Field::c_addr, s.m * s.n * 4, true);
    op.cycles = mac.gemm_cycles(s);
    op.macs = s.m * s.n * s.k;
    op.fp16 = s.fp16;
    set_traffic(op, mac.gemm_traffic(s));
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
  const std::uint64_t es = s.fp16 ? 2 : 1;
  ck.sram(Field::in_addr, s.in_h * s.in_w * s.in_c * es, false);
  ck.sram(Field::w_addr, s.kernel_h * s.kernel_w * s.in_c_per_group() * s.out_c * es, false);
  if (s.accumulate) ck.sram(Field::out_addr, s.out_h * s.out_w * s.out_c * 4, false);
  ck.sram(Field::out_addr, s.out_h * s.out_w * s.out_c * 4, true);
  op.cycles = mac.conv_cycles(s);
  op.macs = s.macs();
  op.fp16 = s.fp16;
  set_traffic(op, mac.conv_traffic(s));
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
      const cost::PoolShape s = cost::PoolShape::of(in);
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
      if (ck.u(Field::function) > 6) ck.fail("function = {} is unknown (0..6)", ck.u(Field::function));
      const std::uint64_t n = ck.at_least(Field::count, 1), b = n * esize(in.get(Field::dtype));
      ck.sram(Field::src_addr, b, false);
      ck.sram(Field::dst_addr, b, true);
      break;
    }
    case Opcode::Softmax: {
      ck.dtype_in(Field::dtype, floats);
      const std::uint64_t b = ck.at_least(Field::rows, 1) * ck.at_least(Field::cols, 1) * esize(in.get(Field::dtype));
      ck.sram(Field::src_addr, b, false);
      ck.sram(Field::dst_addr, b, true);
      break;
    }
    default: break;
  }
  op.cycles = cost::vector_cycles(in, c.vector);
}

}  // namespace

ProgramPlan plan_program(const isa::Program& program, const HardwareConfig& config, const MacArray& mac) {
  ProgramPlan plan;
  plan.ops.reserve(program.code.size() + 1);
  std::size_t dma_count = 0;
  for (const auto& in : program.code)
    dma_count += in.opcode == Opcode::Load || in.opcode == Opcode::Store;
  plan.transfers.reserve(dma_count);
  for (std::size_t i = 0; i < program.code.size(); ++i) {
    const isa::Instruction& in = program.code[i];
    if (static_cast<int>(in.opcode) >= static_cast<int>(Opcode::kCount))
      throw SimError(fmt::format("instruction #{}: unknown opcode {}", i, static_cast<int>(in.opcode)));
    PlannedOp op;
    op.opcode = in.opcode;
    op.unit = in.unit();
    op.pop = in.pop & 0xf;
    op.push = in.push & 0xf;
    op.index = static_cast<std::uint32_t>(i);
    Checker ck(config, i, in, op, plan.sram_peak_bytes);
    if (in.pop > 0xf || in.push > 0xf) ck.fail("pop/push masks have bits above the 4 units");
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
      case Unit::Compute: plan_compute(ck, in, mac, op); break;
      case Unit::Vector: plan_vector(ck, in, config, op); break;
      case Unit::Control:
        if (op.pop || op.push) ck.fail("barrier and halt take no dependency tokens (pop {}, push {})", op.pop, op.push);
        break;
    }
    plan.ops.push_back(op);
    if (op.opcode == Opcode::Halt) return plan;
  }
  PlannedOp halt;  // a program without halt ends as if it had one
  halt.index = static_cast<std::uint32_t>(program.code.size());
  plan.ops.push_back(halt);
  return plan;
}

}  // namespace npu::sim
