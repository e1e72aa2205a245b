#include "apps/cli/cli_files.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace npu::cli {

namespace fs = std::filesystem;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!(out << text)) throw std::runtime_error(path + ": cannot write file");
}

fs::path find_script(const std::string& name) {
  if (const char* dir = std::getenv("NPUSIM_SCRIPTS")) return fs::path(dir) / name;
  std::error_code ec;
  for (fs::path p = fs::read_symlink("/proc/self/exe", ec).parent_path(); !ec && !p.empty() && p != p.root_path();
       p = p.parent_path())
    if (fs::exists(p / "scripts" / name)) return p / "scripts" / name;
  return fs::path("scripts") / name;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace npu::cli
