#include "sim/mac_array.h"

namespace npu::sim {

using isa::Field;

GemmShape GemmShape::of(const isa::Instruction& in) {
  GemmShape s;
  s.m = in.get(Field::m);
  s.n = in.get(Field::n);
  s.k = in.get(Field::k);
  s.fp16 = in.get(Field::mac_dtype) == static_cast<int>(isa::MacDType::Fp16);
  s.accumulate = in.get(Field::accumulate) != 0;
  s.a_addr = in.get(Field::a_addr);
  s.b_addr = in.get(Field::b_addr);
  s.c_addr = in.get(Field::c_addr);
  s.b_transposed = in.get(Field::b_transposed) != 0;
  s.a_zero_point = in.get(Field::a_zero_point);
  s.b_zero_point = in.get(Field::b_zero_point);
  return s;
}

ConvShape ConvShape::of(const isa::Instruction& in) {
  ConvShape s;
  s.in_h = in.get(Field::in_h);
  s.in_w = in.get(Field::in_w);
  s.in_c = in.get(Field::in_c);
  s.out_c = in.get(Field::out_c);
  s.kernel_h = in.get(Field::kernel_h);
  s.kernel_w = in.get(Field::kernel_w);
  s.stride_h = in.get(Field::stride_h);
  s.stride_w = in.get(Field::stride_w);
  s.dilation_h = in.get(Field::dilation_h);
  s.dilation_w = in.get(Field::dilation_w);
  s.pad_top = in.get(Field::pad_top);
  s.pad_left = in.get(Field::pad_left);
  s.pad_bottom = in.get(Field::pad_bottom);
  s.pad_right = in.get(Field::pad_right);
  s.groups = in.get(Field::groups);
  s.pad_value = in.get(Field::pad_value);
  s.fp16 = in.get(Field::mac_dtype) == static_cast<int>(isa::MacDType::Fp16);
  s.accumulate = in.get(Field::accumulate) != 0;
  s.in_addr = in.get(Field::in_addr);
  s.w_addr = in.get(Field::w_addr);
  s.out_addr = in.get(Field::out_addr);
  // out = (in + pads - dilation*(kernel-1) - 1) / stride + 1, when the window fits at all.
  auto out_dim = [](std::uint64_t in, std::uint64_t pads, std::uint64_t k, std::uint64_t d, std::uint64_t st) {
    if (k == 0 || d == 0 || st == 0) return std::uint64_t{0};
    const std::uint64_t span = d * (k - 1) + 1;
    return in + pads < span ? 0 : (in + pads - span) / st + 1;
  };
  s.out_h = out_dim(s.in_h, s.pad_top + s.pad_bottom, s.kernel_h, s.dilation_h, s.stride_h);
  s.out_w = out_dim(s.in_w, s.pad_left + s.pad_right, s.kernel_w, s.dilation_w, s.stride_w);
  return s;
}

std::uint64_t MacArray::gemm_cycles(const GemmShape& s) const { return cost_.gemm_cycles(s.m, s.n, s.k, s.fp16); }

std::uint64_t MacArray::conv_cycles(const ConvShape& s) const {
  return cost_.conv_cycles(s.groups, s.gemm_m(), s.gemm_n(), s.gemm_k(), s.fp16);
}

SramTraffic MacArray::gemm_traffic(const GemmShape& s) const {
  return cost_.gemm_traffic(s.m, s.n, s.k, s.fp16, s.accumulate);
}

SramTraffic MacArray::conv_traffic(const ConvShape& s) const {
  return cost_.conv_traffic(s.groups, s.gemm_m(), s.gemm_n(), s.gemm_k(), s.fp16, s.accumulate);
}

void MacArray::execute(const isa::Instruction& inst, std::uint8_t* sram) const {
  if (inst.opcode == isa::Opcode::Gemm) {
    const GemmShape s = GemmShape::of(inst);
    s.fp16 ? gemm_fp16(s, sram) : gemm_int8(s, sram);
  } else {
    const ConvShape s = ConvShape::of(inst);
    s.fp16 ? conv_fp16(s, sram) : conv_int8(s, sram);
  }
}

}  // namespace npu::sim
