#include "calibrate/published_comparison.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/core.h>

#include "calibrate/measurements.h"
#include "calibrate/simulated_latency.h"

namespace npu::calibrate {
namespace fs = std::filesystem;

std::vector<double> PublishedModel::errors() const {
  std::vector<double> e;
  for (double p : published_ms) e.push_back(simulated_ms / p - 1);
  return e;
}

double PublishedComparison::mean_abs_error(bool fitted) const {
  double sum = 0;
  int n = 0;
  for (const auto& m : models)
    if (m.fitted == fitted)
      for (double e : m.errors()) sum += std::abs(e), ++n;
  return n ? sum / n : -1;
}

double PublishedComparison::max_abs_error() const {
  double worst = 0;
  for (const auto& m : models)
    for (double e : m.errors()) worst = std::max(worst, std::abs(e));
  return worst;
}

namespace {

bool fitted_to(const HardwareConfig& config, const std::string& file) {
  const std::string name = fs::path(file).filename().string();
  return std::any_of(config.provenance.begin(), config.provenance.end(), [&](const auto& entry) {
    return entry.second.kind == KeyProvenance::Kind::Fitted && entry.second.detail.find(name) != std::string::npos;
  });
}

}  // namespace

PublishedComparison compare_published(const std::vector<std::string>& files, const HardwareConfig& config) {
  PublishedComparison out;
  out.config_name = config.name;
  for (const auto& file : files) {
    std::vector<ModelCase> cases;
    read_measurements(file, "", cases);
    const bool fitted = fitted_to(config, file);
    SimulatedLatency sim(cases);
    sim.compile(config);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      PublishedModel m;
      m.label = cases[i].label();
      m.file = file;
      m.fitted = fitted;
      for (double us : cases[i].latencies_us) m.published_ms.push_back(us / 1000);
      m.origins = cases[i].origins;
      m.simulated_ms = sim.simulate(i, config).latency_us / 1000;
      out.models.push_back(std::move(m));
    }
  }
  return out;
}

std::string format_published_comparison(const PublishedComparison& c) {
  std::string s = fmt::format("{} against published figures\n\n", c.config_name);
  s += fmt::format("{:<28} {:>12} {:>12} {:>8}  {:<9} {}\n", "model", "published ms", "simulated ms", "error", "status",
                   "source");
  for (const auto& m : c.models) {
    const auto errors = m.errors();
    for (std::size_t k = 0; k < m.published_ms.size(); ++k)
      s += fmt::format("{:<28} {:>12.4g} {:>12.4g} {:>8}  {:<9} {}\n", k ? "" : m.label, m.published_ms[k],
                       m.simulated_ms, signed_percent(errors[k]), m.fitted ? "fitted" : "held out", m.origins[k]);
  }
  const auto summary = [&](bool fitted) {
    const double e = c.mean_abs_error(fitted);
    return e < 0 ? std::string("none") : fmt::format("{:.1f}%", 100 * e);
  };
  s += fmt::format("\nmean |error|: fitted {}, held out {}; worst {:.1f}%\n", summary(true), summary(false),
                   100 * c.max_abs_error());
  return s;
}

nlohmann::json published_comparison_json(const PublishedComparison& c) {
  nlohmann::json j;
  j["config"] = c.config_name;
  j["models"] = nlohmann::json::array();
  for (const auto& m : c.models)
    j["models"].push_back({{"model", m.label},
                           {"file", m.file},
                           {"status", m.fitted ? "fitted" : "held_out"},
                           {"published_ms", m.published_ms},
                           {"simulated_ms", m.simulated_ms},
                           {"errors", m.errors()},
                           {"origins", m.origins}});
  const auto mean = [&](bool fitted) -> nlohmann::json {
    const double e = c.mean_abs_error(fitted);
    return e < 0 ? nlohmann::json(nullptr) : nlohmann::json(e);
  };
  j["mean_abs_error_fitted"] = mean(true);
  j["mean_abs_error_held_out"] = mean(false);
  j["max_abs_error"] = c.max_abs_error();
  return j;
}

}  // namespace npu::calibrate
