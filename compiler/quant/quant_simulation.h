// Quantisation simulated in float ("fake quantisation"): runs a quantised graph (after
// assign_quantization, before layout) with the FP32 evaluator, rounding every value an INT8 NPU
// layer reads or writes to its int8 grid, its weights to their per-channel int8 values, the
// inner values of fused epilogues (the accumulator before a table activation, the value before
// a residual add) to theirs, and the values of FP16 layers to fp16. What it leaves out is the
// integer arithmetic's own rounding (fixed-point requant multipliers, int32 bias), well below
// one output step. Sensitivity analysis and automatic mixed precision measure with it: one
// evaluation costs one FP32 run, against a functional simulation per candidate.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "compiler/core/graph.h"
#include "compiler/reference/float_evaluator.h"

namespace npu::compiler {

// How a node runs: Float (CPU fallback, or the FP32 reference), Int8, Fp16 (an NPU layer in an
// fp16 program or promoted in a mixed one).
enum class LayerMode : std::uint8_t { Float, Int8, Fp16 };

// Data movement (move_ops) and the converters carry values, they compute nothing: their
// precision follows their inputs'. Everything else on the NPU is a layer that has one.
bool is_precision_layer(const Node& node);

// Per node of a quantised graph: CPU nodes Float; NPU layers Int8, or Fp16 when named in
// `fp16_layers`; NPU data movement Fp16 when any of its activation inputs is produced in fp16
// (a Dequantize to fp16 is exact, a Quantize is not), else Int8. The converter pass
// (precision_converters.h) applies the same rule after layout.
std::vector<LayerMode> resolve_layer_modes(const Graph& graph, const std::set<std::string>& fp16_layers);

class QuantSimulator {
 public:
  // `host` runs the CPU nodes the FP32 evaluator has no kernel for (host_node_runner.h); empty:
  // such a node is a CompileError naming it.
  explicit QuantSimulator(const Graph& graph, NodeRunner host = {});

  // Runs the graph on one sample with `modes` (one per node). With `base`, only nodes from
  // `first` on whose inputs differ from `base` (or node `first` itself) are evaluated, the other
  // values read from `base`: what one layer's quantisation changes. keep_all: return every value
  // (else only the graph outputs, and values are freed after their last reader).
  TensorMap run(const TensorMap& inputs, const std::vector<LayerMode>& modes, bool keep_all,
                const TensorMap* base = nullptr, std::size_t first = 0) const;

  // Node `index` alone in `mode` on the given input values (its inputs from `values`).
  std::vector<FloatTensor> run_node(std::size_t index, LayerMode mode, const TensorMap& values) const;

  const Graph& graph() const { return graph_; }

 private:
  std::vector<FloatTensor> evaluate(std::size_t index, LayerMode mode,
                                    const std::vector<const FloatTensor*>& inputs) const;
  const Graph& graph_;
  NodeRunner host_;
  TensorMap constants_;
  std::vector<Node> plain_;                  // fused layers without their epilogue
  std::vector<FloatTensor> int8_weights_;    // per node: weights on their int8 grid (fused layers)
  std::vector<FloatTensor> fp16_weights_;    // per node: weights rounded to fp16
  std::vector<std::vector<std::string>> reads_;
  std::vector<int> last_reader_;             // per value index in reads order; see run()
};

// Rounds every element to the int8 grid of `q` (per-tensor) and back.
void fake_quantize(std::vector<float>& values, const QuantParams& q);
void round_to_fp16(std::vector<float>& values);

// Agreement of a result with its reference, accumulated over samples (concatenated).
struct Agreement {
  double dot = 0, ref_sq = 0, out_sq = 0, err_sq = 0;
  void add(const std::vector<float>& reference, const std::vector<float>& result);
  double cosine() const;
  double sqnr_db() const;  // 10 log10(|ref|^2 / |ref - out|^2); 200 when exact
};

}  // namespace npu::compiler
