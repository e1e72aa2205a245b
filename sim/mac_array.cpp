#include "sim/mac_array.h"

#include "sim/vector_unit.h"

namespace npu::sim {

void MacArray::execute(const isa::Instruction& inst, std::uint8_t* sram) const {
  if (inst.opcode == isa::Opcode::Drain) {
    execute_drain(inst, sram);
  } else if (inst.opcode == isa::Opcode::Gemm) {
    const GemmShape s = GemmShape::of(inst);
    s.fp16 ? gemm_fp16(s, sram) : gemm_int8(s, sram);
  } else {
    const ConvShape s = ConvShape::of(inst);
    s.fp16 ? conv_fp16(s, sram) : conv_int8(s, sram);
  }
}

}  // namespace npu::sim
