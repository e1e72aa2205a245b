// Automatic mixed precision: which NPU layers of an int8 program run in fp16 so that the model
// reaches an accuracy target on the calibration data. Each layer's sensitivity is the noise the
// model outputs get when that layer alone is quantised. With a cost model (precision_cost.h)
// layers are ranked by that noise per added cycle, each layer's cost taken given the layers
// ranked before it (converters between an fp16 layer and its int8 neighbours included);
// without one, by sensitivity alone. The shortest prefix of the ranking that reaches the target
// is found by bisection (what promoting one at a time finds when accuracy grows with each
// promotion), each candidate measured with the quantisation simulator over all samples; then
// a backward pass drops the promotions the target does not need, the costliest first. With four
// or more calibration samples a quarter is held out: the search aims at the target with a margin
// (a quarter of the allowed error, or 1 dB), and the held-out samples must meet the target.
#pragma once
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compiler/core/quant_options.h"
#include "compiler/quant/quant_sensitivity.h"

namespace npu::compiler {

struct MixedPrecisionChoice {
  std::vector<std::string> forced;    // --keep-fp16, fused names
  std::vector<std::string> promoted;  // by the search, in its ranking's order
  ModelAgreement all_int8;            // before any promotion (forced layers in fp16 included)
  ModelAgreement reached;
  bool target_met = true;
  std::size_t candidates = 0;         // layers the search could promote
  std::size_t evaluations = 0;        // sets of promotions measured on all samples
  // With a cost model: its estimate of the program's NPU cycles with only the forced layers in
  // fp16, and with the chosen ones too (0 without a cost model).
  double estimated_int8_cycles = 0, estimated_cycles = 0;
  std::vector<std::string> ranking;   // the order the search promotes candidates in
  // Samples held out of the search (0: fewer than four), the agreement on them with the layers
  // chosen, and how many layers were promoted beyond the search's choice to meet the target there.
  std::size_t held_out_samples = 0;
  ModelAgreement held_out;
  std::size_t added_for_held_out = 0;
};

// What promoting layers to fp16 costs in NPU cycles: the back end's PrecisionCostModel
// (backend/precision_cost.h), reached through this interface since quantisation runs before the
// back end and does not depend on it.
class PromotionCost {
 public:
  virtual ~PromotionCost() = default;
  // The additive model's NPU cycles with `fp16` layers in fp16.
  virtual double cycles(const std::set<std::string>& fp16) const = 0;
  // The estimate of the generated program's NPU cycles (one code generation).
  virtual double program_cycles(const std::set<std::string>& fp16) const = 0;
};

// Builds the cost model for the candidates (fp16-capable layers); may return null.
using CostModelFactory = std::function<std::unique_ptr<PromotionCost>(const std::vector<std::string>& candidates)>;

// Throws CompileError when the target is out of reach even with every fp16-capable layer
// promoted: "... best cosine 0.9871 with N layers in fp16 (a, b, ...)".
MixedPrecisionChoice choose_fp16_layers(const Graph& graph, const std::vector<TensorMap>& samples,
                                        const AccuracyTarget& target, const std::vector<std::string>& forced,
                                        const Fp16Rejection& fp16_rejection, const CostModelFactory& make_cost_model = {},
                                        const NodeRunner& host = {});

// --keep-fp16 names (a fused layer's name or any original ONNX node fused into it) to the NPU
// layers' names; throws CompileError naming an unknown name, or a layer the NPU cannot run in fp16.
std::vector<std::string> resolve_fp16_names(const Graph& graph, const std::vector<std::string>& names,
                                            const Fp16Rejection& fp16_rejection);

// Whether `a` meets `target` (cosine or SQNR).
bool meets(const ModelAgreement& a, const AccuracyTarget& target);
std::string describe(const ModelAgreement& a, const AccuracyTarget& target);  // "cosine 0.9912"

}  // namespace npu::compiler
