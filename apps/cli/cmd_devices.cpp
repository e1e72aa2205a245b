#include <fmt/core.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "apps/cli/command.h"
#include "apps/cli/options.h"
#include "backends/inference_backend.h"
#include "hwconfig/hardware_config.h"

namespace npu::cli {
namespace {

int run_devices(const std::vector<std::string>& args) {
  po::options_description opts("devices options");
  opts.add_options()
      ("json", po::bool_switch(), "print JSON instead of the table");
  po::positional_options_description pos;
  auto vm = parse_command_line("npusim devices [--json]", opts, pos, args);
  if (!vm) return kExitOk;

  // Only the simulator reads the config; availability never depends on it.
  const HardwareConfig config;
  nlohmann::json list = nlohmann::json::array();
  const bool json = (*vm)["json"].as<bool>();
  for (const auto& name : backends::backend_names()) {
    auto backend = backends::make_backend(name, config);
    const auto a = backend->availability();
    list.push_back({{"device", name}, {"available", a.available}, {"reason", a.reason}, {"versions", a.versions}});
    if (json) continue;
    if (a.available)
      fmt::print("{:<14} available      {}\n", name, fmt::join(a.versions, "; "));
    else
      fmt::print("{:<14} not available: {}\n", name, a.reason);
  }
  if (json) fmt::print("{}\n", list.dump(2));
  return kExitOk;
}

const CommandRegistration devices_command(
    {"devices", "list the devices models can run on (simulator, OpenVINO, ONNX Runtime) and why any is not available",
     run_devices});

}  // namespace
}  // namespace npu::cli
