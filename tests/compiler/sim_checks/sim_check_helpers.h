// What the compiler-on-simulator checks share: program tensors by name, preset paths, and host
// NCHW floats as the NHWC fp16 bytes an FP16 program reads.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/float_evaluator.h"
#include "isa/fp16.h"
#include "isa/program.h"

namespace npu::compiler::sim_checks {

inline const isa::TensorEntry& entry(const isa::Program& p, const std::string& name) {
  for (const auto& t : p.tensors)
    if (t.name == name) return t;
  throw std::runtime_error("no tensor " + name);
}

inline std::string config_path(const std::string& name) {
  return std::string(NPUSIM_SOURCE_DIR) + "/configs/" + name;
}

inline std::vector<std::uint8_t> nhwc_fp16(const FloatTensor& x) {
  const std::int64_t C = x.shape[1], H = x.shape[2], W = x.shape[3];
  std::vector<std::uint8_t> bytes;
  bytes.reserve(static_cast<std::size_t>(C * H * W * 2));
  for (std::int64_t h = 0; h < H; ++h)
    for (std::int64_t w = 0; w < W; ++w)
      for (std::int64_t c = 0; c < C; ++c) {
        const std::uint16_t v = isa::float_to_half(x.data[(c * H + h) * W + w]);
        bytes.push_back(static_cast<std::uint8_t>(v & 0xff));
        bytes.push_back(static_cast<std::uint8_t>(v >> 8));
      }
  return bytes;
}

}  // namespace npu::compiler::sim_checks
