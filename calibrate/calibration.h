// `npusim calibrate`: fit a few timing keys of a base config so that simulated latencies
// agree with measured ones. Least squares on log latency (relative error, every model
// weighted once however many measurements it has), each key bounded to its plausible range
// from the schema; programs compiled once per round and checked against the fitted config's
// own compile (simulated_latency.h). Leave-one-out: each model predicted by the fit made
// without it, the honest estimate of how well the fit predicts a model it has not seen.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/fit_keys.h"
#include "calibrate/measurements.h"
#include "hwconfig/hardware_config.h"

namespace npu::calibrate {

struct CalibrationOptions {
  std::vector<FitKey> keys;
  bool fit_layers = false;          // measured layer times join the fit (one model's weight per model)
  bool leave_one_out = true;
  int max_iterations = 40;          // per fit
  int max_rounds = 6;               // recompile-and-refit rounds
  std::vector<ModelCase> predict;   // predicted with the fitted config, never fitted to
  // A key the base marks public (a published figure: DDR bandwidth, channel count, engine count,
  // clock) is refused unless this is set: a fitted preset keeps physical keys physical.
  bool allow_public = false;
};

struct KeyFit {
  FitKey key;
  double base = 0, fitted = 0;
  bool at_bound = false;  // the fit ended on the plausible range's edge: it wanted to go further
  // One standard deviation of the fitted value (same unit), from the residuals' spread and the
  // Jacobian at the fit; absent when the measurements cannot pin the key (fewer residuals than
  // keys, or keys that move the latencies alike).
  std::optional<double> uncertainty;
};

struct CaseFit {
  std::string label;
  std::vector<double> measured_us;
  double base_us = 0;    // simulated with the base config
  double fitted_us = 0;  // simulated with the fitted config (its own compile)
  std::optional<double> leave_one_out_us;
  bool leave_one_out_converged = true;
};

struct LayerFit {
  std::string model, layer;
  double measured_us = 0, base_us = 0, fitted_us = 0;
};

struct Calibration {
  HardwareConfig base, fitted;                 // the first config's
  std::vector<HardwareConfig> bases, fitted_configs;  // every config's (one per device)
  std::vector<KeyFit> keys;
  std::vector<CaseFit> cases;      // fitted to
  std::vector<CaseFit> predicted;  // CalibrationOptions::predict
  std::vector<LayerFit> layers;    // measured layer times, fitted to or not
  bool converged = false;
  std::string reason;              // why the last fit stopped
  std::vector<std::string> rounds; // one line per round
  std::string leave_one_out_note;  // why there is no leave-one-out table, if there is none
  std::size_t compilations = 0, simulations = 0;
  std::optional<double> leave_one_out_median_abs_error;  // fraction
  double training_median_abs_error = 0;                   // fraction: the fitted models against their measurements
  // The leave-one-out error is more than twice the training error (and above the
  // kOverfitFloor of simulation noise): the fit follows these models, not the device.
  bool overfit() const {
    return leave_one_out_median_abs_error &&
           *leave_one_out_median_abs_error > std::max(2 * training_median_abs_error, kOverfitFloor);
  }
  static constexpr double kOverfitFloor = 0.01;
};

// Throws one line for bad input: a model that does not compile, a key that changes no
// simulated latency, a measured layer that names nothing in its model. A fit that does not
// converge is not thrown: `converged` is false and `fitted` equals `base`.
Calibration calibrate(const HardwareConfig& base, std::vector<ModelCase> cases, const CalibrationOptions& options);
// Several devices at once: each case (ModelCase::config) simulated on its own base config, the
// fitted keys shared by all of them (one runtime's dispatch cost on two chips, say): more
// measurements per key than any one device has. `fitted_configs` holds each device's result.
Calibration calibrate(const std::vector<HardwareConfig>& bases, std::vector<ModelCase> cases,
                      const CalibrationOptions& options);

std::string format_calibration(const Calibration& calibration);

// The fitted config as YAML: every key (the base's where not fitted), the base's provenance,
// and `fitted <date> <measurements>` for each fitted key; `name` names the result.
std::string fitted_config_yaml(const Calibration& calibration, const std::string& name, const std::string& date,
                               const std::string& measurements, const std::string& command);

// Today's date, YYYY-MM-DD (UTC).
std::string today();

}  // namespace npu::calibrate
