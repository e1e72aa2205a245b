// Helpers shared by the parser, the validator and the dumper. Not installed API.
#pragma once
#include <optional>
#include <string>

#include "hwconfig/config_schema.h"

namespace npu::detail {

// Shortest text that reads back as exactly `v` ("25.6", "1000", "1e-05").
std::string format_number(double v);
// `s` as a double-quoted YAML/JSON string, escaped; shortened if very long.
std::string quote(const std::string& s, std::size_t max_len = 80);
// "ws, os, is" from "ws|os|is".
std::string choices_list(const schema::Field& f);
bool is_choice(const schema::Field& f, const std::string& value);
// Why `v` (in YAML units) is out of range for `f`, or nullopt.
std::optional<std::string> range_problem(const schema::Field& f, double v);

// Throws ConfigError("<file>: <path>: <problem> (got <got>)"); parts left empty are omitted.
// The message is forced onto one line.
[[noreturn]] void fail(const std::string& file, const std::string& path,
                       const std::string& problem, const std::string& got = {});

}  // namespace npu::detail
