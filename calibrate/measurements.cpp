#include "calibrate/measurements.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace npu::calibrate {

namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    out.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// A model named in a measurement file: relative to that file's folder, else to the working
// directory (where `npusim compare` was run).
std::string resolve_model(const std::string& model, const std::string& file, const std::string& where) {
  if (model.empty()) throw std::runtime_error(where + ": no model file given");
  const fs::path p(model);
  std::error_code ec;
  if (p.is_absolute()) {
    if (fs::is_regular_file(p, ec)) return p.string();
    throw std::runtime_error(fmt::format("{}: model {}: no such file", where, model));
  }
  const fs::path beside = fs::path(file).parent_path() / p;
  if (fs::is_regular_file(beside, ec)) return beside.lexically_normal().string();
  if (fs::is_regular_file(p, ec)) return p.lexically_normal().string();
  throw std::runtime_error(fmt::format("{}: model {}: no such file (looked beside {} and in the working directory)", where,
                                       model, file));
}

double positive_number(const std::string& text, const std::string& where, const char* column) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || !std::isfinite(v) || v <= 0)
    throw std::runtime_error(fmt::format("{}: {} must be a positive number (got \"{}\")", where, column, text));
  return v;
}

std::string check_precision(const std::string& p, const std::string& where) {
  if (p == "int8" || p == "fp16") return p;
  if (p.empty()) return "int8";
  throw std::runtime_error(fmt::format("{}: precision must be int8 or fp16 (got \"{}\")", where, p));
}

std::string check_shape(const std::string& shape, const std::string& where) {
  const std::string dims = shape.substr(shape.find('=') == std::string::npos ? 0 : shape.find('=') + 1);
  bool ok = !shape.empty() ? !dims.empty() : true;
  for (char c : dims) ok = ok && (std::isdigit(static_cast<unsigned char>(c)) || c == 'x');
  if (!ok || (!dims.empty() && (dims.front() == 'x' || dims.back() == 'x' || dims.find("xx") != std::string::npos)))
    throw std::runtime_error(
        fmt::format("{}: input_shape must be like 1x3x224x224 or NAME=1x3x224x224 (got \"{}\")", where, shape));
  return shape;
}

ModelCase& case_for(std::vector<ModelCase>& cases, const std::string& model, const std::string& shape,
                    const std::string& precision, std::size_t config) {
  for (auto& c : cases)
    if (c.model_path == model && c.input_shape == shape && c.precision == precision && c.config == config) return c;
  cases.push_back(ModelCase{model, shape, precision, {}, {}, {}, config});
  return cases.back();
}

void add_latency(ModelCase& c, double us, const std::string& origin) {
  c.latencies_us.push_back(us);
  c.origins.push_back(origin);
}

void read_csv(const std::string& path, std::vector<ModelCase>& cases, std::size_t config) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open file");
  std::string line;
  int line_no = 0;
  bool any = false;
  // Layer rows give the model's latency too; count it once per model unless a row without a
  // layer gives it.
  struct Pending {
    std::size_t index;  // into cases, which may grow meanwhile
    double us;
    std::string origin;
  };
  std::vector<Pending> from_layer_rows;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string where = fmt::format("{}:{}", path, line_no);
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    auto f = split_csv(t);
    if (!any && !f.empty() && f[0] == "model") {  // header
      any = true;
      continue;
    }
    any = true;
    if (f.size() != 4 && f.size() != 6)
      throw std::runtime_error(fmt::format(
          "{}: expected 4 or 6 fields model,input_shape,precision,latency_ms[,layer,layer_ms] (got {})", where, f.size()));
    const std::string model = resolve_model(f[0], path, where);
    const std::string shape = check_shape(f[1], where);
    const std::string precision = check_precision(f[2], where);
    const double latency_us = positive_number(f[3], where, "latency_ms") * 1000.0;
    ModelCase& c = case_for(cases, model, shape, precision, config);
    if (f.size() == 4 || (f[4].empty() && f[5].empty())) {
      add_latency(c, latency_us, where);
      continue;
    }
    if (f[4].empty()) throw std::runtime_error(where + ": layer_ms given without a layer name");
    c.layers.push_back(MeasuredLayer{f[4], {}, positive_number(f[5], where, "layer_ms") * 1000.0, where});
    from_layer_rows.push_back({static_cast<std::size_t>(&c - cases.data()), latency_us, where});
  }
  if (!any) throw std::runtime_error(path + ": no measurements (expected rows model,input_shape,precision,latency_ms)");
  for (const auto& p : from_layer_rows) {
    ModelCase& c = cases[p.index];
    if (std::none_of(c.latencies_us.begin(), c.latencies_us.end(),
                     [&](double us) { return std::fabs(us - p.us) <= 1e-9 * p.us; }))
      add_latency(c, p.us, p.origin);
  }
}

void read_compare_json(const std::string& path, const std::string& device, std::vector<ModelCase>& cases,
                       std::size_t config) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  if (!j.is_object() || !j.contains("model") || !j.contains("devices") || !j["devices"].is_array())
    throw std::runtime_error(path + ": not the output of npusim compare --json (no \"model\" and \"devices\")");
  std::vector<const nlohmann::json*> measured;
  std::string names;
  for (const auto& d : j["devices"])
    if (!d.value("simulated", false)) {
      names += (names.empty() ? "" : ", ") + d.value("device", std::string("?"));
      if (device.empty() || d.value("device", std::string()) == device) measured.push_back(&d);
    }
  if (measured.empty())
    throw std::runtime_error(device.empty() ? fmt::format("{}: no measured device in this comparison", path)
                                            : fmt::format("{}: no device {} (measured: {})", path, device, names));
  if (measured.size() > 1)
    throw std::runtime_error(fmt::format("{}: measured on several devices ({}); choose one with --device", path, names));
  const auto& d = *measured.front();
  const std::string where = fmt::format("{} ({})", path, d.value("device", std::string("?")));
  const double median = d.contains("latency_us") ? d["latency_us"].value("median", 0.0) : 0.0;
  if (!(median > 0)) throw std::runtime_error(where + ": no positive median latency");
  const std::string model = resolve_model(j["model"].get<std::string>(), path, where);
  const std::string precision = check_precision(j.value("precision", std::string("int8")), where);
  ModelCase& c = case_for(cases, model, "", precision, config);
  add_latency(c, median, where);
  if (d.contains("per_layer") && d["per_layer"].contains("rows"))
    for (const auto& row : d["per_layer"]["rows"]) {
      const double us = row.value("measured_us", 0.0);
      const auto sim = row.value("sim_layers", std::vector<std::string>{});
      if (us > 0 && !sim.empty()) c.layers.push_back(MeasuredLayer{sim.front(), sim, us, where});
    }
}

}  // namespace

std::string ModelCase::label() const {
  std::string s = fs::path(model_path).stem().string();
  if (!input_shape.empty()) s += "@" + input_shape.substr(input_shape.find('=') == std::string::npos ? 0 : input_shape.find('=') + 1);
  if (precision != "int8") s += " " + precision;
  return s;
}

void read_measurements(const std::string& path, const std::string& device, std::vector<ModelCase>& cases,
                       std::size_t config) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw std::runtime_error(path + ": no such file");
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".json") read_compare_json(path, device, cases, config);
  else read_csv(path, cases, config);
}

std::string signed_percent(double fraction) { return fmt::format("{:+.1f}%", 100.0 * fraction); }

}  // namespace npu::calibrate
