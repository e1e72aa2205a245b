// Reading configs/tech/<node>nm.yaml into a TechTable. Every key the reader needs is checked
// for presence and type; a problem is one TechTableError line naming the file and key path.
#include "techmodel/tech_table.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

namespace npu::tech {
namespace {

namespace fs = std::filesystem;

constexpr int kFormatVersion = 1;
constexpr const char* kFormat = "npusim-tech-table";

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
    throw TechTableError(file_ + ": " + (path.empty() ? "" : path + ": ") + problem);
  }

  YAML::Node child(const YAML::Node& parent, const std::string& parent_path, const std::string& key) const {
    const std::string path = parent_path.empty() ? key : parent_path + "." + key;
    if (!parent.IsMap()) fail(parent_path, "expected a mapping");
    YAML::Node n = parent[key];
    if (!n) fail(path, "missing");
    return n;
  }

  // A number, or NaN for null when `nullable`.
  double number(const YAML::Node& n, const std::string& path, bool nullable = false) const {
    if (n.IsNull()) {
      if (nullable) return NAN;
      fail(path, "expected a number (got null)");
    }
    if (!n.IsScalar()) fail(path, "expected a number");
    try {
      return n.as<double>();
    } catch (const YAML::Exception&) {
      fail(path, "expected a number (got \"" + n.Scalar() + "\")");
    }
  }

  int integer(const YAML::Node& n, const std::string& path) const {
    const double v = number(n, path);
    if (v != std::floor(v) || v < 1 || v > 1e9) fail(path, "expected a positive integer");
    return static_cast<int>(v);
  }

  std::string text(const YAML::Node& n, const std::string& path) const {
    if (!n.IsScalar()) fail(path, "expected a string");
    return n.Scalar();
  }

  std::vector<double> numbers(const YAML::Node& n, const std::string& path, bool nullable) const {
    if (!n.IsSequence()) fail(path, "expected a list");
    std::vector<double> out;
    for (std::size_t i = 0; i < n.size(); ++i)
      out.push_back(number(n[i], path + "[" + std::to_string(i) + "]", nullable));
    return out;
  }

  template <typename T>
  std::vector<T> increasing_axis(const YAML::Node& axes, const std::string& key) const {
    const std::string path = "sram.axes." + key;
    std::vector<T> out;
    for (double v : numbers(child(axes, "sram.axes", key), path, false)) {
      if (!(v > 0)) fail(path, "values must be positive");
      if (!out.empty() && !(v > static_cast<double>(out.back()))) fail(path, "values must increase");
      out.push_back(static_cast<T>(v));
    }
    if (out.empty()) fail(path, "empty");
    return out;
  }

  Component component(const YAML::Node& n, const std::string& path) const {
    Component c;
    c.energy_pj = number(child(n, path, "energy_pj"), path + ".energy_pj");
    c.area_um2 = number(child(n, path, "area_um2"), path + ".area_um2");
    c.leakage_uw = number(child(n, path, "leakage_uw"), path + ".leakage_uw", true);
    return c;
  }

 private:
  std::string file_;
};

bool positive_or_nan(double v) { return std::isnan(v) || v > 0; }

