#include "compiler/core/quant_options.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "compiler/core/compile_options.h"

namespace npu::compiler {

const char* calibration_method_name(CalibrationMethod m) {
  switch (m) {
    case CalibrationMethod::MinMax: return "minmax";
    case CalibrationMethod::Percentile: return "percentile";
    case CalibrationMethod::Entropy: return "entropy";
    case CalibrationMethod::Mse: return "mse";
  }
  return "?";
}

const char* weight_only_name(WeightOnly w) {
  switch (w) {
    case WeightOnly::None: return "none";
    case WeightOnly::Int8: return "int8";
    case WeightOnly::Int4: return "int4";
  }
  return "?";
}

CalibrationMethod parse_calibration_method(const std::string& text) {
  for (auto m : {CalibrationMethod::MinMax, CalibrationMethod::Percentile, CalibrationMethod::Entropy,
                 CalibrationMethod::Mse})
    if (text == calibration_method_name(m)) return m;
  throw CompileError("--calib-method '" + text + "' is not a calibration method (minmax, percentile, entropy, mse)");
}

WeightOnly parse_weight_only(const std::string& text) {
  if (text == "int8") return WeightOnly::Int8;
  if (text == "int4") return WeightOnly::Int4;
  throw CompileError("--weights '" + text + "' is not a weight-only mode (int8, int4)");
}

AccuracyTarget parse_accuracy_target(const std::string& text) {
  const auto eq = text.find('=');
  const std::string metric = eq == std::string::npos ? "" : text.substr(0, eq);
  AccuracyTarget t;
  char* end = nullptr;
  const std::string number = eq == std::string::npos ? "" : text.substr(eq + 1);
  t.value = std::strtod(number.c_str(), &end);
  const bool numeric = !number.empty() && end && *end == '\0' && std::isfinite(t.value);
  if (metric == "cosine" && numeric && t.value > 0.0 && t.value <= 1.0) t.metric = AccuracyTarget::Metric::Cosine;
  else if (metric == "sqnr" && numeric) t.metric = AccuracyTarget::Metric::SqnrDb;
  else
    throw CompileError("--accuracy-target '" + text + "' is not cosine=X (0 < X <= 1) or sqnr=DB");
  return t;
}

std::string accuracy_target_text(const AccuracyTarget& t) {
  if (!t.set()) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s=%g", t.metric == AccuracyTarget::Metric::Cosine ? "cosine" : "sqnr", t.value);
  return buf;
}

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string describe_quant_options(const QuantOptions& q) {
  std::string s = calibration_method_name(q.method);
  if (q.method == CalibrationMethod::Percentile) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " %g", q.percentile);
    s += buf;
  }
  s += " calibration, ";
  s += q.symmetric_activations ? "symmetric" : "asymmetric";
  s += " per-tensor activations, per-channel symmetric weights";
  return s;
}

}  // namespace npu::compiler

namespace npu::compiler {

std::string quant_options_key(const QuantOptions& q) {
  std::string key = std::string(calibration_method_name(q.method)) + ' ' + std::to_string(q.percentile) + ' ' +
                    (q.symmetric_activations ? "sym" : "asym") + ' ' + (q.mixed ? "mixed" : "") + ' ' +
                    accuracy_target_text(q.target) + ' ' + weight_only_name(q.weights) + ' ' +
                    std::to_string(q.group_size) + " fp16:";
  for (const auto& n : q.keep_fp16) key += n + ',';
  return key;
}

}  // namespace npu::compiler
