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
// Why `v` (in YAML units) is out of range for `f`, or nullopt.
std::optional<std::string> range_problem(const schema::Field& f, double v);

// Sets `f` in `c` from the text of its YAML value, checking type and range; `quoted`: the text
// was a quoted string ("64" is not a number). `file` names the source in messages and anchors a
// relative Path. The loader and the schema's defaults both convert through it.
void set_field_text(const schema::Field& f, HardwareConfig& c, const std::string& text, bool quoted,
                    const std::string& file);

// Throws ConfigError("<file>: <path>: <problem> (got <got>)"); parts left empty are omitted.
// The message is forced onto one line.
[[noreturn]] void fail(const std::string& file, const std::string& path,
                       const std::string& problem, const std::string& got = {});

}  // namespace npu::detail
