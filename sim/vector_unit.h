// The vector unit: element-wise and reduction instructions, semantics exactly as in
// isa/instruction_set.def. Integer results are bit-exact:
//   saturation clamps to the type's range; int32 bias and add/mul saturate too;
//   float -> int conversions round half to even, saturate, and map NaN to 0;
//   requant/qadd/qbinary shift arithmetically right after adding 1 << (shift-1) (half up);
//   int8/int32 average pooling and int8 mean round half away from zero.
// Float ops compute in fp32 and round to fp16 with round-to-nearest-even.
#pragma once
#include <cstdint>

#include "hwconfig/hardware_config.h"
#include "isa/instruction.h"

namespace npu::sim {

// Functional execution on the scratchpad bytes (addresses already validated). Throws
// SimError (without the instruction prefix) for data the ISA forbids, e.g. a requant shift
// outside 0..62.
void execute_vector(const isa::Instruction& inst, std::uint8_t* sram);

// Implementations split by kind: vector_pool.cpp; vector_float.cpp (act, softmax);
// vector_binary.cpp (binary, qbinary); vector_reduce.cpp (reduce, layernorm);
// vector_layout.cpp (transpose, fill, quantize, dequantize).
void execute_pool(const isa::Instruction& inst, std::uint8_t* sram);
void execute_activation(const isa::Instruction& inst, std::uint8_t* sram);
void execute_softmax(const isa::Instruction& inst, std::uint8_t* sram);
void execute_binary(const isa::Instruction& inst, std::uint8_t* sram);
void execute_quantized_binary(const isa::Instruction& inst, std::uint8_t* sram);
void execute_reduce(const isa::Instruction& inst, std::uint8_t* sram);
void execute_layernorm(const isa::Instruction& inst, std::uint8_t* sram);
void execute_transpose(const isa::Instruction& inst, std::uint8_t* sram);
void execute_copy(const isa::Instruction& inst, std::uint8_t* sram);
void execute_fill(const isa::Instruction& inst, std::uint8_t* sram);
void execute_quantize(const isa::Instruction& inst, std::uint8_t* sram);
void execute_dequantize(const isa::Instruction& inst, std::uint8_t* sram);
// The array's output stage (drain, on the compute unit): bias then requant in one pass, the
// vector unit's arithmetic.
void execute_drain(const isa::Instruction& inst, std::uint8_t* sram);

}  // namespace npu::sim
