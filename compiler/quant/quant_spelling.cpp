#include "compiler/quant/quant_spelling.h"

#include <string>

#include "isa/field_limits.h"

namespace npu::compiler {
namespace {

// Weight-only quantisation keeps fp16 activations (--precision fp16, int8 or int4 weights); with
// --precision int8, --weights int4 stores MatMul/Gemm weights as int4 (weight_bits.h). A group
// size is fp16 int4's (int8 weights, and int4 ones beside int8 activations, have one scale per
// output channel).
void read_weight_only(const QuantSpelling& s, CompileOptions& options) {
  QuantOptions& q = options.quant;
  if (!s.weights.empty()) {
    q.weights = parse_weight_only(s.weights);
    const bool int8_activations = options.precision == Precision::Int8 && !q.mixed;
    if (int8_activations && q.weights == WeightOnly::Int8)
      throw CompileError("--weights int8 with --precision int8: int8 weights are what --precision int8 has already "
                         "(--weights int4 stores them as int4)");
    if (options.precision != Precision::Fp16 && !(int8_activations && q.weights == WeightOnly::Int4))
      throw CompileError("--weights " + s.weights + " needs --precision fp16 (weight-only) or int8 (int4 only; got " +
                         (q.mixed ? std::string("mixed") : container::precision_name(options.precision)) + ")");
  }
  if (s.group_size.empty()) return;
  if (q.weights != WeightOnly::Int4 || options.precision != Precision::Fp16)
    throw CompileError("--group-size " + s.group_size + " needs --weights int4 with --precision fp16 (int8 weights, and "
                       "int4 weights beside int8 activations, have one scale per output channel)");
  const std::int64_t most = isa::field_max(isa::Opcode::Gemm, isa::Field::b_group);
  std::size_t used = 0;
  long long size = 0;
  try {
    size = std::stoll(s.group_size, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.group_size.size() || size < 1 || size > most)
    throw CompileError("--group-size " + s.group_size + " is not a number of weights per scale in 1.." + std::to_string(most));
  q.group_size = static_cast<int>(size);
}

}  // namespace

void apply_quant_spelling(const QuantSpelling& s, CompileOptions& options) {
  QuantOptions& q = options.quant;
  if (s.precision == "mixed") {
    options.precision = Precision::Int8;
    q.mixed = true;
  } else {
    try {
      options.precision = container::parse_precision(s.precision);
    } catch (const std::exception& e) {
      throw CompileError(e.what());
    }
  }
  q.method = parse_calibration_method(s.calib_method);
  q.percentile = s.calib_percentile;
  if (!(q.percentile > 50.0 && q.percentile <= 100.0))
    throw CompileError("--calib-percentile " + std::to_string(q.percentile) + " is not in (50, 100]");
  if (s.activations != "asymmetric" && s.activations != "symmetric")
    throw CompileError("--activations '" + s.activations + "' is not asymmetric or symmetric");
  q.symmetric_activations = s.activations == "symmetric";
  if (!s.accuracy_target.empty()) {
    if (!q.mixed) throw CompileError("--accuracy-target needs --precision mixed");
    q.target = parse_accuracy_target(s.accuracy_target);
  }
  if (!s.keep_fp16.empty()) {
    if (options.precision != Precision::Int8) throw CompileError("--keep-fp16 needs --precision int8 or mixed");
    q.keep_fp16 = split_names(s.keep_fp16);
  }
  read_weight_only(s, options);
}

}  // namespace npu::compiler
