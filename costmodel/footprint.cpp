#include "costmodel/footprint.h"

#include <algorithm>

#include "costmodel/mac_shapes.h"
#include "costmodel/vector_cost.h"

namespace npu::cost {

using isa::Field;
using isa::Opcode;

namespace {

std::uint64_t dtype_size(std::int64_t dtype) { return isa::dtype_bytes(static_cast<isa::DType>(dtype)); }

}  // namespace

Footprint footprint(const isa::Instruction& in) {
  Footprint f;
  auto at = [&](Field field, std::uint64_t bytes) {
    const std::uint64_t a = in.get(field);
    return ByteRange{a, a + bytes};
  };
  auto read = [&](Field field, std::uint64_t bytes) { f.sram_read.push_back(at(field, bytes)); };
  auto write = [&](Field field, std::uint64_t bytes) { f.sram_write.push_back(at(field, bytes)); };
  switch (in.opcode) {
    case Opcode::Load:
    case Opcode::Store: {
      const std::uint64_t len = in.get(Field::len0), c1 = in.get(Field::count1), c2 = in.get(Field::count2),
                          c3 = in.get(Field::count3);
      auto span = [&](Field s1, Field s2, Field s3) {
        return (c3 - 1) * in.get(s3) + (c2 - 1) * in.get(s2) + (c1 - 1) * in.get(s1) + len;
      };
      const ByteRange sram = at(Field::sram_addr, span(Field::sram_stride1, Field::sram_stride2, Field::sram_stride3));
      const ByteRange ddr = at(Field::ddr_addr, span(Field::ddr_stride1, Field::ddr_stride2, Field::ddr_stride3));
      if (in.opcode == Opcode::Load) {
        f.sram_write.push_back(sram);
        f.ddr_read.push_back(ddr);
      } else {
        f.sram_read.push_back(sram);
        f.ddr_write.push_back(ddr);
      }
      break;
    }
    case Opcode::Gemm: {
      const GemmShape s = GemmShape::of(in);
      const std::uint64_t es = s.fp16 ? 2 : 1;
      read(Field::a_addr, s.m * s.k * es);
      read(Field::b_addr, s.b_storage.value_bytes(s.k, s.n, es));
      if (s.b_storage.quantized()) read(Field::b_scale_addr, s.b_storage.scale_bytes(s.k, s.n));
      if (s.accumulate) read(Field::c_addr, s.m * s.n * 4);
      write(Field::c_addr, s.m * s.n * 4);
      break;
    }
    case Opcode::Conv: {
      const ConvShape s = ConvShape::of(in);
      const std::uint64_t es = s.fp16 ? 2 : 1;
      read(Field::in_addr, s.in_span() * es);
      read(Field::w_addr, s.kernel_h * s.kernel_w * s.in_c_per_group() * s.out_c * es);
      if (s.accumulate) read(Field::out_addr, s.out_h * s.out_w * s.out_c * 4);
      write(Field::out_addr, s.out_h * s.out_w * s.out_c * 4);
      break;
    }
    case Opcode::BiasAdd: {
      const std::uint64_t n = in.get(Field::count), es = dtype_size(in.get(Field::dtype));
      read(Field::src_addr, n * es);
      read(Field::param_addr, in.get(Field::channels) * 4);
      write(Field::dst_addr, n * es);
      break;
    }
    case Opcode::Drain: {
      const std::uint64_t n = in.get(Field::count), ch = in.get(Field::channels);
      read(Field::src_addr, n * 4);
      read(Field::param_addr, ch * 4);
      read(Field::requant_addr, ch * 8);
      write(Field::dst_addr, n);
      break;
    }
    case Opcode::Requantize: {
      const std::uint64_t n = in.get(Field::count);
      read(Field::src_addr, n * 4);
      read(Field::param_addr, in.get(Field::channels) * 8);
      write(Field::dst_addr, n);
      break;
    }
    case Opcode::Cast: {
      const std::uint64_t n = in.get(Field::count);
      read(Field::src_addr, n * dtype_size(in.get(Field::src_dtype)));
      write(Field::dst_addr, n * dtype_size(in.get(Field::dst_dtype)));
      break;
    }
    case Opcode::Clip:
    case Opcode::Activation: {
      const std::uint64_t b = in.get(Field::count) * dtype_size(in.get(Field::dtype));
      read(Field::src_addr, b);
      write(Field::dst_addr, b);
      break;
    }
    case Opcode::Add:
    case Opcode::Mul: {
      const std::uint64_t b = in.get(Field::count) * dtype_size(in.get(Field::dtype));
      read(Field::a_addr, b);
      read(Field::b_addr, b);
      write(Field::dst_addr, b);
      break;
    }
    case Opcode::QuantizedAdd: {
      const std::uint64_t n = in.get(Field::count);
      read(Field::a_addr, n);
      read(Field::b_addr, n);
      write(Field::dst_addr, n);
      break;
    }
    case Opcode::Pool: {
      const PoolShape s = PoolShape::of(in);
      const std::uint64_t es = dtype_size(in.get(Field::dtype));
      read(Field::src_addr, s.in_h * s.in_w * s.channels * es);
      write(Field::dst_addr, s.out_h * s.out_w * s.channels * es);
      break;
    }
    case Opcode::Lut: {
      const std::uint64_t n = in.get(Field::count);
      read(Field::src_addr, n);
      read(Field::table_addr, 256);
      write(Field::dst_addr, n);
      break;
    }
    case Opcode::Softmax: {
      const std::uint64_t b =
          in.get(Field::rows) * in.get(Field::cols) * in.get(Field::inner) * dtype_size(in.get(Field::dtype));
      read(Field::src_addr, b);
      write(Field::dst_addr, b);
      break;
    }
    case Opcode::Reduce: {
      const auto t = static_cast<isa::DType>(in.get(Field::dtype));
      const std::uint64_t es = dtype_size(in.get(Field::dtype));
      const bool widens = t == isa::DType::Int8 && static_cast<isa::ReduceFunction>(in.get(Field::function)) == isa::ReduceFunction::Sum;
      const std::uint64_t outer = in.get(Field::outer), inner = in.get(Field::inner);
      read(Field::src_addr, outer * in.get(Field::length) * inner * es);
      write(Field::dst_addr, outer * inner * (widens ? 4 : es));
      break;
    }
    case Opcode::LayerNorm: {
      const std::uint64_t cols = in.get(Field::cols), b = in.get(Field::rows) * cols * dtype_size(in.get(Field::dtype));
      read(Field::src_addr, b);
      read(Field::param_addr, 2 * cols * 4);
      write(Field::dst_addr, b);
      break;
    }
    case Opcode::Transpose: {
      const std::uint64_t b = in.get(Field::batch) * in.get(Field::rows) * in.get(Field::cols) * dtype_size(in.get(Field::dtype));
      read(Field::src_addr, b);
      write(Field::dst_addr, b);
      break;
    }
    case Opcode::Fill: write(Field::dst_addr, in.get(Field::count) * dtype_size(in.get(Field::dtype))); break;
    case Opcode::Quantize:
    case Opcode::Dequantize: {
      const std::uint64_t n = in.get(Field::count), fb = n * dtype_size(in.get(Field::dtype));
      const bool q = in.opcode == Opcode::Quantize;
      read(Field::src_addr, q ? fb : n);
      write(Field::dst_addr, q ? n : fb);
      break;
    }
    case Opcode::Binary:
    case Opcode::QuantizedBinary: {
      const std::uint64_t es = in.opcode == Opcode::QuantizedBinary ? 1 : dtype_size(in.get(Field::dtype));
      const std::uint64_t rows = in.get(Field::rows), cols = in.get(Field::cols);
      // A strided or broadcast operand counts as its whole span.
      auto operand = [&](Field addr, Field row_stride, Field col_stride) {
        const std::uint64_t rs = in.get(row_stride), cs = in.get(col_stride);
        read(addr, (rows ? (rows - 1) * rs : 0) * es + (cols ? (cols - 1) * cs : 0) * es + es);
      };
      operand(Field::a_addr, Field::a_row_stride, Field::a_col_stride);
      operand(Field::b_addr, Field::b_row_stride, Field::b_col_stride);
      write(Field::dst_addr, rows * cols * es);
      break;
    }
    case Opcode::Barrier:
    case Opcode::Halt: break;
    default: f.known = false; break;
  }
  return f;
}

std::optional<FootprintConflict> first_conflict(const Footprint& earlier, const Footprint& later) {
  struct Pair {
    const std::vector<ByteRange>& a;
    const std::vector<ByteRange>& b;
    const char* what;
  };
  const Pair pairs[] = {
      {earlier.sram_write, later.sram_read, "read after write of sram"},
      {earlier.sram_read, later.sram_write, "write after read of sram"},
      {earlier.sram_write, later.sram_write, "write after write of sram"},
      {earlier.ddr_write, later.ddr_read, "read after write of ddr"},
      {earlier.ddr_read, later.ddr_write, "write after read of ddr"},
      {earlier.ddr_write, later.ddr_write, "write after write of ddr"},
  };
  for (const auto& p : pairs)
    for (const auto& x : p.a)
      for (const auto& y : p.b)
        if (x.begin < y.end && y.begin < x.end)
          return FootprintConflict{{std::max(x.begin, y.begin), std::min(x.end, y.end)}, p.what};
  return std::nullopt;
}

std::uint64_t transfer_bytes(const isa::Instruction& in) {
  if (in.opcode != isa::Opcode::Load && in.opcode != isa::Opcode::Store) return 0;
  return static_cast<std::uint64_t>(in.get(isa::Field::len0)) * static_cast<std::uint64_t>(in.get(isa::Field::count1)) *
         static_cast<std::uint64_t>(in.get(isa::Field::count2)) * static_cast<std::uint64_t>(in.get(isa::Field::count3));
}

}  // namespace npu::cost
