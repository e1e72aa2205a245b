// The YAML hardware-config loader and validator, and its writer: a config it accepts must
// come back unchanged through dump and parse.
#include <string>

#include "hwconfig/hardware_config.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace npu;
  const std::string text(reinterpret_cast<const char*>(data), size);
  HardwareConfig config;
  try {
    config = parse_hardware_config(text, "fuzz.yaml");
  } catch (const std::exception& e) {
    fuzz::require_clean_error(e, "fuzz.yaml");
    return 0;
  }
  const std::string dumped = dump_hardware_config(config);
  HardwareConfig again;
  try {
    again = parse_hardware_config(dumped, "fuzz.yaml");  // same origin: it is part of the config
  } catch (const std::exception&) {
    fuzz::require(false, "the dump of an accepted config does not load");
  }
  fuzz::require(again == config, "parse(dump(config)) != config");
  return 0;
}
