#include "apps/cli/input_options_cli.h"

namespace npu::cli {

void add_input_options(po::options_description& opts, const std::string& what) {
  opts.add_options()
      ("input-shape", po::value<std::vector<std::string>>()->composing(),
       (what + "NAME=1x3x224x224 fixes dynamic dims (repeatable)").c_str())
      ("input-value", po::value<std::vector<std::string>>()->composing(),
       (what + "NAME=VALUE makes a one-element input a constant (a sample rate, a flag), so what depends on "
               "it folds at compile time, an If on it included (repeatable)").c_str());
}

void read_input_options(const po::variables_map& vm, compiler::CompileOptions& options) {
  if (vm.count("input-shape")) options.input_shapes = vm["input-shape"].as<std::vector<std::string>>();
  if (vm.count("input-value")) options.input_values = vm["input-value"].as<std::vector<std::string>>();
}

}  // namespace npu::cli
