// YAML front end of HardwareConfig: load (with `base:` inheritance), parse, dump.
// Every key is looked up in the schema table (config_schema.cpp); nothing here names a
// specific key except `base`.
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "hwconfig/config_internal.h"
#include "hwconfig/hardware_config.h"

namespace npu {
namespace {

namespace fs = std::filesystem;
using detail::fail;
using detail::quote;
using schema::Field;
using schema::Kind;

constexpr std::uintmax_t kMaxFileBytes = 1 << 20;  // a config is a page of text
constexpr std::size_t kMaxBaseDepth = 16;

// One key's value and the file it was written in (for messages after a `base:` merge).
struct Leaf {
  YAML::Node node;
  std::string file;
};

// A config file with its bases merged in, before conversion to the struct.
struct Layer {
  std::map<std::string, Leaf> values;  // key path ("ddr.banks") -> value
  std::set<std::string> sections;      // sections written, even if empty (`energy: {}`)
  std::map<std::string, KeyProvenance> provenance;  // key path -> where its value comes from
};

const Field* find_field(const std::string& section, const std::string& key) {
  for (const auto& f : schema::fields())
    if (section == f.section && key == f.key) return &f;
  return nullptr;
}

bool is_section(const std::string& name) {
  for (const auto& s : schema::sections())
    if (name == s.name) return true;
  return false;
}

std::string describe(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null: return "null";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return quote(n.Scalar());
    default: return "nothing";
  }
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

[[noreturn]] void unknown_key(const std::string& file, const std::string& section,
                              const std::string& key) {
  const std::string path = section.empty() ? key : section + "." + key;
  // The right key in the wrong place: `bandwidth_gbps` at top level or under `sram`.
  for (const auto& f : schema::fields())
    if (*f.section && section != f.section && key == f.key)
      fail(file, path, "unknown key, did you mean \"" + f.path() + "\"?");

  std::vector<std::string> valid;
  if (section.empty()) {
    for (const auto& f : schema::fields())
      if (!*f.section) valid.push_back(f.key);
    valid.push_back("base");
    valid.push_back("provenance");
    for (const auto& s : schema::sections()) valid.push_back(s.name);
  } else {
    for (const auto& f : schema::fields())
      if (section == f.section) valid.push_back(f.key);
  }
  std::string best;
  std::size_t best_d = SIZE_MAX;
  for (const auto& v : valid) {
    std::size_t d = edit_distance(lower(key), v);
    if (d < best_d) best_d = d, best = v;
  }
  if (best_d <= 1 || best_d * 3 <= key.size()) {
    fail(file, path,
         "unknown key, did you mean \"" + (section.empty() ? best : section + "." + best) + "\"?");
  }
  std::string list;
  for (const auto& v : valid) list += (list.empty() ? "" : ", ") + v;
  fail(file, path, "unknown key; valid keys here are " + list);
}

// Reads a whole file; errors are reported against `who`/`path` (the referring key).
std::string read_text(const std::string& file, const std::string& who, const std::string& key) {
  auto report = [&](const std::string& problem) {
    if (who.empty()) fail(file, "", problem);
    fail(who, key, problem + ": " + file);
  };
  std::error_code ec;
  fs::file_status st = fs::status(file, ec);
  if (ec || !fs::exists(st)) report("file not found");
  if (fs::is_directory(st)) report("is a directory, not a file");
  std::uintmax_t size = fs::file_size(file, ec);
  if (!ec && size > kMaxFileBytes)
    report("file too large (" + std::to_string(size) + " bytes, limit " +
           std::to_string(kMaxFileBytes) + ")");
  std::ifstream in(file, std::ios::binary);
  if (!in) report("cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) report("cannot read file");
  return ss.str();
}

// Sees document boundaries only; used to count documents.
struct DocumentCounter : YAML::EventHandler {
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

std::string at(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return file;
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

YAML::Node parse_yaml(const std::string& text, const std::string& file) {
  if (text.size() > kMaxFileBytes)
    fail(file, "", "config text too large (" + std::to_string(text.size()) + " bytes)");
  try {
    // Count documents with a bounded loop: yaml-cpp 0.7's LoadAll never returns on some
    // invalid input (a stray "," at top level yields endless empty documents, each starting
    // at the same place), so it is not used.
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentCounter counter;
    for (int i = 0; i < 3 && parser.HandleNextDocument(counter); ++i) {
      const auto& s = counter.starts;
      if (s.size() >= 2 && s[s.size() - 1].pos == s[s.size() - 2].pos) {
        const YAML::Mark& m = s.back();
        std::string what = m.pos >= 0 && static_cast<std::size_t>(m.pos) < text.size()
                               ? quote(text.substr(static_cast<std::size_t>(m.pos), 1))
                               : std::string("end of input");
        fail(at(file, m), "", "invalid YAML: unexpected " + what);
      }
    }
    if (counter.starts.size() > 1)
      fail(at(file, counter.starts[1]), "", "expected one YAML document, found another here");
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(at(file, e.mark), "", "invalid YAML: " + e.msg);
  }
}

const Field* find_path(const std::string& path) {
  for (const auto& f : schema::fields())
    if (f.path() == path) return &f;
  return nullptr;
}

// `provenance:` entries: key path -> "public <source>" | "fitted <date> <set>" | "guess [<why>]".
void read_provenance(const YAML::Node& value, const std::string& file, Layer& layer);

std::string key_text(const YAML::Node& k, const std::string& file, const std::string& section) {
  if (!k.IsScalar()) fail(file, section, "keys must be plain words", describe(k));
  return k.Scalar();
}

// Display path of a `base:` file: relative to the including file's directory.
std::string resolve(const std::string& including, const std::string& base) {
  fs::path b(base);
  if (b.is_absolute()) return b.lexically_normal().string();
  fs::path dir = fs::path(including).parent_path();
  return (dir / b).lexically_normal().string();
}

std::string identity(const std::string& file) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(file, ec);
  return ec ? fs::path(file).lexically_normal().string() : p.string();
}

void read_provenance(const YAML::Node& value, const std::string& file, Layer& layer) {
  if (value.IsNull()) return;
  if (!value.IsMap()) fail(file, "provenance", "expected a mapping of key paths", describe(value));
  for (const auto& entry : value) {
    const std::string path = key_text(entry.first, file, "provenance");
    const std::string where = "provenance." + path;
    if (layer.provenance.count(path)) fail(file, where, "duplicate key");
    if (path == "name" || !find_path(path)) {
      std::string best;
      std::size_t best_d = SIZE_MAX;
      for (const auto& f : schema::fields()) {
        const std::size_t d = edit_distance(lower(path), f.path());
        if (*f.section && d < best_d) best_d = d, best = f.path();
      }
      if (best_d * 3 <= path.size()) fail(file, where, "not a config key, did you mean \"" + best + "\"?");
      fail(file, where, "not a config key (provenance is keyed by key paths such as ddr.bandwidth_gbps)");
    }
    const YAML::Node text = entry.second;
    if (!text.IsScalar()) fail(file, where, "expected a string", describe(text));
    std::string problem;
    const auto p = parse_provenance(text.Scalar(), &problem);
    if (!p) fail(file, where, problem, quote(text.Scalar()));
    layer.provenance[path] = *p;
  }
}

// Checks the shape of one file and merges it over its `base:` chain.
// `chain` holds the files being loaded (display name, identity), outermost first.
Layer load_layer(const YAML::Node& root, const std::string& file,
                 std::vector<std::pair<std::string, std::string>>& chain) {
  Layer layer;
  if (root.IsNull()) return layer;
  if (!root.IsMap()) fail(file, "", "expected a mapping of keys at the top level", describe(root));

  std::optional<YAML::Node> base;
  std::set<std::string> seen;
  // yaml-cpp iterators hand out temporaries: copy the nodes (cheap handles), never bind
  // references into `it->second`.
  for (const auto& entry : root) {
    const std::string key = key_text(entry.first, file, "");
    if (!seen.insert(key).second) fail(file, key, "duplicate key");
    const YAML::Node value = entry.second;
    if (key == "base") {
      base = value;
    } else if (key == "provenance") {
      read_provenance(value, file, layer);
    } else if (is_section(key)) {
      layer.sections.insert(key);
      if (value.IsNull()) continue;
      if (!value.IsMap()) fail(file, key, "expected a mapping of keys", describe(value));
      std::set<std::string> seen_sub;
      for (const auto& sub : value) {
        const std::string sub_key = key_text(sub.first, file, key);
        if (!seen_sub.insert(sub_key).second) fail(file, key + "." + sub_key, "duplicate key");
        if (!find_field(key, sub_key)) unknown_key(file, key, sub_key);
        layer.values[key + "." + sub_key] = Leaf{sub.second, file};
      }
    } else if (find_field("", key)) {
      layer.values[key] = Leaf{value, file};
    } else {
      unknown_key(file, "", key);
    }
  }
  if (!base) return layer;

  if (!base->IsScalar() || base->Scalar().empty())
    fail(file, "base", "expected a file name", describe(*base));
  const std::string base_file = resolve(file, base->Scalar());
  const std::string id = identity(base_file);
  for (const auto& [name, other_id] : chain) {
    if (other_id != id) continue;
    std::string cycle;
    for (const auto& link : chain) cycle += link.first + " -> ";
    fail(file, "base", "cycle: " + cycle + base_file);
  }
  if (chain.size() >= kMaxBaseDepth)
    fail(file, "base", "more than " + std::to_string(kMaxBaseDepth) + " levels of base files");

  const std::string text = read_text(base_file, file, "base");
  chain.emplace_back(base_file, id);
  Layer merged = load_layer(parse_yaml(text, base_file), base_file, chain);
  chain.pop_back();

  merged.values.erase("name");  // a preset's name is its own, never its base's
  for (auto& [path, leaf] : layer.values) {
    merged.values[path] = leaf;
    merged.provenance.erase(path);  // the base's provenance described the base's value
  }
  for (auto& [path, p] : layer.provenance) merged.provenance[path] = p;
  merged.sections.insert(layer.sections.begin(), layer.sections.end());
  return merged;
}

enum class NumParse { Ok, NotANumber, OutOfRange };

NumParse parse_integer(const std::string& text, long long& out) {
  const char* b = text.data();
  const char* e = b + text.size();
  if (b != e && *b == '+') ++b;
  if (b == e) return NumParse::NotANumber;
  auto r = std::from_chars(b, e, out);
  if (r.ptr != e) return NumParse::NotANumber;
  if (r.ec == std::errc::result_out_of_range) return NumParse::OutOfRange;
  return r.ec == std::errc() ? NumParse::Ok : NumParse::NotANumber;
}

NumParse parse_number(const std::string& text, double& out) {
  std::string t = lower(text);
  if (t == ".inf" || t == "+.inf") return out = HUGE_VAL, NumParse::Ok;
  if (t == "-.inf") return out = -HUGE_VAL, NumParse::Ok;
  if (t == ".nan") return out = NAN, NumParse::Ok;
  const char* b = text.data();
  const char* e = b + text.size();
  if (b != e && *b == '+') ++b;
  if (b == e) return NumParse::NotANumber;
  auto r = std::from_chars(b, e, out, std::chars_format::general);
  if (r.ptr != e) return NumParse::NotANumber;
  if (r.ec == std::errc::result_out_of_range) return NumParse::OutOfRange;
  return r.ec == std::errc() ? NumParse::Ok : NumParse::NotANumber;
}

const char* expected(const Field& f) {
  switch (f.kind) {
    case Kind::Integer:
    case Kind::KiB:
    case Kind::MiB: return "expected an integer";
    case Kind::Number: return "expected a number";
    case Kind::Choice: return "expected a word";
    case Kind::Text: return "expected a string";
    case Kind::Path: return "expected a file name";
  }
  return "unexpected value";
}

// Converts one YAML value into its struct field, checking type and range.
void set_field(const Field& f, HardwareConfig& c, const Leaf& leaf) {
  const YAML::Node& n = leaf.node;
  if (!n.IsScalar()) {
    if (f.kind == Kind::Choice) fail(leaf.file, f.path(), "must be one of " + f.choices.names(), describe(n));
    fail(leaf.file, f.path(), expected(f), describe(n));
  }
  detail::set_field_text(f, c, n.Scalar(), n.Tag() == "!", leaf.file);
}

HardwareConfig build(const YAML::Node& root, const std::string& origin,
                     std::vector<std::pair<std::string, std::string>>& chain) {
  Layer layer = load_layer(root, origin, chain);
  HardwareConfig c;
  c.source_path = origin;
  if (layer.sections.count("energy")) c.energy.emplace();
  if (layer.sections.count("area")) c.area.emplace();
  c.provenance = layer.provenance;
  for (const auto& f : schema::fields()) {
    auto it = layer.values.find(f.path());
    if (it != layer.values.end())
      set_field(f, c, it->second);
    else if (f.required)
      fail(origin, f.path(), "missing required key");
  }
  if (!layer.values.count("name")) {
    std::string stem = fs::path(origin).stem().string();
    c.name = stem.empty() ? "unnamed" : stem;
  }
  validate(c);
  return c;
}

// Keeps the one-line ConfigError contract even for surprises from yaml-cpp or the library.
template <typename F>
HardwareConfig guarded(const std::string& origin, F&& body) {
  try {
    return body();
  } catch (const ConfigError&) {
    throw;
  } catch (const YAML::Exception& e) {
    fail(origin, "", "invalid YAML: " + e.msg);
  } catch (const std::exception& e) {
    fail(origin, "", std::string("cannot load config: ") + e.what());
  }
}

}  // namespace

void detail::set_field_text(const Field& f, HardwareConfig& c, const std::string& text, bool quoted,
                            const std::string& file) {
  const std::string path = f.path();
  schema::Slot slot = f.slot(c);

  switch (f.kind) {
    case Kind::Text:
      *std::get<std::string*>(slot) = text;
      return;
    case Kind::Path: {
      // Relative to the file that wrote it (a base file's path stays the base file's); a config
      // given as text (a Python dict, a sweep point) has none: relative to the working directory.
      fs::path value(text);
      if (!text.empty() && value.is_relative()) {
        std::error_code ec;
        const fs::path dir = fs::is_regular_file(file, ec) ? fs::path(file).parent_path() : fs::path();
        value = fs::absolute(dir / value, ec).lexically_normal();
      }
      *std::get<std::string*>(slot) = value.string();
      return;
    }
    case Kind::Choice: {
      const auto index = f.choices.index_of(text);
      if (!index) fail(file, path, "must be one of " + f.choices.names(), quote(text));
      std::get<schema::ChoiceRef>(slot).set_index(*index);
      return;
    }
    case Kind::Integer:
    case Kind::KiB:
    case Kind::MiB: {
      long long v = 0;
      NumParse r = quoted ? NumParse::NotANumber : parse_integer(text, v);
      if (r == NumParse::NotANumber) fail(file, path, expected(f), quote(text));
      // Beyond long long is beyond every limit: report it against the bound it breaks.
      double as_double = r == NumParse::OutOfRange ? (text[0] == '-' ? -1e300 : 1e300)
                                                   : static_cast<double>(v);
      if (auto problem = detail::range_problem(f, as_double)) fail(file, path, *problem, text);
      if (f.kind == Kind::Integer) {
        *std::get<int*>(slot) = static_cast<int>(v);
      } else {
        std::uint64_t unit = f.kind == Kind::MiB ? (1ull << 20) : 1024ull;
        *std::get<std::uint64_t*>(slot) = static_cast<std::uint64_t>(v) * unit;
      }
      return;
    }
    case Kind::Number: {
      double v = 0;
      NumParse r = quoted ? NumParse::NotANumber : parse_number(text, v);
      if (r == NumParse::NotANumber) fail(file, path, expected(f), quote(text));
      if (r == NumParse::OutOfRange) v = text[0] == '-' ? -HUGE_VAL : HUGE_VAL;
      if (auto problem = detail::range_problem(f, v)) fail(file, path, *problem, text);
      *std::get<double*>(slot) = v;
      return;
    }
  }
}

HardwareConfig load_hardware_config(const std::string& path) {
  return guarded(path, [&] {
    const std::string text = read_text(path, "", "");
    std::vector<std::pair<std::string, std::string>> chain{{path, identity(path)}};
    return build(parse_yaml(text, path), path, chain);
  });
}

HardwareConfig parse_hardware_config(const std::string& yaml_text, const std::string& origin) {
  return guarded(origin, [&] {
    std::vector<std::pair<std::string, std::string>> chain{{origin, identity(origin)}};
    return build(parse_yaml(yaml_text, origin), origin, chain);
  });
}

std::string config_value_text(const HardwareConfig& c, const schema::Field& f) {
  schema::Slot slot = schema::slot_of(f, c);
  std::string value;
  if (auto* s = std::get_if<std::string*>(&slot))
    value = quote(**s, SIZE_MAX);
  else if (auto* choice = std::get_if<schema::ChoiceRef>(&slot))
    value = choice->name();
  else if (auto* i = std::get_if<int*>(&slot))
    value = std::to_string(**i);
  else if (auto* x = std::get_if<double*>(&slot))
    value = detail::format_number(**x);
  else if (auto* u = std::get_if<std::uint64_t*>(&slot)) {
    std::uint64_t unit = f.kind == Kind::MiB ? (1ull << 20) : 1024ull;
    value = **u % unit == 0 ? std::to_string(**u / unit)
                            : detail::format_number(static_cast<double>(**u) / unit);
  }
  return value;
}

std::string dump_hardware_config(const HardwareConfig& c) {
  std::string out = "# npusim hardware config, canonical form: every key written out, inherited values resolved.\n";
  auto emit = [&](const Field& f, const char* indent) {
    const std::string value = config_value_text(c, f);
    out += indent + std::string(f.key) + ": " + value;
    if (*f.unit) out += std::string("  # ") + f.unit;
    out += "\n";
  };
  for (const auto& f : schema::fields())
    if (!*f.section) emit(f, "");
  for (const auto& s : schema::sections()) {
    std::vector<const Field*> keys;
    for (const auto& f : schema::fields())
      if (std::string(s.name) == f.section) keys.push_back(&f);
    // An absent optional section (energy, area) stays absent.
    if (keys.empty() || std::holds_alternative<std::monostate>(schema::slot_of(*keys[0], c)))
      continue;
    out += std::string(s.name) + ":\n";
    for (const Field* f : keys) emit(*f, "  ");
  }
  if (!c.provenance.empty()) {
    out += "provenance:\n";
    for (const auto& f : schema::fields())
      if (const auto it = c.provenance.find(f.path()); it != c.provenance.end())
        out += "  " + f.path() + ": " + quote(provenance_text(it->second), SIZE_MAX) + "\n";
  }
  return out;
}

}  // namespace npu
