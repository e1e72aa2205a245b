#include "calibrate/calibration.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "calibrate/least_squares.h"
#include "calibrate/simulated_latency.h"
#include "hwconfig/config_internal.h"

namespace npu::calibrate {

namespace {

using Vector = std::vector<double>;

// A key's fit coordinate: ln(value) for keys whose plausible range starts above zero (clock,
// bandwidth: they act multiplicatively), value / scale for overheads that may be zero.
struct Coordinate {
  FitKey key;
  bool log = true;
  double scale = 1;
  double to_u(double x) const { return log ? std::log(x) : x / scale; }
  double to_x(double u) const { return log ? std::exp(u) : u * scale; }
  double lower() const { return to_u(key.min()); }
  double upper() const { return to_u(key.max()); }
  // Large against cycle-level rounding; an integer key moves by at least two units.
  double difference_step() const {
    if (log) return key.integer() ? std::max(5e-3, std::log1p(2.0 / std::max(1.0, to_x(0)))) : 5e-3;
    return key.integer() ? std::max(5e-3, 2.0 / scale) : 5e-3;
  }
};

Coordinate coordinate_for(const FitKey& key, double base) {
  Coordinate c{key};
  c.log = key.min() > 0;
  if (!c.log) c.scale = std::max(std::fabs(base), 0.01 * (key.max() - key.min()));
  return c;
}

std::string number(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e5 || a < 1e-3) return fmt::format("{:.4g}", v);
  return fmt::format("{:.6g}", v);
}

double log_error(double sim, double measured) { return std::log(sim) - std::log(measured); }

// The fit's view of the simulator: each case simulated on its own base config (several when
// one fit covers several devices) with the fitted keys, which all devices share, set to u.
class Fitter {
 public:
  Fitter(const std::vector<HardwareConfig>& bases, std::vector<ModelCase> cases, const CalibrationOptions& options)
      : bases_(bases), options_(options), cases_(std::move(cases)) {
    for (const auto& k : options.keys) coords_.push_back(coordinate_for(k, key_value(k, bases_.front())));
    std::vector<std::vector<ModelCase>> per_config(bases_.size());
    for (const auto& c : cases_) {
      local_.emplace_back(c.config, per_config.at(c.config).size());
      per_config[c.config].push_back(c);
    }
    for (auto& cases_of_config : per_config) sims_.emplace_back(std::move(cases_of_config));
  }

  const std::vector<ModelCase>& cases() const { return cases_; }
  const std::vector<Coordinate>& coords() const { return coords_; }
  std::size_t simulations() const {
    std::size_t n = 0;
    for (const auto& s : sims_) n += s.simulations();
    return n;
  }
  std::size_t compilations() const {
    std::size_t n = 0;
    for (const auto& s : sims_) n += s.compilations();
    return n;
  }

  Vector start() const {
    Vector u;
    for (const auto& c : coords_)
      u.push_back(std::clamp(c.to_u(std::max(key_value(c.key, bases_.front()), c.log ? c.key.min() : -1e300)),
                             c.lower(), c.upper()));
    return snap(u);
  }

  Vector snap(Vector u) const {
    for (std::size_t j = 0; j < coords_.size(); ++j)
      if (coords_[j].key.integer()) u[j] = coords_[j].to_u(std::round(coords_[j].to_x(u[j])));
    return u;
  }

  HardwareConfig config_at(const Vector& u, std::size_t config = 0) const {
    HardwareConfig c = bases_.at(config);
    for (std::size_t j = 0; j < coords_.size(); ++j) set_key_value(coords_[j].key, c, coords_[j].to_x(u[j]));
    validate(c);
    return c;
  }

  const SimulatedCase& evaluate(const Vector& u, std::size_t index) {
    auto& row = cache_[u];
    if (row.size() != cases_.size()) row.resize(cases_.size());
    if (!row[index]) {
      const auto [config, local] = local_[index];
      row[index] = sims_[config].simulate(local, config_at(u, config), options_.fit_layers || has_layers(index));
    }
    return *row[index];
  }

  // Programs compiled for the configs at u from now on; returns how many changed.
  std::size_t compile_at(const Vector& u) {
    cache_.clear();
    std::size_t changed = 0;
    for (std::size_t config = 0; config < sims_.size(); ++config) changed += sims_[config].compile(config_at(u, config));
    resolve_layers();
    return changed;
  }

