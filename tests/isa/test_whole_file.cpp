#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "isa/whole_file.h"

namespace fs = std::filesystem;

TEST_CASE("read_whole_file returns every byte, or nothing with errno set", "[isa][file]") {
  const fs::path dir = fs::temp_directory_path() / "npusim_whole_file_test";
  fs::create_directories(dir);
  std::vector<std::uint8_t> bytes(200'003);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 7 + i / 251);
  {
    std::ofstream out(dir / "data.bin", std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  std::ofstream(dir / "empty.bin").close();
  CHECK(npu::isa::read_whole_file((dir / "data.bin").string()) == bytes);
  CHECK(npu::isa::read_whole_file((dir / "empty.bin").string()) == std::vector<std::uint8_t>{});
  errno = 0;
  CHECK_FALSE(npu::isa::read_whole_file((dir / "missing.bin").string()));
  CHECK(errno == ENOENT);
  CHECK_FALSE(npu::isa::read_whole_file(dir.string()));  // a directory
  fs::remove_all(dir);
}
