// `npusim compare --published FILE`: a config's simulated latency of every model in files of
// published device figures (the CSV of measurements.h), next to the figures, with the error
// and whether the config was fitted to that file (its provenance says so) or the figures are
// held out. The honest summary of a fitted preset is the held-out error, not the fitted one.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hwconfig/hardware_config.h"

namespace npu::calibrate {

struct PublishedModel {
  std::string label;             // ModelCase::label()
  std::string file;              // the measurement file it came from (as given)
  bool fitted = false;           // a key of the config was fitted to this file
  std::vector<double> published_ms;
  std::vector<std::string> origins;  // file:line of each figure
  double simulated_ms = 0;
  // Per figure: simulated / published - 1.
  std::vector<double> errors() const;
};

struct PublishedComparison {
  std::string config_name;
  std::vector<PublishedModel> models;
  // Mean of |error| over every figure of the fitted, and of the held-out, models (-1: none).
  double mean_abs_error(bool fitted) const;
  double max_abs_error() const;
};

// Reads each file, compiles and simulates every model on `config` (timing only, as npusim run).
// A file the config's provenance names in a `fitted` entry is fitted; any other is held out.
PublishedComparison compare_published(const std::vector<std::string>& files, const HardwareConfig& config);

std::string format_published_comparison(const PublishedComparison& comparison);
nlohmann::json published_comparison_json(const PublishedComparison& comparison);

}  // namespace npu::calibrate
