// What an element-wise layer computes on each tile, independent of tiling: its operands (DDR
// tensors, constants laid out in the output's order), temporaries and a short chain of vector
// instructions (codegen_eltwise.cpp tiles it). FP16: act / clip / binary; INT8: clip, lut, qadd,
// qbinary, or dequantize -> fp16 binary -> quantize (int8_layer_params.h says which).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/backend/codegen_context.h"
#include "compiler/quant/quant_math.h"
#include "isa/instruction_set.h"

namespace npu::compiler {

constexpr int kOutputBuffer = -1;  // the layer's output slot
constexpr int kNoBuffer = -2;

// A buffer of one tile in the scratchpad: an operand's loaded part (its row/col strides say how
// it broadcasts: 0 repeats), a temporary or the output.
struct EltwiseBuffer {
  std::uint64_t addr = 0;
  std::int64_t row_stride = 0, col_stride = 0, count = 0;
};

struct EltwiseStep {
  enum class Kind : std::uint8_t { Act, Clip, Lut, Binary, QBinary, Qadd, Dequantize, Quantize } kind = Kind::Act;
  // Buffers: operands 0..k-1, temporaries k.., kOutputBuffer.
  int a = 0, b = kNoBuffer, out = kOutputBuffer;
  isa::DType dtype = isa::DType::Fp16;
  int function = 0;
  float alpha = 0.0f, beta = 0.0f, lo = 0.0f, hi = 0.0f, scale = 1.0f;
  std::int32_t zero_point = 0;
  QBinaryParams qbinary;
  QaddParams qadd;
};

struct EltwisePlan {
  struct Operand {
    const DdrTensor* tensor = nullptr;
    std::string value;  // the computed value it reads ("" for a constant): it may be resident
  };
  struct Temp {
    int like_operand = -1;  // same shape as that operand's part, else a full tile
    std::int64_t elem = 2;
  };
  std::vector<Operand> operands;
  std::vector<Temp> temps;
  std::vector<EltwiseStep> steps;
  std::vector<std::int8_t> lut;  // int8 table, when a step uses it
};

EltwisePlan plan_elementwise(CodegenContext& ctx, const Node& node);

// The instruction of one step on a tile of rows x cols.
isa::Instruction step_instruction(const EltwiseStep& step, const EltwiseBuffer& a, const EltwiseBuffer& b,
                                  const EltwiseBuffer& out, std::int64_t rows, std::int64_t cols, std::uint64_t lut_addr);

// The act function of an ONNX unary op or fused activation name; false when there is none.
bool act_function_of(const std::string& op, isa::ActFunction& function);
// alpha / beta of an op's act function (HardSigmoid slope and offset, LeakyRelu slope, ...).
void act_parameters(const Node& node, float& alpha, float& beta);

}  // namespace npu::compiler