  Vector residuals(const Vector& u, const std::vector<std::size_t>& subset) {
    Vector r;
    for (std::size_t i : subset) {
      const auto& c = cases_[i];
      const auto& s = evaluate(u, i);
      const double w = 1.0 / std::sqrt(static_cast<double>(c.latencies_us.size()));
      for (double m : c.latencies_us) r.push_back(w * log_error(s.latency_us, m));
      if (!options_.fit_layers || layer_names_[i].empty()) continue;
      const double wl = 1.0 / std::sqrt(static_cast<double>(layer_names_[i].size()));
      for (std::size_t l = 0; l < layer_names_[i].size(); ++l)
        r.push_back(wl * log_error(std::max(layer_time(s, i, l), 1e-6), c.layers[l].time_us));
    }
    return r;
  }

  LeastSquaresResult fit(const Vector& from, const std::vector<std::size_t>& subset) {
    LeastSquaresProblem p;
    p.start = from;
    for (const auto& c : coords_) {
      p.lower.push_back(c.lower());
      p.upper.push_back(c.upper());
      p.difference_step.push_back(c.difference_step());
    }
    p.residuals = [this, subset](const Vector& u) { return residuals(u, subset); };
    p.snap = [this](const Vector& u) { return snap(u); };
    p.max_iterations = options_.max_iterations;
    return least_squares(p);
  }

  // Standard deviation of each coordinate at `u`: s^2 (J^T J)^-1 with J the residuals'
  // forward-difference Jacobian and s^2 the residual variance (sum of squares / (m - p)).
  std::vector<std::optional<double>> uncertainties(const Vector& u, const std::vector<std::size_t>& subset) {
    const std::size_t p = coords_.size();
    std::vector<std::optional<double>> out(p);
    const Vector r0 = residuals(u, subset);
    const std::size_t m = r0.size();
    if (m <= p) return out;
    std::vector<Vector> jac(p);
    for (std::size_t j = 0; j < p; ++j) {
      Vector v = u;
      const double h = coords_[j].difference_step();
      v[j] = u[j] + h <= coords_[j].upper() ? u[j] + h : u[j] - h;
      const double step = v[j] - u[j];
      const Vector r1 = residuals(v, subset);
      for (std::size_t k = 0; k < m; ++k) jac[j].push_back((r1[k] - r0[k]) / step);
    }
    double ssr = 0;
    for (double r : r0) ssr += r * r;
    const double variance = ssr / static_cast<double>(m - p);
    // (J^T J)^-1 by Gauss-Jordan on [A | I]; a singular A leaves every key without a figure.
    std::vector<Vector> a(p, Vector(2 * p, 0.0));
    for (std::size_t i = 0; i < p; ++i) {
      for (std::size_t j = 0; j < p; ++j)
        for (std::size_t k = 0; k < m; ++k) a[i][j] += jac[i][k] * jac[j][k];
      a[i][p + i] = 1;
    }
    for (std::size_t col = 0; col < p; ++col) {
      std::size_t pivot = col;
      for (std::size_t row = col + 1; row < p; ++row)
        if (std::fabs(a[row][col]) > std::fabs(a[pivot][col])) pivot = row;
      if (std::fabs(a[pivot][col]) < 1e-12) return out;
      std::swap(a[col], a[pivot]);
      const double d = a[col][col];
      for (double& x : a[col]) x /= d;
      for (std::size_t row = 0; row < p; ++row)
        if (row != col && a[row][col] != 0) {
          const double f = a[row][col];
          for (std::size_t k = 0; k < 2 * p; ++k) a[row][k] -= f * a[col][k];
        }
    }
    for (std::size_t j = 0; j < p; ++j)
      if (a[j][p + j] >= 0) out[j] = std::sqrt(variance * a[j][p + j]);
    return out;
  }

  // Sum of the simulated layers a measured layer stands for.
  double layer_time(const SimulatedCase& s, std::size_t index, std::size_t layer) const {
    double t = 0;
    for (const auto& name : layer_names_[index][layer])
      if (const auto it = s.layer_us.find(name); it != s.layer_us.end()) t += it->second;
    return t;
  }
  bool has_layers(std::size_t index) const { return !cases_[index].layers.empty(); }

