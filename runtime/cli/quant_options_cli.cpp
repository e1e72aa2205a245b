#include "runtime/cli/quant_options_cli.h"

#include <stdexcept>

namespace npu::cli {

void add_quant_options(po::options_description& opts, const std::string& what) {
  opts.add_options()
      ("precision", po::value<std::string>()->default_value("int8"),
       (what + "int8 (calibrated), fp16, or mixed (int8 with the most sensitive layers in fp16 until "
               "--accuracy-target is met)").c_str())
      ("calib-method", po::value<std::string>()->default_value("minmax"),
       (what + "how int8 activation ranges are calibrated: minmax, percentile, entropy (KL divergence) or mse").c_str())
      ("calib-percentile", po::value<double>()->default_value(99.99),
       (what + "percentile method: the share of values kept on each side, in %").c_str())
      ("activations", po::value<std::string>()->default_value("asymmetric"),
       (what + "int8 activation scheme: asymmetric (zero point) or symmetric (zero point 0)").c_str())
      ("accuracy-target", po::value<std::string>(),
       (what + "--precision mixed: cosine=X or sqnr=DB the outputs must reach against FP32 on the "
               "calibration data (default cosine=0.99)").c_str())
      ("keep-fp16", po::value<std::string>(),
       (what + "NODE,... layers (fused or ONNX node names) that run in fp16 in an int8 program").c_str())
      ;
}

void read_quant_options(const po::variables_map& vm, compiler::CompileOptions& options) {
  using namespace compiler;
  const std::string precision = vm["precision"].as<std::string>();
  QuantOptions& q = options.quant;
  if (precision == "mixed") {
    options.precision = Precision::Int8;
    q.mixed = true;
  } else {
    options.precision = container::parse_precision(precision);
  }
  q.method = parse_calibration_method(vm["calib-method"].as<std::string>());
  q.percentile = vm["calib-percentile"].as<double>();
  if (!(q.percentile > 50.0 && q.percentile <= 100.0))
    throw std::runtime_error("--calib-percentile " + std::to_string(q.percentile) + " is not in (50, 100]");
  const std::string act = vm["activations"].as<std::string>();
  if (act != "asymmetric" && act != "symmetric")
    throw std::runtime_error("--activations '" + act + "' is not asymmetric or symmetric");
  q.symmetric_activations = act == "symmetric";
  if (vm.count("accuracy-target")) {
    if (!q.mixed) throw std::runtime_error("--accuracy-target needs --precision mixed");
    q.target = parse_accuracy_target(vm["accuracy-target"].as<std::string>());
  }
  if (vm.count("keep-fp16")) {
    if (options.precision != Precision::Int8) throw std::runtime_error("--keep-fp16 needs --precision int8 or mixed");
    q.keep_fp16 = split_names(vm["keep-fp16"].as<std::string>());
  }
}

}  // namespace npu::cli
