// What every layer's code generator needs: where tensors live in DDR, how to add constant
// data, the scratchpad size and the precision. One per program.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/graph.h"
#include "compiler/int8_layer_params.h"
#include "hwconfig/hardware_config.h"
#include "isa/instruction.h"
#include "isa/program.h"

namespace npu::compiler {

class Int8ParamsCache;

// A value as the NPU stores it: NHWC (2-D [M, K] is H = M, W = 1, C = K), int8 or fp16.
struct DdrTensor {
  std::uint64_t addr = 0;
  std::int64_t h = 1, w = 1, c = 1;
  std::int64_t bytes() const { return h * w * c * elem; }
  std::int64_t elem = 1;  // bytes per element
  QuantParams quant;
};

struct LayerCode {
  std::vector<isa::Instruction> code;
  std::uint64_t planned_ddr_bytes = 0;
  std::uint64_t macs = 0;
};

class CodegenContext {
 public:
  CodegenContext(const Graph& graph, const HardwareConfig& config, Precision precision,
                 const Int8ParamsCache* int8_params = nullptr);

  const Graph& graph;
  const HardwareConfig& config;
  Precision precision;
  std::uint64_t sram_bytes = 0;   // usable scratchpad (capacity, capped by 24-bit addresses)
  std::uint64_t alignment = 64;

  bool int8() const { return precision == Precision::Int8; }
  std::int64_t elem_bytes() const { return int8() ? 1 : 2; }
  std::uint64_t align(std::uint64_t v) const { return (v + alignment - 1) / alignment * alignment; }

  // DDR placement of an activation (allocated on first use; reshapes alias their input).
  const DdrTensor& tensor(const std::string& name);
  void alias(const std::string& name, const std::string& same_as);
  // Constant bytes placed in DDR (a program data segment); returns the address.
  std::uint64_t add_data(std::vector<std::uint8_t> bytes);

  // INT8 parameters of a FusedConv/FusedGemm: from the lowered model's cache when there is one.
  std::shared_ptr<const Int8ConvParams> conv_params(const Node& node) const;

  isa::Program& program() { return program_; }
  std::map<std::string, DdrTensor>& placed() { return tensors_; }

 private:
  std::uint64_t allocate(std::uint64_t bytes);
  const Int8ParamsCache* int8_params_ = nullptr;
  std::map<std::string, DdrTensor> tensors_;
  isa::Program program_;
  std::uint64_t next_ddr_ = 0x1000;  // 0 is left unused so a zero address is always a bug
};

// Physical NHWC extents of an NCHW (or 2-D) logical shape.
void nhwc_extents(const std::vector<std::int64_t>& shape, std::int64_t& h, std::int64_t& w, std::int64_t& c);

// Per layer kind; each throws CompileError naming the layer when it cannot be tiled.
LayerCode generate_conv(CodegenContext& ctx, const Node& node);
LayerCode generate_elementwise(CodegenContext& ctx, const Node& node);
LayerCode generate_pool(CodegenContext& ctx, const Node& node);
LayerCode generate_concat(CodegenContext& ctx, const Node& node);
LayerCode generate_resize(CodegenContext& ctx, const Node& node);
LayerCode generate_softmax(CodegenContext& ctx, const Node& node);

}  // namespace npu::compiler
