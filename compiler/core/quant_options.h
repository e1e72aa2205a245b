// How the compiler quantises: the calibration method and its parameters, the activation
// scheme, automatic or hand-picked mixed precision, weight-only quantisation. Parsed from the
// command line's spellings here, so every front end (CLI, Python, sweeps) reads them alike.
#pragma once
#include <string>
#include <vector>

namespace npu::compiler {

// How a value's calibration statistics become its clipping range [lo, hi]:
// - minmax: the smallest and largest value seen;
// - percentile: each tail clipped at (100 - percentile) % of the values;
// - entropy: the clipping threshold minimising the KL divergence between the value's histogram
//   and its quantised form (TensorRT's and ONNX Runtime's method);
// - mse: the clipping threshold minimising the expected quantisation error (rounding inside the
//   range plus clipping outside it) over the histogram.
enum class CalibrationMethod { MinMax, Percentile, Entropy, Mse };

// Weight-only quantisation of Gemm/MatMul weights with fp16 activations; with int8 activations,
// Int4 stores the int8 program's MatMul/Gemm weights as int4 (compiler/quant/weight_bits.h).
enum class WeightOnly { None, Int8, Int4 };

// A bound on how far the quantised model may drift from FP32 on the calibration data: the
// worst cosine similarity (or SQNR in dB) over outputs and samples must reach `value`.
struct AccuracyTarget {
  enum class Metric { None, Cosine, SqnrDb } metric = Metric::None;
  double value = 0.0;
  bool set() const { return metric != Metric::None; }
};

struct QuantOptions {
  // mse by default: on the real models of tests/python/test_real_models.py it lifts the PP-OCR
  // classifier from 0.985 to 0.99997 and EfficientNet/ViT by 0.02 over minmax, and leaves every
  // model that passed above 0.99 (compiler/README.md has the table per method).
  CalibrationMethod method = CalibrationMethod::Mse;
  double percentile = 99.99;          // percentile method: the share of values kept, per tail
  bool symmetric_activations = false; // zero point 0, scale max(|lo|, |hi|) / 127
  bool mixed = false;                 // --precision mixed: int8 with fp16 layers where needed
  AccuracyTarget target;              // mixed: promote layers until reached (default cosine 0.99)
  std::vector<std::string> keep_fp16; // layers forced to fp16 (fused or original ONNX node names)
  // Weight-only quantisation of fp16 programs' MatMul/Gemm weights (compiler/quant/weight_only.h).
  WeightOnly weights = WeightOnly::None;
  int group_size = 128;               // int4: weights per scale along the reduction axis
};

const char* calibration_method_name(CalibrationMethod m);  // "minmax" | ... | "mse"
const char* weight_only_name(WeightOnly w);                 // "none" | "int8" | "int4"
// Each throws CompileError with one line naming the option and the accepted spellings.
CalibrationMethod parse_calibration_method(const std::string& text);
WeightOnly parse_weight_only(const std::string& text);
AccuracyTarget parse_accuracy_target(const std::string& text);  // "cosine=0.99" | "sqnr=30"
std::string accuracy_target_text(const AccuracyTarget& t);       // "cosine=0.99"
// "a,b,c" -> {"a", "b", "c"} (empty entries dropped)
std::vector<std::string> split_names(const std::string& text);
// The options as one line for the compile summary and the program record:
// "entropy calibration, asymmetric per-tensor activations, per-channel weights".
std::string describe_quant_options(const QuantOptions& q);
// Every field, for caches keyed by the options.
std::string quant_options_key(const QuantOptions& q);

}  // namespace npu::compiler