TechTable parse(const std::string& file) {
  Reader r(file);
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) r.fail("", "no such technology table");
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::Exception& e) {
    r.fail("", "invalid YAML: " + e.msg);
  }
  if (!root.IsMap()) r.fail("", "expected a mapping at the top level");
  if (r.text(r.child(root, "", "format"), "format") != kFormat)
    r.fail("format", std::string("expected \"") + kFormat + "\"");
  const int version = r.integer(r.child(root, "", "format_version"), "format_version");
  if (version != kFormatVersion)
    r.fail("format_version", "this npusim reads version " + std::to_string(kFormatVersion) + " (got " +
                                 std::to_string(version) + ")");

  TechTable t;
  t.path = file;
  t.node_nm = r.integer(r.child(root, "", "node_nm"), "node_nm");

  const YAML::Node sram = r.child(root, "", "sram");
  const YAML::Node axes = r.child(sram, "sram", "axes");
  t.capacity_kib = r.increasing_axis<double>(axes, "capacity_kib");
  t.rw_ports = r.increasing_axis<int>(axes, "rw_ports");
  t.banks = r.increasing_axis<int>(axes, "banks");
  t.port_bytes = r.increasing_axis<int>(axes, "port_bytes");
  const YAML::Node series = r.child(sram, "sram", "series");
  if (!series.IsSequence()) r.fail("sram.series", "expected a list");
  for (std::size_t i = 0; i < series.size(); ++i) {
    const std::string path = "sram.series[" + std::to_string(i) + "]";
    const YAML::Node s = series[i];
    SramSeries out;
    out.rw_ports = r.integer(r.child(s, path, "rw_ports"), path + ".rw_ports");
    out.banks = r.integer(r.child(s, path, "banks"), path + ".banks");
    out.port_bytes = r.integer(r.child(s, path, "port_bytes"), path + ".port_bytes");
    std::pair<const char*, std::vector<double>*> fields[] = {{"read_pj_per_byte", &out.read_pj_per_byte},
                                                             {"write_pj_per_byte", &out.write_pj_per_byte},
                                                             {"leakage_mw", &out.leakage_mw},
                                                             {"area_mm2", &out.area_mm2},
                                                             {"access_ns", &out.access_ns}};
    for (auto& [key, values] : fields) {
      const std::string fpath = path + "." + key;
      *values = r.numbers(r.child(s, path, key), fpath, true);
      if (values->size() != t.capacity_kib.size())
        r.fail(fpath, std::to_string(values->size()) + " values for " + std::to_string(t.capacity_kib.size()) +
                          " capacities");
      for (double v : *values)
        if (!positive_or_nan(v)) r.fail(fpath, "values must be positive (the reader interpolates their logs)");
    }
    if (t.find_sram(out.rw_ports, out.banks, out.port_bytes)) r.fail(path, "series given twice");
    t.sram.push_back(std::move(out));
  }
  for (int p : t.rw_ports)
    for (int b : t.banks)
      for (int w : t.port_bytes)
        if (!t.find_sram(p, b, w))
          r.fail("sram.series", "no series for rw_ports " + std::to_string(p) + ", banks " + std::to_string(b) +
                                    ", port_bytes " + std::to_string(w));
  const YAML::Node monotone =
      r.child(r.child(root, "", "checks"), "checks", "sram_monotonic_over_capacity");
  t.sram_monotonic = r.number(r.child(monotone, "checks.sram_monotonic_over_capacity", "violations"),
                              "checks.sram_monotonic_over_capacity.violations") == 0;

  const YAML::Node mac = r.child(root, "", "mac");
  const YAML::Node units = r.child(mac, "mac", "units_per_mac");
  t.mac_int8 = r.component(r.child(units, "mac.units_per_mac", "int8"), "mac.units_per_mac.int8");
  t.mac_fp16 = r.component(r.child(units, "mac.units_per_mac", "fp16"), "mac.units_per_mac.fp16");
  const YAML::Node pe = r.child(mac, "mac", "pe_registers");
  t.pe_registers.energy_pj = r.number(r.child(pe, "mac.pe_registers", "energy_pj_per_mac"),
                                      "mac.pe_registers.energy_pj_per_mac");
  t.pe_registers.area_um2 = r.number(r.child(pe, "mac.pe_registers", "area_um2"), "mac.pe_registers.area_um2");
  t.pe_registers.leakage_uw =
      r.number(r.child(pe, "mac.pe_registers", "leakage_uw"), "mac.pe_registers.leakage_uw", true);

  const YAML::Node components = r.child(r.child(root, "", "vector"), "vector", "components");
  t.vector_int_lane = r.component(r.child(components, "vector.components", "int_lane_requant"),
                                  "vector.components.int_lane_requant");
  t.vector_fp_lane =
      r.component(r.child(components, "vector.components", "fp_lane_fma"), "vector.components.fp_lane_fma");
  t.register_32b =
      r.component(r.child(components, "vector.components", "register_32b"), "vector.components.register_32b");

  const YAML::Node channels = r.child(r.child(root, "", "dma"), "dma", "channel");
  if (!channels.IsSequence() || channels.size() == 0) r.fail("dma.channel", "expected a non-empty list");
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const std::string path = "dma.channel[" + std::to_string(i) + "]";
    DmaChannel c;
    c.width_bytes = r.integer(r.child(channels[i], path, "width_bytes"), path + ".width_bytes");
    c.energy_pj_per_byte =
        r.number(r.child(channels[i], path, "energy_pj_per_byte"), path + ".energy_pj_per_byte");
    c.area_um2 = r.number(r.child(channels[i], path, "area_um2"), path + ".area_um2");
    c.leakage_uw = r.number(r.child(channels[i], path, "leakage_uw"), path + ".leakage_uw", true);
    if (!t.dma_channels.empty() && c.width_bytes <= t.dma_channels.back().width_bytes)
      r.fail(path + ".width_bytes", "widths must increase");
    t.dma_channels.push_back(c);
  }

  const YAML::Node dram = r.child(r.child(root, "", "dram"), "dram", "technologies");
  if (!dram.IsSequence()) r.fail("dram.technologies", "expected a list");
  for (std::size_t i = 0; i < dram.size(); ++i) {
    const std::string path = "dram.technologies[" + std::to_string(i) + "]";
    DramTechnology d;
    d.technology = r.text(r.child(dram[i], path, "technology"), path + ".technology");
    const double pj = r.number(r.child(dram[i], path, "energy_pj_per_bit"), path + ".energy_pj_per_bit", true);
    if (!std::isnan(pj)) d.energy_pj_per_bit = pj;
    d.source = r.text(r.child(dram[i], path, "source"), path + ".source");
    if (dram[i]["note"] && dram[i]["note"].IsScalar()) d.note = dram[i]["note"].Scalar();
    t.dram.push_back(std::move(d));
  }
  return t;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

