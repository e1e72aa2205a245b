// `npusim config show PRESET`: every key of a config with its value and where the value comes
// from (the preset's `provenance:` map: public with the source, fitted with the measurement
// set and date, guess), so a user can tell a datasheet figure from a fitted one from a guess.
// `npusim config doc`: configs/README.md with its key tables regenerated from the schema.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "apps/cli/command.h"
#include "apps/cli/options.h"
#include "hwconfig/config_doc.h"
#include "hwconfig/config_schema.h"
#include "hwconfig/hardware_config.h"

namespace npu::cli {
namespace {

namespace fs = std::filesystem;

// `file` in ./configs, else in the source tree's configs/ beside the build
// (build/bin/npusim -> configs/), else nullopt.
std::optional<std::string> find_in_configs(const std::string& file) {
  std::error_code ec;
  std::vector<fs::path> dirs{"configs"};
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path().parent_path() / "configs");
  for (const auto& d : dirs)
    if (fs::is_regular_file(d / file, ec)) return (d / file).string();
  return std::nullopt;
}

// A path as given, else a preset name looked up in the configs folders.
std::string preset_path(const std::string& preset) {
  std::error_code ec;
  if (fs::is_regular_file(preset, ec)) return preset;
  if (auto found = find_in_configs(fs::path(preset).extension() == ".yaml" ? preset : preset + ".yaml")) return *found;
  throw std::runtime_error(preset + ": no such config file or preset (looked in ./configs and the source tree's configs/)");
}

// The README with its key tables regenerated, to stdout or to `output` (in place when it is
// the README itself).
int run_config_doc(const po::variables_map& vm) {
  std::string readme;
  if (vm.count("preset")) {
    readme = vm["preset"].as<std::string>();
  } else if (auto found = find_in_configs("README.md")) {
    readme = *found;
  } else {
    throw std::runtime_error("configs/README.md not found (looked in ./configs and the source tree's configs/); name it");
  }
  std::ifstream in(readme, std::ios::binary);
  if (!in) throw std::runtime_error(readme + ": cannot open file");
  std::stringstream text;
  text << in.rdbuf();
  const std::string updated = update_config_readme(text.str(), readme);
  if (!vm.count("output")) {
    std::cout << updated;
    return kExitOk;
  }
  const auto path = vm["output"].as<std::string>();
  std::ofstream out(path, std::ios::binary);
  if (!(out << updated)) throw std::runtime_error(path + ": cannot write file");
  return kExitOk;
}

int run_config(const std::vector<std::string>& args) {
  po::options_description opts("config options");
  opts.add_options()
      ("action", po::value<std::string>()->required(), "show | doc")
      ("preset", po::value<std::string>(),
       "show: preset name (snapdragon-8-elite-htp) or config YAML path; doc: the README (default configs/README.md)")
      ("json", po::bool_switch(), "show: print JSON instead of the table")
      ("output,o", po::value<std::string>(), "doc: write here instead of stdout (configs/README.md)");
  po::positional_options_description pos;
  pos.add("action", 1).add("preset", 1);
  auto vm = parse_command_line("npusim config show PRESET [--json] | npusim config doc [README] [-o configs/README.md]",
                               opts, pos, args);
  if (!vm) return kExitOk;
  const std::string action = (*vm)["action"].as<std::string>();
  if (action == "doc") return run_config_doc(*vm);
  if (action != "show") throw std::runtime_error("config " + action + ": unknown action (expected: show, doc)");
  if (!vm->count("preset")) throw std::runtime_error("config show: name a preset or config file");

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
    {"config", "show a config's keys with where each value comes from (public / fitted / guess); doc: configs/README.md's key tables", run_config});

}  // namespace
}  // namespace npu::cli
