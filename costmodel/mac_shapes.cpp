#include "costmodel/mac_shapes.h"

namespace npu::cost {

using isa::Field;

std::uint64_t window_out_dim(std::uint64_t in, std::uint64_t pads, std::uint64_t kernel, std::uint64_t dilation,
                             std::uint64_t stride) {
  return isa::window_out(in, pads, kernel, dilation, stride);
}

GemmShape GemmShape::of(const isa::Instruction& in) {
  GemmShape s;
  s.m = in.get(Field::m);
  s.n = in.get(Field::n);
  s.k = in.get(Field::k);
  s.fp16 = in.get(Field::mac_dtype) == static_cast<int>(isa::MacDType::Fp16);
  s.accumulate = in.get(Field::accumulate) != 0;
  s.swap = in.get(Field::swap) != 0;
  s.a_addr = in.get(Field::a_addr);
  s.b_addr = in.get(Field::b_addr);
  s.c_addr = in.get(Field::c_addr);
  s.b_transposed = in.get(Field::b_transposed) != 0;
  s.a_zero_point = in.get(Field::a_zero_point);
  s.b_zero_point = in.get(Field::b_zero_point);
  s.b_storage.format = static_cast<isa::WeightFormat>(in.get(Field::b_format));
  s.b_storage.group = in.get(Field::b_group);
  s.b_storage.scaled = s.fp16;
  s.b_scale_addr = in.get(Field::b_scale_addr);
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
  s.mapping.swap = in.get(Field::swap) != 0;
  s.mapping.depthwise = in.get(Field::depthwise) != 0;
  s.in_addr = in.get(Field::in_addr);
  s.w_addr = in.get(Field::w_addr);
  s.out_addr = in.get(Field::out_addr);
  s.in_stride = in.get(Field::in_stride);
  s.out_h = window_out_dim(s.in_h, s.pad_top + s.pad_bottom, s.kernel_h, s.dilation_h, s.stride_h);
  s.out_w = window_out_dim(s.in_w, s.pad_left + s.pad_right, s.kernel_w, s.dilation_w, s.stride_w);
  return s;
}

}  // namespace npu::cost
