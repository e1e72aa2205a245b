// Internal to the isa library: spellings shared by the assembler, disassembler and ISA.md.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>
#include <optional>
#include <string>
#include <string_view>

#include "isa/program.h"

namespace npu::isa::text {

constexpr std::array<std::string_view, 4> kRoleNames = {"input", "output", "constant", "intermediate"};
constexpr std::size_t kHexBytesPerLine = 64;
constexpr std::string_view kRawFloatPrefix = "raw:";

inline std::string_view role_name(TensorRole r) { return kRoleNames.at(static_cast<std::size_t>(r)); }

inline std::optional<TensorRole> parse_role(std::string_view s) {
  for (std::size_t i = 0; i < kRoleNames.size(); ++i)
    if (kRoleNames[i] == s) return static_cast<TensorRole>(i);
  return std::nullopt;
}

inline std::optional<DType> parse_dtype(std::string_view s) {
  const int v = find_enum_value(EnumType::DType, s);
  if (v < 0) return std::nullopt;
  return static_cast<DType>(v);
}

inline std::optional<int> parse_queue_unit(std::string_view s) {
  for (int i = 0; i < kQueueCount; ++i)
    if (unit_name(static_cast<Unit>(i)) == s) return i;
  return std::nullopt;
}

// Fields whose name ends in "_addr" print in hex; everything else in decimal.
inline bool prints_hex(std::string_view field_name) {
  return field_name.size() > 5 && field_name.substr(field_name.size() - 5) == "_addr";
}

// Shortest text that reads back to the same float; NaN (any payload) as raw bits.
inline std::string format_float_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  if (std::isnan(f)) return fmt::format("{}0x{:08x}", kRawFloatPrefix, bits);
  return fmt::format("{}", f);
}
inline std::string format_float(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return format_float_bits(bits);
}

// Bare if every character is printable ASCII other than  " # ; = , \  and the text is non-empty.
inline bool needs_quotes(std::string_view s) {
  if (s.empty()) return true;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7F || c == '"' || c == '#' || c == ';' || c == '=' || c == ',' || c == '\\')
      return true;
  }
  return false;
}

inline std::string quote_if_needed(std::string_view s) {
  if (!needs_quotes(s)) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7F) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace npu::isa::text
