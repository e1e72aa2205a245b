#include "compiler/quant_spelling.h"

namespace npu::compiler {

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
}

}  // namespace npu::compiler
