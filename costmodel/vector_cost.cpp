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
    case Opcode::Softmax: return in.get(Field::rows) * in.get(Field::cols) * in.get(Field::inner);
    case Opcode::Binary:
    case Opcode::QuantizedBinary:
    case Opcode::LayerNorm: return in.get(Field::rows) * in.get(Field::cols);
    case Opcode::Reduce: return in.get(Field::outer) * in.get(Field::length) * in.get(Field::inner);
    case Opcode::Transpose: return in.get(Field::batch) * in.get(Field::rows) * in.get(Field::cols);
    case Opcode::Copy: return in.get(Field::rows) * in.get(Field::row_bytes);
    default: return in.get(Field::count);
  }
}

std::uint64_t reduction_groups(std::uint64_t outer, std::uint64_t length, std::uint64_t inner, std::uint64_t lanes) {
  return outer * (inner == 1 ? ceil_div(length, lanes) : length * ceil_div(inner, lanes));
}

std::uint64_t vector_cycles(Opcode op, std::uint64_t count, const VectorConfig& c) {
  // The instruction's own formula, with its default function (epilogue estimates).
  isa::Instruction in = isa::make_instruction(op);
  in.set(Field::count, static_cast<std::int64_t>(count));
  return vector_cycles(in, c);
}

std::uint64_t vector_cycles(const isa::Instruction& in, const VectorConfig& c) {
  const std::uint64_t lanes = static_cast<std::uint64_t>(c.lanes);
  const std::uint64_t latency = static_cast<std::uint64_t>(c.latency_cycles);
  // A function's cost in passes is a column of its enum in instruction_set.def.
  const auto passes = [&in] {
    return static_cast<std::uint64_t>(isa::enum_passes(isa::field_enum(in.opcode, Field::function), in.get(Field::function)));
  };
  switch (in.opcode) {
    case Opcode::Activation: return latency + passes() * ceil_div(in.get(Field::count), lanes);
    case Opcode::Softmax:
      return latency + 3 * reduction_groups(in.get(Field::rows), in.get(Field::cols), in.get(Field::inner), lanes);
    case Opcode::Binary:
    case Opcode::QuantizedBinary: return latency + passes() * in.get(Field::rows) * ceil_div(in.get(Field::cols), lanes);
    case Opcode::Reduce:
      return latency + passes() * reduction_groups(in.get(Field::outer), in.get(Field::length), in.get(Field::inner), lanes);
    case Opcode::LayerNorm: return latency + 3 * in.get(Field::rows) * ceil_div(in.get(Field::cols), lanes);
    case Opcode::Transpose:
      return latency + in.get(Field::batch) * ceil_div(in.get(Field::rows), lanes) * ceil_div(in.get(Field::cols), lanes) * lanes;
    case Opcode::Copy: return latency + in.get(Field::rows) * ceil_div(in.get(Field::row_bytes), lanes);
    default: return latency + ceil_div(vector_elements(in), lanes);
  }
}

}  // namespace npu::cost
