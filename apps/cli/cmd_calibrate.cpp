#include <filesystem>
#include <fstream>

#include <fmt/core.h>

#include "apps/cli/command.h"
#include "apps/cli/options.h"
#include "calibrate/calibration.h"
#include "hwconfig/hardware_config.h"

namespace npu::cli {
namespace {

std::string joined(const std::vector<std::string>& parts, const char* sep) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : sep) + p;
  return s;
}

int run_calibrate(const std::vector<std::string>& args) {
  po::options_description opts("calibrate options");
  opts.add_options()
      ("config,c", po::value<std::string>()->required(), "base hardware config YAML (configs/*.yaml)")
      ("measurements,m", po::value<std::vector<std::string>>()->required()->composing(),
       "measured latencies (repeatable): npusim compare --json output, or CSV model,input_shape,precision,latency_ms"
       "[,layer,layer_ms]")
      ("fit", po::value<std::vector<std::string>>()->required()->composing(),
       "keys to fit, comma-separated (repeatable), e.g. clock.frequency_mhz,host.launch_us; each stays in the "
       "plausible range the config schema gives it")
      ("output,o", po::value<std::string>()->required(), "write the fitted config here (every other key as in the base)")
      ("device,d", po::value<std::string>()->default_value(""), "which measured device of a compare JSON to use")
      ("predict", po::value<std::vector<std::string>>()->composing(),
       "measurements (same formats) predicted with the fitted config but never fitted to (repeatable)")
      ("layers", po::bool_switch(), "fit measured layer times as well (each model's layers weigh as much as the model)")
      ("no-leave-one-out", po::bool_switch(), "skip the leave-one-out table (one extra fit per model)")
      ("max-iterations", po::value<int>()->default_value(40), "iterations per fit before it counts as not converged")
      ("name", po::value<std::string>(), "name of the fitted config (default: the output file's stem)")
      ("allow-public", po::bool_switch(), "fit keys the base config marks public (published figures) too")
      ("force", po::bool_switch(), "write the fit even when its leave-one-out error is more than twice its training error")
      ("quiet,q", po::bool_switch(), "print nothing but errors");
  po::positional_options_description pos;
  auto vm = parse_command_line(
      "npusim calibrate --config BASE.yaml --measurements FILE [--measurements FILE2 ...] --fit KEY[,KEY...] "
      "-o FITTED.yaml",
      opts, pos, args);
  if (!vm) return kExitOk;

  const std::string config_path = (*vm)["config"].as<std::string>();
  const auto base = load_hardware_config(config_path);
  calibrate::CalibrationOptions options;
  options.keys = calibrate::parse_fit_keys(joined((*vm)["fit"].as<std::vector<std::string>>(), ","));
  options.fit_layers = (*vm)["layers"].as<bool>();
  options.leave_one_out = !(*vm)["no-leave-one-out"].as<bool>();
  options.max_iterations = (*vm)["max-iterations"].as<int>();
  options.allow_public = (*vm)["allow-public"].as<bool>();
  if (options.max_iterations < 1) throw std::runtime_error("--max-iterations must be at least 1");
  const std::string device = (*vm)["device"].as<std::string>();
  const auto files = (*vm)["measurements"].as<std::vector<std::string>>();
  std::vector<calibrate::ModelCase> cases;
  for (const auto& f : files) calibrate::read_measurements(f, device, cases);
  if (vm->count("predict"))
    for (const auto& f : (*vm)["predict"].as<std::vector<std::string>>())
      calibrate::read_measurements(f, device, options.predict);

  const auto result = calibrate::calibrate(base, cases, options);
  const bool quiet = (*vm)["quiet"].as<bool>();
  if (!quiet) fmt::print("{}", calibrate::format_calibration(result));

  const std::string output = (*vm)["output"].as<std::string>();
  if (result.converged && result.overfit() && !(*vm)["force"].as<bool>()) {
    fmt::print(stderr,
               "npusim calibrate: error: leave-one-out median |error| {:.1f}% is more than twice the training error "
               "{:.1f}%: an overfit (fit fewer keys or add measurements; --force writes it anyway); {} not written\n",
               100 * *result.leave_one_out_median_abs_error, 100 * result.training_median_abs_error, output);
    return kExitError;
  }
  const std::string name =
      vm->count("name") ? (*vm)["name"].as<std::string>() : std::filesystem::path(output).stem().string();
  std::vector<std::string> file_names;
  for (const auto& f : files) file_names.push_back(std::filesystem::path(f).filename().string());
  std::string command = "npusim calibrate";
  for (const auto& a : args) command += " " + a;
  const std::string yaml =
      result.converged
          ? calibrate::fitted_config_yaml(result, name, calibrate::today(), joined(file_names, " + "), command)
          : "# the fit did not converge (" + result.reason + "): the base config unchanged\n" +
                dump_hardware_config(base);
  std::ofstream out(output);
  if (!(out << yaml)) throw std::runtime_error(output + ": cannot write file");
  if (!result.converged) {
    fmt::print(stderr, "npusim calibrate: error: the fit did not converge ({}); {} keeps the base config {}\n",
               result.reason, output, config_path);
    return kExitError;
  }
  if (!quiet) fmt::print("\nwrote {}\n", output);
  return kExitOk;
}

const CommandRegistration calibrate_command(
    {"calibrate", "fit timing keys of a config to measured latencies (compare JSON or published figures)",
     run_calibrate});

}  // namespace
}  // namespace npu::cli
