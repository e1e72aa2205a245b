// `npusim config show PRESET`: every key of a config with its value and where the value comes
// from (the preset's `provenance:` map: public with the source, fitted with the measurement
// set and date, guess), so a user can tell a datasheet figure from a fitted one from a guess.
#include <filesystem>
#include <map>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "apps/cli/command.h"
#include "apps/cli/options.h"
#include "hwconfig/config_schema.h"
#include "hwconfig/hardware_config.h"

namespace npu::cli {
namespace {

namespace fs = std::filesystem;

// A path as given, else a preset name looked up in ./configs and in the source tree's configs/
// beside the build (build/bin/npusim -> configs/).
std::string preset_path(const std::string& preset) {
  std::error_code ec;
  if (fs::is_regular_file(preset, ec)) return preset;
  const std::string file = fs::path(preset).extension() == ".yaml" ? preset : preset + ".yaml";
  std::vector<fs::path> dirs{"configs"};
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path().parent_path() / "configs");
  for (const auto& d : dirs)
    if (fs::is_regular_file(d / file, ec)) return (d / file).string();
  throw std::runtime_error(preset + ": no such config file or preset (looked in ./configs and the source tree's configs/)");
}

int run_config(const std::vector<std::string>& args) {
  po::options_description opts("config options");
  opts.add_options()
      ("action", po::value<std::string>()->required(), "show")
      ("preset", po::value<std::string>()->required(), "preset name (snapdragon-8-elite-htp) or config YAML path")
      ("json", po::bool_switch(), "print JSON instead of the table");
  po::positional_options_description pos;
  pos.add("action", 1).add("preset", 1);
  auto vm = parse_command_line("npusim config show PRESET [--json]", opts, pos, args);
  if (!vm) return kExitOk;
  const std::string action = (*vm)["action"].as<std::string>();
  if (action != "show") throw std::runtime_error("config " + action + ": unknown action (expected: show)");

  const std::string path = preset_path((*vm)["preset"].as<std::string>());
  const HardwareConfig config = load_hardware_config(path);
  std::map<std::string, int> counts;
  nlohmann::json keys = nlohmann::json::array();
  std::string table = fmt::format("{:<30} {:>16} {:<14} {:<7} {}\n", "key", "value", "unit", "origin", "source");
  for (const auto& f : schema::fields()) {
    if (!*f.section || std::holds_alternative<std::monostate>(schema::slot_of(f, config))) continue;
    const auto it = config.provenance.find(f.path());
    const std::string kind = it == config.provenance.end() ? "-" : provenance_kind_name(it->second.kind);
    std::string detail;
    if (it != config.provenance.end())
      detail = it->second.date.empty() ? it->second.detail : it->second.date + " " + it->second.detail;
    ++counts[kind];
    const std::string value = config_value_text(config, f);
    table += fmt::format("{:<30} {:>16} {:<14} {:<7} {}\n", f.path(), value, f.unit, kind, detail);
    keys.push_back({{"key", f.path()}, {"value", value}, {"unit", f.unit}, {"origin", kind}, {"source", detail}});
  }
  if ((*vm)["json"].as<bool>()) {
    fmt::print("{}\n", nlohmann::json{{"name", config.name}, {"file", path}, {"keys", keys}}.dump(2));
    return kExitOk;
  }
  fmt::print("{} ({}): {} public, {} fitted, {} guess, {} unmarked\n\n{}", config.name, path, counts["public"],
             counts["fitted"], counts["guess"], counts["-"], table);
  return kExitOk;
}

const CommandRegistration config_command(
    {"config", "show a config's keys with where each value comes from (public / fitted / guess)", run_config});

}  // namespace
}  // namespace npu::cli
