// Per-layer quantisation sensitivity: which layers lose the accuracy. Measured with the
// quantisation simulator (quant_simulation.h) against the FP32 run of the same graph, over the
// calibration samples.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "compiler/quant/quant_simulation.h"

namespace npu::compiler {

// Agreement of the model's outputs with FP32: the worst output's, over all samples.
struct ModelAgreement {
  double cosine = 1.0;   // worst over outputs and samples
  double sqnr_db = 200;  // worst over outputs and samples
};

struct LayerSensitivity {
  std::string layer;             // node name after fusion
  std::string op;                // e.g. "Conv+HardSwish"
  std::size_t node = 0;          // index in the graph
  bool fp16_capable = false;     // the NPU runs it in fp16 too
  // Its own output (the first), against FP32:
  double alone_sqnr_db = 0, alone_cosine = 0;          // only this layer quantised
  double cumulative_sqnr_db = 0, cumulative_cosine = 0;  // every layer up to it quantised (all int8)
  ModelAgreement model_alone;    // the model outputs with only this layer quantised
};

struct SensitivityReport {
  std::vector<LayerSensitivity> layers;  // graph order
  ModelAgreement all_int8;               // every layer quantised
  std::size_t samples = 0;
};

// Why the NPU cannot run a layer in fp16, "" when it can: the back end's op rules
// (backend/partition.h), handed in by the pipeline, since quantisation runs before the back end
// and does not depend on it.
using Fp16Rejection = std::function<std::string(const Graph& graph, const Node& node)>;

// The FP32 and all-int8 runs of every sample, each layer alone quantised.
SensitivityReport analyse_sensitivity(const QuantSimulator& sim, const std::vector<TensorMap>& samples,
                                      const Fp16Rejection& fp16_rejection);

// The model's agreement with `reference` (FP32 outputs per sample) when run with `modes`.
ModelAgreement model_agreement(const QuantSimulator& sim, const std::vector<TensorMap>& samples,
                               const std::vector<TensorMap>& reference, const std::vector<LayerMode>& modes);

// The NPU layers that carry a precision (quant_simulation.h) and are quantised in this graph.
std::vector<std::size_t> quantised_layers(const Graph& graph);

}  // namespace npu::compiler