 private:
  std::vector<HardwareConfig> bases_;
  const CalibrationOptions& options_;
  std::vector<ModelCase> cases_;
  std::vector<std::pair<std::size_t, std::size_t>> local_;  // case -> (config, index among that config's cases)
  std::vector<SimulatedLatency> sims_;                      // per config
  std::vector<Coordinate> coords_;
  std::map<Vector, std::vector<std::optional<SimulatedCase>>> cache_;
  std::vector<std::vector<std::vector<std::string>>> layer_names_;  // case -> measured layer -> sim layers

  // A measured layer names a simulated layer, or an ONNX node that one of them fused.
  void resolve_layers() {
    layer_names_.assign(cases_.size(), {});
    for (std::size_t i = 0; i < cases_.size(); ++i) {
      const auto& model = sims_[local_[i].first].compiled(local_[i].second);
      for (const auto& m : cases_[i].layers) {
        std::vector<std::string> names = m.sim_layers;
        if (names.empty())
          for (const auto& l : model.layers)
            if (l.name == m.layer || std::find(l.fused_nodes.begin(), l.fused_nodes.end(), m.layer) != l.fused_nodes.end()) {
              names.push_back(l.name);
              break;
            }
        for (const auto& n : names)
          if (std::none_of(model.layers.begin(), model.layers.end(), [&](const auto& l) { return l.name == n; }))
            names.clear();
        if (names.empty())
          throw std::runtime_error(fmt::format("{}: layer {} is neither a layer nor an ONNX node of {} as compiled",
                                               m.origin, m.layer, cases_[i].model_path));
        layer_names_[i].push_back(names);
      }
    }
  }
};

std::vector<std::size_t> all_but(std::size_t n, std::size_t skip) {
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i < n; ++i)
    if (i != skip) v.push_back(i);
  return v;
}

double geometric_mean(const Vector& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

}  // namespace

std::string today() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

Calibration calibrate(const HardwareConfig& base, std::vector<ModelCase> cases, const CalibrationOptions& options) {
  return calibrate(std::vector<HardwareConfig>{base}, std::move(cases), options);
}

