#include "apps/cli/quant_options_cli.h"

#include <sstream>
#include <stdexcept>

#include "compiler/quant/quant_spelling.h"

namespace npu::cli {
namespace {

std::string shortest(double v) {
  std::ostringstream s;
  s << v;  // 6 significant digits: "99.99", where boost's own text would show 17
  return s.str();
}

}  // namespace

void add_quant_options(po::options_description& opts, const std::string& what) {
  opts.add_options()
      ("precision", po::value<std::string>()->default_value("int8"),
       (what + "int8 (calibrated), fp16, or mixed (int8 with the most sensitive layers in fp16 until "
               "--accuracy-target is met)").c_str())
      ("calib-method", po::value<std::string>()->default_value(compiler::QuantSpelling{}.calib_method),
       (what + "how int8 activation ranges are calibrated: minmax, percentile, entropy (KL divergence) or mse").c_str())
      ("calib-percentile",
       po::value<double>()->default_value(compiler::QuantSpelling{}.calib_percentile, shortest(compiler::QuantSpelling{}.calib_percentile)),
       (what + "percentile method: the share of values kept on each side, in %").c_str())
      ("activations", po::value<std::string>()->default_value("asymmetric"),
       (what + "int8 activation scheme: asymmetric (zero point) or symmetric (zero point 0)").c_str())
      ("accuracy-target", po::value<std::string>(),
       (what + "--precision mixed: cosine=X or sqnr=DB the outputs must reach against FP32 on the "
               "calibration data (default cosine=0.99)").c_str())
      ("keep-fp16", po::value<std::string>(),
       (what + "NODE,... layers (fused or ONNX node names) that run in fp16 in an int8 program").c_str())
      ("weights", po::value<std::string>(),
       (what + "int8 or int4: weight-only quantisation of MatMul/Gemm weights with --precision fp16 (int8 per "
               "output channel, int4 per group of --group-size); with --precision int8, int4 stores MatMul/Gemm "
               "weights as int4 per output channel beside int8 activations").c_str())
      ("group-size", po::value<std::string>(),
       (what + "--weights int4 with --precision fp16: weights per fp16 scale along the reduction axis (default 128; a last shorter "
               "group where K is not a multiple)").c_str())
      ;
}

void read_quant_options(const po::variables_map& vm, compiler::CompileOptions& options) {
  compiler::QuantSpelling spelling;
  spelling.precision = vm["precision"].as<std::string>();
  spelling.calib_method = vm["calib-method"].as<std::string>();
  spelling.calib_percentile = vm["calib-percentile"].as<double>();
  spelling.activations = vm["activations"].as<std::string>();
  if (vm.count("accuracy-target")) spelling.accuracy_target = vm["accuracy-target"].as<std::string>();
  if (vm.count("keep-fp16")) spelling.keep_fp16 = vm["keep-fp16"].as<std::string>();
  if (vm.count("weights")) spelling.weights = vm["weights"].as<std::string>();
  if (vm.count("group-size")) spelling.group_size = vm["group-size"].as<std::string>();
  compiler::apply_quant_spelling(spelling, options);
}

}  // namespace npu::cli
