// Files and helper scripts the subcommands share: writing a report, finding a plotting script,
// quoting a path for the shell that runs it.
#pragma once
#include <filesystem>
#include <string>

namespace npu::cli {

// Writes `text` to `path`; a file that cannot be written is a one-line error naming it.
void write_text(const std::string& path, const std::string& text);

// scripts/NAME: $NPUSIM_SCRIPTS, else the source tree above the binary (build*/bin/npusim),
// else ./scripts.
std::filesystem::path find_script(const std::string& name);

// `s` in single quotes for /bin/sh.
std::string shell_quote(const std::string& s);

}  // namespace npu::cli