Calibration calibrate(const std::vector<HardwareConfig>& bases, std::vector<ModelCase> cases,
                      const CalibrationOptions& options) {
  if (cases.empty()) throw std::runtime_error("calibrate: no measurements");
  if (bases.empty()) throw std::runtime_error("calibrate: no base config");
  const HardwareConfig& base = bases.front();
  Calibration out;
  out.bases = bases;
  out.base = base;
  out.fitted = base;
  out.fitted_configs = bases;
  for (const auto& c : cases)
    if (c.config >= bases.size())
      throw std::runtime_error(fmt::format("calibrate: {} is measured on config {} of {}", c.label(), c.config + 1,
                                           bases.size()));
  for (const auto& c : options.predict)
    if (c.config >= bases.size())
      throw std::runtime_error(fmt::format("calibrate: {} is predicted on config {} of {}", c.label(), c.config + 1,
                                           bases.size()));
  for (const HardwareConfig& b : bases)
    for (const FitKey& key : options.keys) {
      const auto p = b.provenance.find(key.path());
      if (p != b.provenance.end() && p->second.kind == KeyProvenance::Kind::Public && !options.allow_public)
        throw std::runtime_error(fmt::format("--fit {}: {} marks it public ({}); a published value stays as published: "
                                             "fit what is not published, or pass --allow-public",
                                             key.path(), b.name, p->second.detail));
    }
  const auto label = [&](const ModelCase& c) {
    return bases.size() > 1 ? c.label() + " on " + bases[c.config].name : c.label();
  };
  Fitter fitter(bases, cases, options);
  const std::size_t n = cases.size();
  std::vector<std::size_t> everything = all_but(n, n);

  Vector u = fitter.start();
  fitter.compile_at(fitter.start());
  Vector base_us;
  for (std::size_t i = 0; i < n; ++i) base_us.push_back(fitter.evaluate(fitter.start(), i).latency_us);

  // A key that moves no simulated latency cannot be fitted: say so instead of returning its
  // start value as if the measurements had confirmed it.
  for (std::size_t j = 0; j < fitter.coords().size(); ++j) {
    const auto& c = fitter.coords()[j];
    const double x0 = c.to_x(u[j]);
    double x1 = c.log ? x0 * 1.25 : x0 + 0.1 * (c.key.max() - c.key.min());
    if (x1 > c.key.max()) x1 = c.log ? x0 / 1.25 : x0 - 0.1 * (c.key.max() - c.key.min());
    Vector probe = u;
    probe[j] = c.to_u(x1);
    probe = fitter.snap(probe);
    bool moves = false;
    for (std::size_t i = 0; i < n && !moves; ++i)
      moves = std::fabs(fitter.evaluate(probe, i).latency_us - base_us[i]) > 1e-9 * base_us[i];
    if (!moves)
      throw std::runtime_error(fmt::format(
          "--fit {}: changing it from {} to {} {} changes the simulated latency of none of the {} measured model(s) "
          "on {}: nothing to fit",
          c.key.path(), number(x0), number(c.to_x(probe[j])), c.key.unit(), n, base.name));
  }

  LeastSquaresResult result;
  for (int round = 1; round <= options.max_rounds; ++round) {
    result = fitter.fit(u, everything);
    u = result.x;
    std::string line = fmt::format("round {}: {} in {} iterations ({}), rms log error {:.4f}", round,
                                   result.converged ? "converged" : "did not converge", result.iterations,
                                   result.reason, std::sqrt(2 * result.cost / static_cast<double>(n)));
    if (!result.converged) {
      out.rounds.push_back(line);
      break;
    }
    const std::size_t changed = fitter.compile_at(u);
    line += changed == 0 ? "; recompiled at the fitted values: every program the same"
                         : fmt::format("; recompiled at the fitted values: {} of {} programs changed", changed, n);
    out.rounds.push_back(line);
    if (changed == 0) break;
    if (round == options.max_rounds)
      out.rounds.push_back(fmt::format("programs still change after {} rounds: the fitted latencies are those of the "
                                       "fitted config's own programs", options.max_rounds));
  }
  out.converged = result.converged;
  out.reason = result.reason;
  const HardwareConfig fitted = fitter.config_at(u);
  std::vector<HardwareConfig> fitted_configs;
  for (std::size_t config = 0; config < bases.size(); ++config) fitted_configs.push_back(fitter.config_at(u, config));

  const std::vector<std::optional<double>> sigma = out.converged ? fitter.uncertainties(u, everything)
                                                                  : std::vector<std::optional<double>>(fitter.coords().size());
  for (std::size_t j = 0; j < fitter.coords().size(); ++j) {
    const auto& c = fitter.coords()[j];
    KeyFit k{c.key, key_value(c.key, base), key_value(c.key, fitted), false, std::nullopt};
    k.at_bound = std::fabs(u[j] - c.lower()) < 1e-9 || std::fabs(u[j] - c.upper()) < 1e-9;
    if (sigma[j]) k.uncertainty = std::fabs(c.to_x(u[j] + *sigma[j]) - c.to_x(u[j]));
    out.keys.push_back(k);
  }

  for (std::size_t i = 0; i < n; ++i) {
    CaseFit f;
    f.label = label(cases[i]);
    f.measured_us = cases[i].latencies_us;
    f.base_us = base_us[i];
    f.fitted_us = fitter.evaluate(u, i).latency_us;
    out.cases.push_back(f);
  }
  {
    Vector errors;
    for (std::size_t i = 0; i < n; ++i) errors.push_back(std::fabs(out.cases[i].fitted_us / geometric_mean(cases[i].latencies_us) - 1));
    std::sort(errors.begin(), errors.end());
    out.training_median_abs_error =
        errors.size() % 2 ? errors[errors.size() / 2] : 0.5 * (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]);
  }

  if (!out.converged) {
    out.fitted = base;
  } else {
    out.fitted = fitted;
    out.fitted_configs = fitted_configs;
    if (options.leave_one_out && n >= 2) {
      Vector errors;
      for (std::size_t i = 0; i < n; ++i) {
        const auto loo = fitter.fit(u, all_but(n, i));
        out.cases[i].leave_one_out_us = fitter.evaluate(loo.x, i).latency_us;
        out.cases[i].leave_one_out_converged = loo.converged;
        errors.push_back(std::fabs(*out.cases[i].leave_one_out_us / geometric_mean(cases[i].latencies_us) - 1));
      }
      std::sort(errors.begin(), errors.end());
      out.leave_one_out_median_abs_error =
          errors.size() % 2 ? errors[errors.size() / 2] : 0.5 * (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]);
    } else if (options.leave_one_out) {
      out.leave_one_out_note = "leave-one-out needs measurements of two or more models";
    }
  }

  // Measured layers: simulated with the base and the fitted config.
  for (std::size_t i = 0; i < n; ++i) {
    if (cases[i].layers.empty()) continue;
    const auto& s = fitter.evaluate(u, i);
    for (std::size_t l = 0; l < cases[i].layers.size(); ++l)
      out.layers.push_back({label(cases[i]), cases[i].layers[l].layer, cases[i].layers[l].time_us, 0.0,
                            fitter.layer_time(s, i, l)});
  }
  if (!out.layers.empty()) {
    Fitter at_base(bases, cases, options);
    at_base.compile_at(at_base.start());
    std::size_t row = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t l = 0; l < cases[i].layers.size(); ++l)
        out.layers[row++].base_us = at_base.layer_time(at_base.evaluate(at_base.start(), i), i, l);
    out.simulations += at_base.simulations();
    out.compilations += at_base.compilations();
  }

  for (std::size_t config = 0; config < bases.size(); ++config) {
    std::vector<ModelCase> predict;
    for (const auto& c : options.predict)
      if (c.config == config) predict.push_back(c);
    if (predict.empty()) continue;
    SimulatedLatency at_base(predict), at_fit(predict);
    at_base.compile(bases[config]);
    at_fit.compile(out.fitted_configs[config]);
    for (std::size_t i = 0; i < predict.size(); ++i) {
      CaseFit f;
      f.label = label(predict[i]);
      f.measured_us = predict[i].latencies_us;
      f.base_us = at_base.simulate(i, bases[config]).latency_us;
      f.fitted_us = at_fit.simulate(i, out.fitted_configs[config]).latency_us;
      out.predicted.push_back(f);
    }
    out.simulations += at_base.simulations() + at_fit.simulations();
    out.compilations += at_base.compilations() + at_fit.compilations();
  }
  out.simulations += fitter.simulations();
  out.compilations += fitter.compilations();
  return out;
}

