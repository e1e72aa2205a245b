// IEEE-754 binary16 conversions (round to nearest, ties to even; NaN stays NaN).
#pragma once
#include <cstdint>

namespace npu::isa {

std::uint16_t float_to_half(float value);
float half_to_float(std::uint16_t bits);

}  // namespace npu::isa
