// Helpers for the hwconfig tests.
#pragma once
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "hwconfig/hardware_config.h"

namespace hwtest {

inline std::string source_dir() { return NPUSIM_SOURCE_DIR; }
inline std::string preset(const std::string& file) { return source_dir() + "/configs/" + file; }

// A fresh, empty scratch directory per test case.
inline std::string scratch_dir(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(NPUSIM_BINARY_DIR) / "hwconfig-test-files" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The smallest valid config: only the required keys. `overrides` maps "section.key" to
// the raw YAML text of its value ("<absent>" removes a key); new keys are appended.
inline std::string minimal_yaml(std::map<std::string, std::string> overrides = {}) {
  std::map<std::string, std::map<std::string, std::string>> doc = {
      {"clock", {{"frequency_mhz", "1000"}}},
      {"ddr", {{"bandwidth_gbps", "25.6"}}},
      {"sram", {{"capacity_kib", "1024"}}},
      {"mac_array", {{"rows", "32"}, {"cols", "32"}}},
  };
  std::string top;
  for (const auto& [path, value] : overrides) {
    auto dot = path.find('.');
    if (dot == std::string::npos) {
      top += path + ": " + value + "\n";
      continue;
    }
    auto& section = doc[path.substr(0, dot)];
    if (value == "<absent>")
      section.erase(path.substr(dot + 1));
    else
      section[path.substr(dot + 1)] = value;
  }
  std::string out = top;
  for (const auto& [section, keys] : doc) {
    out += section + ":\n";
    for (const auto& [key, value] : keys) out += "  " + key + ": " + value + "\n";
  }
  return out;
}

// The ConfigError message parsing `text` produces, or "<no error>".
inline std::string error_of(const std::string& text, const std::string& origin = "configs/x.yaml") {
  try {
    npu::parse_hardware_config(text, origin);
  } catch (const npu::ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

inline std::string load_error(const std::string& path) {
  try {
    npu::load_hardware_config(path);
  } catch (const npu::ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace hwtest
