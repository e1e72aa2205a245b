// Which DDR regions a layer's loads and stores touch: the program's tensors by name, and its
// constant data (weights, per-channel parameters). Lets a report say "read X 200,704 B,
// weights 73,728 B, wrote Y 401,408 B" and show when a tensor is fetched more than once.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "isa/program.h"

namespace npu::report {

struct RegionTraffic {
  std::string name;            // tensor name; constants: "weights@0x4d80", "parameters@0x3d00"
  std::string kind;            // "tensor" | "weights" | "parameters" | "unknown"
  std::uint64_t size_bytes = 0;   // the tensor's or data segment's size
  std::uint64_t bytes_read = 0;   // moved by loads
  std::uint64_t bytes_written = 0;  // moved by stores
  // Traffic the program cannot avoid: weights and parameters, and tensors the step hands in or
  // out (model inputs and outputs, values crossing to a CPU step). The rest is spill: values a
  // step writes and reads back itself because they did not stay in the scratchpad.
  bool compulsory = false;
};

// Traffic of code[first, end), one row per region in order of first touch. A constant is
// "weights" when a conv's w_addr or a gemm's b_addr in the range lies in the SRAM span a load
// of it filled, else "parameters" (bias, requantisation multipliers, LUT tables).
std::vector<RegionTraffic> region_traffic(const isa::Program& program, std::uint32_t first, std::uint32_t end);
// The same for the instructions at these indices (a layer's, which may interleave with others').
// `engines`: as attribute_layers' (an mload counts its DDR bytes on its group's first engine).
std::vector<RegionTraffic> region_traffic(const isa::Program& program, const std::vector<std::uint32_t>& instructions,
                                          const std::vector<std::uint8_t>& engines = {});

}  // namespace npu::report
