#include "hwconfig/provenance.h"

#include <cctype>

namespace npu {

namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool is_date(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  const int month = std::stoi(s.substr(5, 2)), day = std::stoi(s.substr(8, 2));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

}  // namespace

const char* provenance_kind_name(KeyProvenance::Kind kind) {
  switch (kind) {
    case KeyProvenance::Kind::Public: return "public";
    case KeyProvenance::Kind::Fitted: return "fitted";
    case KeyProvenance::Kind::Guess: return "guess";
  }
  return "?";
}

std::optional<KeyProvenance> parse_provenance(const std::string& text, std::string* problem) {
  const std::string t = trim(text);
  const std::size_t space = t.find_first_of(" \t");
  const std::string word = t.substr(0, space);
  const std::string rest = space == std::string::npos ? "" : trim(t.substr(space));
  KeyProvenance p;
  if (word == "public") {
    if (rest.empty()) {
      *problem = "\"public\" needs the source (public <where it was published>)";
      return std::nullopt;
    }
    p.kind = KeyProvenance::Kind::Public;
    p.detail = rest;
  } else if (word == "fitted") {
    const std::size_t gap = rest.find_first_of(" \t");
    const std::string date = rest.substr(0, gap);
    const std::string set = gap == std::string::npos ? "" : trim(rest.substr(gap));
    if (!is_date(date) || set.empty()) {
      *problem = "\"fitted\" needs the date and the measurement set (fitted YYYY-MM-DD <measurements>)";
      return std::nullopt;
    }
    p.kind = KeyProvenance::Kind::Fitted;
    p.date = date;
    p.detail = set;
  } else if (word == "guess") {
    p.kind = KeyProvenance::Kind::Guess;
    p.detail = rest;
  } else {
    *problem = "must be \"public <source>\", \"fitted <YYYY-MM-DD> <measurements>\" or \"guess [<why>]\"";
    return std::nullopt;
  }
  return p;
}

std::string provenance_text(const KeyProvenance& p) {
  std::string s = provenance_kind_name(p.kind);
  if (!p.date.empty()) s += " " + p.date;
  if (!p.detail.empty()) s += " " + p.detail;
  return s;
}

}  // namespace npu
