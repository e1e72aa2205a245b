// Where the model's inputs sit in DDR. The compiler places every tensor 64-byte aligned; a
// real runtime often hands the NPU a buffer the pre-processing step allocated, wherever that
// is. This moves the inputs to such a buffer so the cost of a misaligned one shows: DMA reads
// below dma.min_alignment_bytes go through the bounce buffer (sim/dma_engine.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "isa/program.h"

namespace npu::runtime {

// Each named input (a tensor of the program) moves to a buffer of its own that starts
// `misalignment_bytes` past a 4 KiB boundary above everything the program places in DDR,
// and every instruction whose DDR address falls inside the input is retargeted by the same
// distance. Returns one note per input moved ("input x: placed at 0x..., 16 bytes past a
// 4 KiB boundary"). misalignment_bytes 0 leaves the program as compiled. Throws one line
// naming the input when it is not in the tensor table, the misalignment is not below 4096,
// or the new address does not fit DDR or the instructions' ddr_addr field.
std::vector<std::string> misalign_inputs(isa::Program& program, const std::vector<std::string>& inputs,
                                         std::uint64_t misalignment_bytes, std::uint64_t ddr_capacity_bytes);

}  // namespace npu::runtime
