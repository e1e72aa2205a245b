// Where each value of a preset comes from. A config's `provenance:` map marks key paths as
//   public <source>                       a published figure, with where it was published
//   fitted <YYYY-MM-DD> <measurements>    fitted by `npusim calibrate` to a measurement set
//   guess [<why>]                         nobody published it; the preset's best estimate
// so that a user can tell a datasheet number from a fitted one from a guess
// (`npusim config show PRESET`). The loader checks every entry (yaml_io.cpp).
#pragma once
#include <optional>
#include <string>

namespace npu {

struct KeyProvenance {
  enum class Kind { Public, Fitted, Guess };
  Kind kind = Kind::Guess;
  std::string date;    // fitted: YYYY-MM-DD
  std::string detail;  // public: the source; fitted: the measurement set; guess: why (may be empty)

  bool operator==(const KeyProvenance& o) const { return kind == o.kind && date == o.date && detail == o.detail; }
  bool operator!=(const KeyProvenance& o) const { return !(*this == o); }
};

const char* provenance_kind_name(KeyProvenance::Kind kind);  // "public" | "fitted" | "guess"

// Parses the YAML text of one entry; on failure returns nullopt and says why in `problem`.
std::optional<KeyProvenance> parse_provenance(const std::string& text, std::string* problem);
// The YAML text of an entry; parse_provenance(provenance_text(p)) == p.
std::string provenance_text(const KeyProvenance& p);

}  // namespace npu
