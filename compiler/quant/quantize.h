// INT8 post-training quantisation: calibration of activation ranges with the FP32 reference
// interpreter, per-tensor activation parameters, per-output-channel symmetric weights.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/core/graph.h"
#include "compiler/reference/float_evaluator.h"

namespace npu::compiler {

using ValueRanges = std::map<std::string, std::pair<float, float>>;  // min, max

// Calibration inputs: <input>.npy / <input>_N.npy in options.calibration_dir (or, for a
// one-input model, every .npy there); without a directory, generated inputs and a warning
// appended to `warnings`: N(0,1) floats, integer inputs as integer_input_values says.
std::vector<TensorMap> calibration_inputs(const Graph& graph, const CompileOptions& options,
                                          std::vector<std::string>& warnings);

// Generated values of an integer model input: token and position ids are drawn uniformly from
// [lo, hi), the rows of every embedding table they index (Gather, reached through reshapes,
// casts, slices and added constants); any other integer input (an attention mask, a flag) is
// all ones, the unmasked case. `why` says which, for the warning.
struct IntegerInputValues {
  std::int64_t lo = 1, hi = 2;
  std::string why;
};
IntegerInputValues integer_input_values(const Graph& graph, const std::string& input);

// Min/max of every value the graph computes, over all calibration inputs.
ValueRanges measure_ranges(const Graph& graph, const std::vector<TensorMap>& inputs);

// Asymmetric int8 parameters covering [lo, hi] (always including 0).
QuantParams activation_params(float lo, float hi);

// Sets Tensor::quant for every activation an NPU node reads or writes; values that must share
// parameters (pool, concat, resize, reshape, relu in/out) get the union of their ranges. Fused
// nodes get acc_/act_ scale and zero point attributes for their epilogue's inner steps.
// NPU nodes whose values have no range (downstream of a node calibration could not run) run in
// fp16 on the NPU where `fp16_capable` says they can (precision "fp16"; their names go to
// `in_fp16`), else move to the CPU, their reason naming the node calibration could not run
// (`why_unmeasured`: value -> line, calibration_statistics.h); returns the names of those moved.
std::vector<std::string> assign_quantization(Graph& graph, const ValueRanges& ranges,
                                             const std::map<std::string, std::string>* why_unmeasured = nullptr,
                                             const std::function<bool(const Node&)>& fp16_capable = {},
                                             std::vector<std::string>* in_fp16 = nullptr);

struct QuantizedWeights {
  std::vector<std::int8_t> values;    // same order as the float weights
  std::vector<float> channel_scales;  // one per output channel
};
// Symmetric per-output-channel: channel c of `channels` holds the elements with
// (index / inner) % channels == c. bits 8: integers in [-127, 127] (a QDQ model's own int8 grid
// kept); bits 4: in [-7, 7], scale max / 7 (int4 weights of an int8 program, weight_bits.h).
QuantizedWeights quantize_weights(const std::vector<float>& w, std::int64_t channels, std::int64_t inner,
                                  int bits = 8);

}  // namespace npu::compiler
