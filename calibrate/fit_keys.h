// The config keys `npusim calibrate` may move: numbers and integers the schema gives a
// plausible range for (config_schema.cpp). Read and written by key path through the schema's
// slots, so a new fittable key needs only its range in the schema table.
#pragma once
#include <string>
#include <vector>

#include "hwconfig/config_schema.h"
#include "hwconfig/hardware_config.h"

namespace npu::calibrate {

struct FitKey {
  const schema::Field* field = nullptr;
  std::string path() const { return field->path(); }
  bool integer() const { return field->kind == schema::Kind::Integer; }
  double min() const { return field->plausible_min; }
  double max() const { return field->plausible_max; }
  const char* unit() const { return field->unit; }
};

// "clock.frequency_mhz,ddr.other_agents_share" -> keys, in the order given. Throws one line
// for a path that is not a config key (with the nearest key), a key with no plausible range
// (structural: array shape, capacities, choices) or a key given twice.
std::vector<FitKey> parse_fit_keys(const std::string& list);

double key_value(const FitKey& key, const HardwareConfig& config);
// Integer keys are rounded to the nearest integer.
void set_key_value(const FitKey& key, HardwareConfig& config, double value);

}  // namespace npu::calibrate
