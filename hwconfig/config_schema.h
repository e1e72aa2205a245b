// The one table of YAML keys of a hardware config: type, range, default and meaning of each.
// Parsing, validation, dumping, equality, the defaults of a default-constructed config and the
// key tables in configs/README.md (hwconfig/config_doc.h) are all driven by it, so a key added
// here is parsed, checked, dumped, compared and documented everywhere at once.
#pragma once
#include <cstdint>
#include <limits>
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
  Choice,   // one of `choices` (an enum of hwconfig/config_choices.h in the struct)
  Text,     // free string
  Path,     // a file name; relative names are resolved against the config file that gives them
};

// A choice member of a HardwareConfig, whatever its enum: read and written as an index into
// its name table.
struct ChoiceRef {
  void* member;
  ChoiceList list;
  std::size_t (*get)(const void* member);
  void (*set)(void* member, std::size_t index);

  std::size_t index() const { return get(member); }
  void set_index(std::size_t i) const { set(member, i); }
  bool valid() const { return index() < list.count; }
  const char* name() const { return valid() ? list.entries[index()].name : "?"; }
};

template <typename E>
ChoiceRef choice_ref(E* member) {
  return {member, choice_list<E>(),
          [](const void* m) { return static_cast<std::size_t>(*static_cast<const E*>(m)); },
          [](void* m, std::size_t i) { *static_cast<E*>(m) = static_cast<E>(i); }};
}

// Where a key lives in a HardwareConfig. monostate: an absent optional section.
using Slot = std::variant<std::monostate, int*, double*, std::uint64_t*, std::string*, ChoiceRef>;

struct Field {
  const char* section;  // "" for top-level keys
  const char* key;
  Kind kind;
  bool required;
  double min;           // in YAML units
  bool min_exclusive;   // true: value must be > min, else >= min
  double max;           // inclusive, YAML units
  bool power_of_two;
  ChoiceList choices;   // the name table for Kind::Choice, else empty
  const char* unit;     // for docs: "MHz", "bytes", ...
  const char* note;     // why the max is what it is, appended to a max violation; may be ""
  Slot (*slot)(HardwareConfig&);
  // The range a fitted value must stay in (npusim calibrate), in YAML units: what a real
  // device of any class could have, narrower than [min, max]. NaN: the key is structural
  // (array shape, capacities, choices) and never fitted.
  double plausible_min = std::numeric_limits<double>::quiet_NaN();
  double plausible_max = std::numeric_limits<double>::quiet_NaN();
  // The value a config that leaves the key out gets, as YAML writes it ("25.6", "simple", "");
  // a default-constructed HardwareConfig holds these (defaults() below).
  const char* default_value = "";
  // What configs/README.md shows as the default when the loader computes it ("file stem"), or "".
  const char* default_shown = "";
  const char* meaning = "";     // for configs/README.md: what the key does (markdown, one line)
  const char* rules = "";       // for configs/README.md: rules beyond the range, checked by validate()

  std::string path() const;  // "ddr.bandwidth_gbps", or "name"
  bool fittable() const { return plausible_min == plausible_min; }
};

struct Section {
  const char* name;
  bool optional;  // the struct member is a std::optional; presence of the YAML section sets it
};

const std::vector<Section>& sections();
const std::vector<Field>& fields();
// Every key at its default, the optional sections present: what a default-constructed config
// and section copy. Built on first use by the loader's own conversion of each default_value.
const HardwareConfig& defaults();

// Read access to a const config (the slot functions take a mutable one).
inline Slot slot_of(const Field& f, const HardwareConfig& c) {
  return f.slot(const_cast<HardwareConfig&>(c));
}

}  // namespace npu::schema
