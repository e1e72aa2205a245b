// Automatic mixed precision: which NPU layers of an int8 program run in fp16 so that the model
// reaches an accuracy target on the calibration data. Layers are ranked by sensitivity (the
// model outputs' agreement with FP32 when that layer alone is quantised, worst first) and
// promoted in that order; the fewest promotions that reach the target are found by bisection
// over the ranking's prefix length (what promoting one at a time finds when accuracy grows
// with each promotion), each candidate measured with the quantisation simulator over all
// samples.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "compiler/quant_options.h"
#include "compiler/quant_sensitivity.h"

namespace npu::compiler {

struct MixedPrecisionChoice {
  std::vector<std::string> forced;    // --keep-fp16, fused names
  std::vector<std::string> promoted;  // by the search, most sensitive first
  ModelAgreement all_int8;            // before any promotion (forced layers in fp16 included)
  ModelAgreement reached;
  bool target_met = true;
  std::size_t candidates = 0;         // layers the search could promote
};

// Throws CompileError when the target is out of reach even with every fp16-capable layer
// promoted: "... best cosine 0.9871 with N layers in fp16 (a, b, ...)".
MixedPrecisionChoice choose_fp16_layers(const Graph& graph, const std::vector<TensorMap>& samples,
                                        const AccuracyTarget& target, const std::vector<std::string>& forced);

// --keep-fp16 names (a fused layer's name or any original ONNX node fused into it) to the NPU
// layers' names; throws CompileError naming an unknown name, or a layer the NPU cannot run in fp16.
std::vector<std::string> resolve_fp16_names(const Graph& graph, const std::vector<std::string>& names);

// Whether `a` meets `target` (cosine or SQNR).
bool meets(const ModelAgreement& a, const AccuracyTarget& target);
std::string describe(const ModelAgreement& a, const AccuracyTarget& target);  // "cosine 0.9912"

}  // namespace npu::compiler
