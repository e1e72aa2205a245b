#include "container/program_file.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "isa/assembler.h"

namespace npu::container {

isa::Program load_program_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open file");
  char magic[8] = {};
  in.read(magic, sizeof magic);
  if (in.gcount() == sizeof magic && std::string(magic, 7) == "NPUPROG") return isa::load_program(path);
  in.clear();
  in.seekg(0);
  std::stringstream text;
  text << in.rdbuf();
  return isa::assemble(text.str(), path);
}

}  // namespace npu::container