const SramSeries* TechTable::find_sram(int p, int b, int w) const {
  for (const auto& s : sram)
    if (s.rw_ports == p && s.banks == b && s.port_bytes == w) return &s;
  return nullptr;
}

const DramTechnology* TechTable::find_dram(const std::string& technology) const {
  for (const auto& d : dram)
    if (lower(d.technology) == lower(technology)) return &d;
  return nullptr;
}

std::string TechTable::dram_names() const {
  std::string out;
  std::vector<std::string> seen;
  for (const auto& d : dram) {
    if (std::find(seen.begin(), seen.end(), d.technology) != seen.end()) continue;
    seen.push_back(d.technology);
    out += (out.empty() ? "" : ", ") + d.technology;
  }
  return out;
}

std::shared_ptr<const TechTable> load_tech_table(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const TechTable>> cache;
  // Keyed by the file's identity and stamp, so a regenerated table is read again.
  std::error_code ec;
  std::string key = fs::weakly_canonical(path, ec).string();
  if (ec) key = path;
  const auto size = fs::file_size(path, ec);
  if (!ec) key += "@" + std::to_string(size);
  const auto time = fs::last_write_time(path, ec);
  if (!ec) key += "@" + std::to_string(time.time_since_epoch().count());
  std::lock_guard<std::mutex> lock(mutex);  // parsing once matters more than parallel first reads
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  auto table = std::make_shared<const TechTable>(parse(path));
  cache.emplace(key, table);
  return table;
}

namespace {

std::string tech_dir() {
  if (const char* env = std::getenv("NPUSIM_TECH_DIR"); env && *env) return env;
  return NPUSIM_TECH_DIR;  // configs/tech of the checkout this was built from (CMake)
}

}  // namespace

std::string default_tech_table_path(int node_nm) {
  return (fs::path(tech_dir()) / (std::to_string(node_nm) + "nm.yaml")).string();
}

std::vector<int> available_tech_nodes() {
  std::vector<int> nodes;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(tech_dir(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 8 || name.compare(name.size() - 7, 7, "nm.yaml") != 0) continue;
    const std::string digits = name.substr(0, name.size() - 7);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), ::isdigit) || digits.size() > 6) continue;
    nodes.push_back(std::stoi(digits));
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

}  // namespace npu::tech
