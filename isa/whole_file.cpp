#include "isa/whole_file.h"

#include <cerrno>
#include <algorithm>
#include <cstdio>
#include <memory>

#include <sys/stat.h>

namespace npu::isa {

std::optional<std::vector<std::uint8_t>> read_whole_file(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return std::nullopt;
  struct stat st {};
  if (fstat(fileno(f.get()), &st) != 0) return std::nullopt;
  if (S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    return std::nullopt;
  }
  std::vector<std::uint8_t> bytes;
  // The size is a hint only (pipes and /proc files report none): read until end of file.
  if (S_ISREG(st.st_mode) && st.st_size > 0) bytes.reserve(static_cast<std::size_t>(st.st_size) + 1);
  std::size_t used = 0;
  for (;;) {
    if (bytes.size() == used) bytes.resize(std::max<std::size_t>(used * 2, std::max<std::size_t>(bytes.capacity(), 1 << 16)));
    const std::size_t got = std::fread(bytes.data() + used, 1, bytes.size() - used, f.get());
    used += got;
    if (got == 0) break;
  }
  if (std::ferror(f.get())) return std::nullopt;  // an I/O error: errno is set
  bytes.resize(used);
  return bytes;
}

}  // namespace npu::isa
