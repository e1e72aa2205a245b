// What one instruction can express, from the ISA table's field widths: the limits the op
// families' rejections check (op_registry.h) and the phrase that names a value beyond one.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

#include "compiler/reference/node_geometry.h"
#include "isa/field_limits.h"

namespace npu::compiler::isa_limits {

using isa::Field;
using isa::Opcode;
constexpr std::int64_t kConvKernelMax = isa::field_max(Opcode::Conv, Field::kernel_h);
constexpr int kConvKernelBits = isa::field_width(Opcode::Conv, Field::kernel_h);
constexpr std::int64_t kConvStrideMax = isa::field_max(Opcode::Conv, Field::stride_h);
constexpr int kConvStrideBits = isa::field_width(Opcode::Conv, Field::stride_h);
constexpr std::int64_t kConvDilationMax = isa::field_max(Opcode::Conv, Field::dilation_h);
constexpr int kConvDilationBits = isa::field_width(Opcode::Conv, Field::dilation_h);
constexpr std::int64_t kPadMax = isa::field_max(Opcode::Conv, Field::pad_top);
constexpr int kPadBits = isa::field_width(Opcode::Conv, Field::pad_top);
constexpr std::int64_t kTileDimMax = isa::field_max(Opcode::Conv, Field::in_w);
constexpr int kTileDimBits = isa::field_width(Opcode::Conv, Field::in_w);
constexpr std::int64_t kChannelsMax = isa::field_max(Opcode::Conv, Field::in_c);
constexpr int kChannelsBits = isa::field_width(Opcode::Conv, Field::in_c);
constexpr std::int64_t kGemmKMax = isa::field_max(Opcode::Gemm, Field::k);
constexpr int kGemmKBits = isa::field_width(Opcode::Gemm, Field::k);
constexpr std::int64_t kPoolKernelMax = isa::field_max(Opcode::Pool, Field::kernel_h);
constexpr int kPoolKernelBits = isa::field_width(Opcode::Pool, Field::kernel_h);
constexpr std::int64_t kPoolStrideMax = isa::field_max(Opcode::Pool, Field::stride_h);
constexpr int kPoolStrideBits = isa::field_width(Opcode::Pool, Field::stride_h);
constexpr std::int64_t kPoolPadMax = isa::field_max(Opcode::Pool, Field::pad_bottom);
constexpr int kPoolPadBits = isa::field_width(Opcode::Pool, Field::pad_bottom);

// "kernel 17 exceeds the ISA's 4-bit field (max 15)"
inline std::string too_wide(const std::string& what, std::int64_t value, std::int64_t max, int bits) {
  return what + " " + std::to_string(value) + " exceeds the ISA's " + std::to_string(bits) +
         "-bit field (max " + std::to_string(max) + ")";
}

// A conv or pool window against its instruction's kernel, stride, dilation and pad fields.
inline std::string check_window(const WindowGeometry& w, std::int64_t kmax, int kbits, std::int64_t smax, int sbits,
                                bool dilation_allowed) {
  if (w.kernel_h > kmax || w.kernel_w > kmax) return too_wide("kernel", std::max(w.kernel_h, w.kernel_w), kmax, kbits);
  if (w.stride_h > smax || w.stride_w > smax) return too_wide("stride", std::max(w.stride_h, w.stride_w), smax, sbits);
  if (!dilation_allowed && (w.dilation_h != 1 || w.dilation_w != 1)) return "dilations other than 1 have no pool instruction field";
  if (w.dilation_h > kConvDilationMax || w.dilation_w > kConvDilationMax)
    return too_wide("dilation", std::max(w.dilation_h, w.dilation_w), kConvDilationMax, kConvDilationBits);
  std::int64_t pad = std::max({w.pad_top, w.pad_left, w.pad_bottom, w.pad_right});
  if (pad > kPadMax) return too_wide("pad", pad, kPadMax, kPadBits);
  if (std::min({w.pad_top, w.pad_left, w.pad_bottom, w.pad_right}) < 0) return "negative pads";
  return "";
}

// A CompileError's message without its "layer 'x' (Op): " prefix, as a rejection phrase.
inline std::string rejection_phrase(const std::string& what) {
  auto colon = what.find("): ");
  return colon == std::string::npos ? what : what.substr(colon + 3);
}

}  // namespace npu::compiler::isa_limits
