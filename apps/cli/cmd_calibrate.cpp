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
      ("config,c", po::value<std::vector<std::string>>()->required()->composing(),
       "base hardware config YAML (configs/*.yaml); repeatable: several devices fitted at once, the fitted keys "
       "shared by all (each -m FILE@CONFIG says which config measured it)")
      ("measurements,m", po::value<std::vector<std::string>>()->required()->composing(),
       "measured latencies (repeatable): npusim compare --json output, or CSV model,input_shape,precision,latency_ms"
       "[,layer,layer_ms]; FILE@CONFIG (the config as given to -c, its file stem or its name) with several -c")
      ("fit", po::value<std::vector<std::string>>()->required()->composing(),
       "keys to fit, comma-separated (repeatable), e.g. clock.frequency_mhz,host.launch_us; each stays in the "
       "plausible range the config schema gives it")
      ("output,o", po::value<std::vector<std::string>>()->required()->composing(),
       "write the fitted config here (every other key as in the base); one per -c, in the same order")
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
      "-o FITTED.yaml\n"
      "       npusim calibrate -c A.yaml -c B.yaml -m FILE@A -m FILE2@B --fit KEY[,KEY...] -o FITTED_A.yaml -o FITTED_B.yaml",
      opts, pos, args);
  if (!vm) return kExitOk;

  const auto config_paths = (*vm)["config"].as<std::vector<std::string>>();
  std::vector<HardwareConfig> bases;
  for (const auto& path : config_paths) bases.push_back(load_hardware_config(path));
  const auto outputs = (*vm)["output"].as<std::vector<std::string>>();
  if (outputs.size() != bases.size())
    throw std::runtime_error(fmt::format("-o: give one output per -c ({} config(s), {} output(s))", bases.size(),
                                         outputs.size()));
  // FILE@CONFIG -> (FILE, index of the config); plain FILE with one config.
  const auto file_and_config = [&](const std::string& arg) -> std::pair<std::string, std::size_t> {
    const auto at = arg.rfind('@');
    if (at != std::string::npos)
      for (std::size_t i = 0; i < bases.size(); ++i) {
        const std::string wanted = arg.substr(at + 1);
        if (wanted == config_paths[i] || wanted == std::filesystem::path(config_paths[i]).stem().string() ||
            wanted == bases[i].name)
          return {arg.substr(0, at), i};
      }
    if (bases.size() > 1)
      throw std::runtime_error(fmt::format("-m {}: say which config measured it: FILE@CONFIG with CONFIG one of the -c "
                                           "configs (its path, file stem or name)",
                                           arg));
    return {arg, 0};
  };
  calibrate::CalibrationOptions options;
  options.keys = calibrate::parse_fit_keys(joined((*vm)["fit"].as<std::vector<std::string>>(), ","));
  options.fit_layers = (*vm)["layers"].as<bool>();
  options.leave_one_out = !(*vm)["no-leave-one-out"].as<bool>();
  options.max_iterations = (*vm)["max-iterations"].as<int>();
  options.allow_public = (*vm)["allow-public"].as<bool>();
  if (options.max_iterations < 1) throw std::runtime_error("--max-iterations must be at least 1");
  const std::string device = (*vm)["device"].as<std::string>();
  std::vector<std::string> files;
  std::vector<calibrate::ModelCase> cases;
  for (const auto& arg : (*vm)["measurements"].as<std::vector<std::string>>()) {
    const auto [file, config] = file_and_config(arg);
    calibrate::read_measurements(file, device, cases, config);
    files.push_back(file);
  }
  if (vm->count("predict"))
    for (const auto& arg : (*vm)["predict"].as<std::vector<std::string>>()) {
      const auto [file, config] = file_and_config(arg);
      calibrate::read_measurements(file, device, options.predict, config);
    }

  const auto result = calibrate::calibrate(bases, cases, options);
  const bool quiet = (*vm)["quiet"].as<bool>();
  if (!quiet) fmt::print("{}", calibrate::format_calibration(result));

  if (result.converged && result.overfit() && !(*vm)["force"].as<bool>()) {
    fmt::print(stderr,
               "npusim calibrate: error: leave-one-out median |error| {:.1f}% is more than twice the training error "
               "{:.1f}%: an overfit (fit fewer keys or add measurements; --force writes it anyway); {} not written\n",
               100 * *result.leave_one_out_median_abs_error, 100 * result.training_median_abs_error,
               joined(outputs, ", "));
    return kExitError;
  }
  if (vm->count("name") && bases.size() > 1)
    throw std::runtime_error("--name names one fitted config: with several -c each takes its output file's stem");
  std::vector<std::string> file_names;
  for (const auto& f : files) file_names.push_back(std::filesystem::path(f).filename().string());
  std::string command = "npusim calibrate";
  for (const auto& a : args) command += " " + a;
  for (std::size_t config = 0; config < bases.size(); ++config) {
    const std::string& output = outputs[config];
    const std::string name =
        vm->count("name") ? (*vm)["name"].as<std::string>() : std::filesystem::path(output).stem().string();
    calibrate::Calibration one = result;  // this device's base and fit, the shared keys' base values its own
    one.base = result.bases[config];
    one.fitted = result.fitted_configs[config];
    for (auto& k : one.keys) k.base = calibrate::key_value(k.key, one.base);
    const std::string yaml =
        result.converged
            ? calibrate::fitted_config_yaml(one, name, calibrate::today(), joined(file_names, " + "), command)
            : "# the fit did not converge (" + result.reason + "): the base config unchanged\n" +
                  dump_hardware_config(bases[config]);
    std::ofstream out(output);
    if (!(out << yaml)) throw std::runtime_error(output + ": cannot write file");
    if (!result.converged) {
      fmt::print(stderr, "npusim calibrate: error: the fit did not converge ({}); {} keeps the base config {}\n",
                 result.reason, output, config_paths[config]);
      return kExitError;
    }
    if (!quiet) fmt::print("\nwrote {}\n", output);
  }
  return kExitOk;
}

const CommandRegistration calibrate_command(
    {"calibrate", "fit timing keys of a config to measured latencies (compare JSON or published figures)",
     run_calibrate});

}  // namespace
}  // namespace npu::cli