namespace {

std::string ms(double us) { return fmt::format("{:.4g}", us / 1000.0); }

std::string measured_text(const Vector& v) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : ", ") + ms(x);
  return s;
}

// Error against each measurement, "+3.1%" or "+3.1% / -0.4%".
std::string errors_text(double sim, const Vector& measured) {
  std::string s;
  for (double m : measured) s += (s.empty() ? "" : " / ") + signed_percent(sim / m - 1);
  return s;
}

}  // namespace

std::string format_calibration(const Calibration& c) {
  std::string out;
  std::size_t w = 26;  // the model column: as wide as the longest label
  for (const auto* list : {&c.cases, &c.predicted})
    for (const auto& f : *list) w = std::max(w, f.label.size());
  std::size_t measurements = 0;
  for (const auto& f : c.cases) measurements += f.measured_us.size();
  std::string keys;
  for (const auto& k : c.keys) keys += (keys.empty() ? "" : ", ") + k.key.path();
  std::string configs;
  for (const auto& b : c.bases.empty() ? std::vector<HardwareConfig>{c.base} : c.bases)
    configs += (configs.empty() ? "" : " + ") + fmt::format("{} ({})", b.name, b.source_path);
  out += fmt::format("calibrating {} to {} measurement(s) of {} model(s): fitting {}{}\n", configs, measurements,
                     c.cases.size(), keys, c.bases.size() > 1 ? " (one value of each key for every config)" : "");
  for (const auto& r : c.rounds) out += "  " + r + "\n";
  out += fmt::format("  {} compilations, {} simulations\n\n", c.compilations, c.simulations);

  out += fmt::format("{:<28} {:>14} {:>14} {:>12} {:>9}  {:<10} {}\n", "key", "base", "fitted", "± 1 sigma", "change",
                     "unit", "plausible range");
  for (const auto& k : c.keys)
    out += fmt::format("{:<28} {:>14} {:>14} {:>12} {:>9}  {:<10} [{}, {}]{}\n", k.key.path(), number(k.base),
                       number(k.fitted), k.uncertainty ? number(*k.uncertainty) : "-",
                       k.base != 0 ? signed_percent(k.fitted / k.base - 1) : "-", k.key.unit(), number(k.key.min()),
                       number(k.key.max()), k.at_bound ? "  <- at the edge of its plausible range" : "");

  out += fmt::format("\n{:<{}} {:>18} {:>12} {:>12}  {}\n", "model", w, "measured ms", "base sim ms", "fitted ms",
                     "fitted vs measured");
  for (const auto& f : c.cases)
    out += fmt::format("{:<{}} {:>18} {:>12} {:>12}  {}\n", f.label, w, measured_text(f.measured_us), ms(f.base_us),
                       ms(f.fitted_us), errors_text(f.fitted_us, f.measured_us));

  if (c.leave_one_out_median_abs_error) {
    out += "\nleave-one-out: each model predicted by the fit made without it\n";
    out += fmt::format("{:<{}} {:>18} {:>12}  {}\n", "model", w, "measured ms", "predicted ms", "error");
    for (const auto& f : c.cases)
      out += fmt::format("{:<{}} {:>18} {:>12}  {}{}\n", f.label, w, measured_text(f.measured_us), ms(*f.leave_one_out_us),
                         errors_text(*f.leave_one_out_us, f.measured_us),
                         f.leave_one_out_converged ? "" : "  (that fit did not converge)");
    out += fmt::format("median |error| {:.1f}% (against the geometric mean of each model's measurements); training "
                       "median |error| {:.1f}%{}\n",
                       100.0 * *c.leave_one_out_median_abs_error, 100.0 * c.training_median_abs_error,
                       c.overfit() ? ": more than twice the training error, the fit follows these models rather than "
                                     "the device"
                                   : "");
  } else if (!c.leave_one_out_note.empty()) {
    out += "\n" + c.leave_one_out_note + "\n";
  }

  if (!c.predicted.empty()) {
    out += "\nheld out (predicted with the fitted config, never fitted to)\n";
    out += fmt::format("{:<{}} {:>18} {:>12} {:>12}  {}\n", "model", w, "measured ms", "base sim ms", "predicted ms",
                       "error");
    Vector errors;
    for (const auto& f : c.predicted) {
      out += fmt::format("{:<{}} {:>18} {:>12} {:>12}  {}\n", f.label, w, measured_text(f.measured_us), ms(f.base_us),
                         ms(f.fitted_us), errors_text(f.fitted_us, f.measured_us));
      errors.push_back(std::fabs(f.fitted_us / geometric_mean(f.measured_us) - 1));
    }
    std::sort(errors.begin(), errors.end());
    const double median = errors.size() % 2 ? errors[errors.size() / 2]
                                            : 0.5 * (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]);
    out += fmt::format("median |error| {:.1f}%\n", 100.0 * median);
  }

  if (!c.layers.empty()) {
    out += "\nmeasured layers\n";
    out += fmt::format("{:<{}} {:<32} {:>12} {:>12} {:>12}  {}\n", "model", w, "layer", "measured us", "base sim us",
                       "fitted us", "fitted vs measured");
    for (const auto& l : c.layers)
      out += fmt::format("{:<{}} {:<32} {:>12.1f} {:>12.1f} {:>12.1f}  {}\n", l.model, w, l.layer, l.measured_us, l.base_us,
                         l.fitted_us, signed_percent(l.fitted_us / l.measured_us - 1));
  }
  return out;
}

std::string fitted_config_yaml(const Calibration& c, const std::string& name, const std::string& date,
                               const std::string& measurements, const std::string& command) {
  HardwareConfig fitted = c.fitted;
  fitted.name = name;
  for (const auto& k : c.keys) {
    KeyProvenance p;
    p.kind = KeyProvenance::Kind::Fitted;
    p.date = date;
    p.detail = fmt::format("{} (base {} = {})", measurements, c.base.name, number(k.base));
    fitted.provenance[k.key.path()] = p;
  }
  std::string out = fmt::format("# {} fitted by: {}\n", name, command);
  for (const auto& k : c.keys)
    out += fmt::format("#   {}: {} -> {} {}\n", k.key.path(), number(k.base), number(k.fitted), k.key.unit());
  if (c.leave_one_out_median_abs_error)
    out += fmt::format("#   leave-one-out median |error| {:.1f}% over {} models\n", 100 * *c.leave_one_out_median_abs_error,
                       c.cases.size());
  return out + dump_hardware_config(fitted);
}

}  // namespace npu::calibrate
