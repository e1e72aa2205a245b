#include "calibrate/fit_keys.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace npu::calibrate {

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string fittable_list() {
  std::string s;
  for (const auto& f : schema::fields())
    if (f.fittable()) s += (s.empty() ? "" : ", ") + f.path();
  return s;
}

}  // namespace

std::vector<FitKey> parse_fit_keys(const std::string& list) {
  std::vector<FitKey> keys;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string path = list.substr(start, comma - start);
    path.erase(std::remove_if(path.begin(), path.end(), [](unsigned char c) { return std::isspace(c); }), path.end());
    start = comma + 1;
    if (path.empty()) continue;
    const schema::Field* field = nullptr;
    for (const auto& f : schema::fields())
      if (f.path() == path) field = &f;
    if (!field) {
      std::string best;
      std::size_t best_d = SIZE_MAX;
      for (const auto& f : schema::fields()) {
        const std::size_t d = edit_distance(path, f.path());
        if (d < best_d) best_d = d, best = f.path();
      }
      throw std::runtime_error(best_d * 3 <= path.size()
                                   ? fmt::format("--fit {}: not a config key, did you mean {}?", path, best)
                                   : fmt::format("--fit {}: not a config key (fittable keys: {})", path, fittable_list()));
    }
    if (!field->fittable())
      throw std::runtime_error(fmt::format(
          "--fit {}: not a fittable key: the schema gives it no plausible range (structural keys such as array shape, "
          "capacities and choices are not fitted; fittable keys: {})",
          path, fittable_list()));
    if (std::any_of(keys.begin(), keys.end(), [&](const FitKey& k) { return k.field == field; }))
      throw std::runtime_error(fmt::format("--fit {}: given twice", path));
    keys.push_back(FitKey{field});
  }
  if (keys.empty()) throw std::runtime_error("--fit: no key given (e.g. --fit clock.frequency_mhz,host.launch_us)");
  return keys;
}

double key_value(const FitKey& key, const HardwareConfig& config) {
  const schema::Slot slot = schema::slot_of(*key.field, config);
  if (const auto* d = std::get_if<double*>(&slot)) return **d;
  if (const auto* i = std::get_if<int*>(&slot)) return **i;
  throw std::logic_error(key.path() + ": not a numeric key");
}

void set_key_value(const FitKey& key, HardwareConfig& config, double value) {
  const schema::Slot slot = key.field->slot(config);
  if (auto* d = std::get_if<double*>(&slot)) **d = value;
  else if (auto* i = std::get_if<int*>(&slot)) **i = static_cast<int>(std::lround(value));
  else throw std::logic_error(key.path() + ": not a numeric key");
}

}  // namespace npu::calibrate
