// What running some layers of an int8 program in fp16 costs in NPU cycles, for the
// mixed-precision search (mixed_precision.h). The exact figure is the cost model's estimate of
// the generated program (layout, converters, codegen, costmodel/program_estimate.h: what compile()
// would emit); the search needs thousands of what-ifs, so it uses an additive model built from
// four such programs: every layer int8, every fp16-capable layer fp16, and every other layer
// (in graph order) fp16 and the rest int8, both ways round. A layer costs, in its precision,
// the cycles by which it moves its step's end (its end past the latest end of the layers
// before it: the charges add up to the program's cycles, stalls and serialisation included); a
// value whose producer and reader differ in precision adds its Quantize or Dequantize
// converter, measured the same way in the alternating programs (which put a converter on
// nearly every value). An fp16 layer between int8 neighbours thus pays for its two converters,
// and a run of fp16 layers pays for them once. It underestimates an isolated promotion by up
// to half (tests/compiler/precision_cost_test.cpp); the search's final choice is estimated exactly.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/core/compile_options.h"
#include "compiler/core/graph.h"
#include "compiler/quant/int8_layer_params.h"
#include "compiler/quant/mixed_precision.h"

namespace npu::compiler {

class PrecisionCostModel : public PromotionCost {
 public:
  // `graph`: quantised (assign_quantization done), before layout; `candidates`: the layers the
  // search may promote (fp16-capable NPU layers).
  PrecisionCostModel(const Graph& graph, const HardwareConfig& config, const CompileOptions& options,
                     const std::vector<std::string>& candidates);

  // The additive model's NPU cycles with `fp16` layers in fp16.
  double cycles(const std::set<std::string>& fp16) const override;
  // The cost model's estimate of the generated program's NPU cycles (one code generation).
  double program_cycles(const std::set<std::string>& fp16) const override;

 private:
  struct Measured {
    std::map<std::string, double> layer_cycles;  // by node name (layers and data movement)
    std::map<std::string, double> quantize_cycles, dequantize_cycles;  // converters, by the value they convert
    double total_cycles = 0;
  };
  Measured measure(const std::set<std::string>& fp16) const;

  const Graph& graph_;
  const HardwareConfig& config_;
  CompileOptions options_;
  Int8ParamsCache int8_params_;
  std::map<std::string, double> int8_cycles_, fp16_cycles_, quantize_cycles_, dequantize_cycles_;
  double quantize_per_byte_ = 0, dequantize_per_byte_ = 0;  // for values no program converted
};

}  // namespace npu::compiler
