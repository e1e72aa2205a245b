// The one table of YAML keys of a hardware config. Parsing, validation, dumping,
// equality and the key list in configs/README.md are all driven by it, so a key added
// here is parsed, checked, dumped and compared everywhere at once.
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "hwconfig/hardware_config.h"

namespace npu::schema {

enum class Kind {
  Integer,  // int in the struct, integer in YAML
  Number,   // double
  KiB,      // uint64 bytes in the struct, whole KiB in YAML (key ends in _kib)
  MiB,      // uint64 bytes in the struct, whole MiB in YAML (key ends in _mib)
  Choice,   // one of `choices` (std::string or Dataflow in the struct)
  Text,     // free string
  Path,     // a file name; relative names are resolved against the config file that gives them
};

// Where a key lives in a HardwareConfig. monostate: an absent optional section.
using Slot = std::variant<std::monostate, int*, double*, std::uint64_t*, std::string*, Dataflow*>;

struct Field {
  const char* section;  // "" for top-level keys
  const char* key;
  Kind kind;
  bool required;
  double min;           // in YAML units
  bool min_exclusive;   // true: value must be > min, else >= min
  double max;           // inclusive, YAML units
  bool power_of_two;
  const char* choices;  // "ws|os|is" for Kind::Choice, else ""
  const char* unit;     // for docs: "MHz", "bytes", ...
  const char* note;     // why the max is what it is, appended to a max violation; may be ""
  Slot (*slot)(HardwareConfig&);

  std::string path() const;  // "ddr.bandwidth_gbps", or "name"
};

struct Section {
  const char* name;
  bool optional;  // the struct member is a std::optional; presence of the YAML section sets it
};

const std::vector<Section>& sections();
const std::vector<Field>& fields();

// Read access to a const config (the slot functions take a mutable one).
inline Slot slot_of(const Field& f, const HardwareConfig& c) {
  return f.slot(const_cast<HardwareConfig&>(c));
}

}  // namespace npu::schema
