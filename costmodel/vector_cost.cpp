#include "costmodel/vector_cost.h"

#include "costmodel/dataflow.h"
#include "costmodel/mac_shapes.h"

namespace npu::cost {

using isa::Field;
using isa::Opcode;

PoolShape PoolShape::of(const isa::Instruction& in) {
  PoolShape s;
  s.in_h = in.get(Field::in_h);
  s.in_w = in.get(Field::in_w);
  s.channels = in.get(Field::channels);
  s.kernel_h = in.get(Field::kernel_h);
  s.kernel_w = in.get(Field::kernel_w);
  s.stride_h = in.get(Field::stride_h);
  s.stride_w = in.get(Field::stride_w);
  s.pad_top = in.get(Field::pad_top);
  s.pad_left = in.get(Field::pad_left);
  s.pad_bottom = in.get(Field::pad_bottom);
  s.pad_right = in.get(Field::pad_right);
  s.out_h = window_out_dim(s.in_h, s.pad_top + s.pad_bottom, s.kernel_h, 1, s.stride_h);
  s.out_w = window_out_dim(s.in_w, s.pad_left + s.pad_right, s.kernel_w, 1, s.stride_w);
  return s;
}

std::uint64_t vector_elements(const isa::Instruction& in) {
  switch (in.opcode) {
    case Opcode::Pool: {
      const PoolShape s = PoolShape::of(in);
      return s.out_h * s.out_w * s.channels * s.kernel_h * s.kernel_w;
    }
    case Opcode::Softmax: return in.get(Field::rows) * in.get(Field::cols);
    default: return in.get(Field::count);
  }
}

std::uint64_t vector_cycles(Opcode op, std::uint64_t count, const VectorConfig& c) {
  const std::uint64_t lanes = static_cast<std::uint64_t>(c.lanes);
  const std::uint64_t latency = static_cast<std::uint64_t>(c.latency_cycles);
  const std::uint64_t passes = op == Opcode::Activation ? 4 : 1;
  return latency + passes * ceil_div(count, lanes);
}

std::uint64_t vector_cycles(const isa::Instruction& in, const VectorConfig& c) {
  switch (in.opcode) {
    case Opcode::Softmax:
      return static_cast<std::uint64_t>(c.latency_cycles) +
             3 * in.get(Field::rows) * ceil_div(in.get(Field::cols), static_cast<std::uint64_t>(c.lanes));
    case Opcode::Pool: return vector_cycles(in.opcode, vector_elements(in), c);
    default: return vector_cycles(in.opcode, in.get(Field::count), c);
  }
}

}  // namespace npu::cost
