#include "runtime/program_io.h"

#include <filesystem>
#include <cstring>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "isa/instruction_set.h"
#include "runtime/tensor_conversion.h"

namespace npu::runtime {

namespace {

std::string npy_dtype(isa::DType t) {
  switch (t) {
    case isa::DType::Int8: return "i1";
    case isa::DType::Int32: return "i4";
    case isa::DType::Fp16: return "f2";
    case isa::DType::Fp32: return "f4";
  }
  return "u1";
}

bool covered_by_data(const isa::Program& program, const isa::TensorEntry& t) {
  for (const auto& seg : program.data)
    if (seg.ddr_addr <= t.ddr_addr && t.ddr_addr + t.size_bytes <= seg.ddr_addr + seg.bytes.size()) return true;
  return false;
}

std::vector<std::uint8_t> random_bytes(isa::DType dtype, std::uint64_t bytes, std::mt19937& rng) {
  std::vector<std::uint8_t> out(bytes);
  if (dtype == isa::DType::Fp16) {
    // Values in [-1, 1): sign, exponent 14 or less, random mantissa; never inf or nan.
    for (std::size_t i = 0; i + 1 < bytes; i += 2) {
      std::uint16_t h = static_cast<std::uint16_t>((rng() & 0x8000) | ((rng() % 15) << 10) | (rng() & 0x3ff));
      out[i] = static_cast<std::uint8_t>(h & 0xff);
      out[i + 1] = static_cast<std::uint8_t>(h >> 8);
    }
  } else if (dtype == isa::DType::Fp32) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (std::size_t i = 0; i + 3 < bytes; i += 4) {
      float f = dist(rng);
      std::memcpy(&out[i], &f, 4);
    }
  } else {
    for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  }
  return out;
}

// An input stored as a view inside another tensor's bytes (layout strided[...], a KV cache
// placed inside the Concat that extends it): the file holds it densely, row-major, and each
// element goes to its place in the view; the bytes between them (the enclosing tensor's) stay.
void write_strided(const isa::TensorEntry& t, const container::NpyArray& a, const std::string& path,
                   sim::DdrImage& ddr) {
  const std::vector<std::uint64_t> position = npu_positions(t);
  const std::size_t elem = isa::dtype_bytes(t.dtype);
  if (a.data.size() != position.size() * elem)
    throw std::runtime_error(fmt::format("{}: input '{}' needs {} bytes ({} elements, stored densely) but the file "
                                         "holds {}",
                                         path, t.name, position.size() * elem, position.size(), a.data.size()));
  if (!position.empty() && (position.back() + 1) * elem > t.size_bytes)
    throw std::runtime_error(fmt::format("input '{}': layout {} reaches past its {} bytes", t.name, t.layout,
                                         t.size_bytes));
  std::vector<std::uint8_t> span(t.size_bytes);
  ddr.read(t.ddr_addr, span.data(), span.size());
  for (std::size_t i = 0; i < position.size(); ++i)
    std::memcpy(span.data() + position[i] * elem, a.data.data() + i * elem, elem);
  ddr.write(t.ddr_addr, span.data(), span.size());
}

}  // namespace

std::map<std::string, std::string> parse_named_files(const std::vector<std::string>& args) {
  std::map<std::string, std::string> files;
  for (const auto& arg : args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
      throw std::runtime_error(fmt::format("--input '{}': expected NAME=FILE", arg));
    files[arg.substr(0, eq)] = arg.substr(eq + 1);
  }
  return files;
}

std::vector<std::string> place_inputs(const isa::Program& program, const std::map<std::string, std::string>& files,
                                      std::uint64_t seed, sim::DdrImage& ddr) {
  std::vector<std::string> notes;
  std::mt19937 rng(static_cast<std::uint32_t>(seed));
  for (const auto& [name, path] : files) {
    bool known = false;
    for (const auto& t : program.tensors) known |= t.name == name && t.role == isa::TensorRole::Input;
    if (!known) throw std::runtime_error(fmt::format("--input {}: the program has no input tensor '{}'", name, name));
  }
  for (const auto& t : program.tensors) {
    if (t.role != isa::TensorRole::Input) continue;
    if (auto it = files.find(t.name); it != files.end()) {
      const container::NpyArray a = container::read_npy(it->second);
      if (a.dtype != npy_dtype(t.dtype))
        throw std::runtime_error(fmt::format("{}: input '{}' needs dtype {} but the file holds {}", it->second, t.name,
                                             npy_dtype(t.dtype), a.dtype));
      if (!isa::strided_layout_strides(t.layout).empty()) {
        write_strided(t, a, it->second, ddr);
        notes.push_back(fmt::format("input {}: from {} (into its view {})", t.name, it->second, t.layout));
        continue;
      }
      if (a.data.size() != t.size_bytes)
        throw std::runtime_error(fmt::format("{}: input '{}' needs {} bytes but the file holds {}", it->second, t.name,
                                             t.size_bytes, a.data.size()));
      ddr.write(t.ddr_addr, a.data.data(), a.data.size());
      notes.push_back(fmt::format("input {}: from {}", t.name, it->second));
    } else if (covered_by_data(program, t)) {
      notes.push_back(fmt::format("input {}: from the program's data", t.name));
    } else {
      const auto bytes = random_bytes(t.dtype, t.size_bytes, rng);
      ddr.write(t.ddr_addr, bytes.data(), bytes.size());
      notes.push_back(fmt::format("input {}: random {} (seed {})", t.name, isa::dtype_name(t.dtype), seed));
    }
  }
  return notes;
}

container::NpyArray read_tensor(const isa::TensorEntry& t, const sim::DdrImage& ddr) {
  container::NpyArray a;
  a.dtype = npy_dtype(t.dtype);
  a.shape = t.shape;
  a.data.resize(t.size_bytes);
  ddr.read(t.ddr_addr, a.data.data(), a.data.size());
  return a;
}

void save_outputs(const isa::Program& program, const sim::DdrImage& ddr, const std::string& dir) {
  std::filesystem::create_directories(dir);
  for (const auto& t : program.tensors)
    if (t.role == isa::TensorRole::Output) container::write_npy((std::filesystem::path(dir) / (t.name + ".npy")).string(), read_tensor(t, ddr));
}

}  // namespace npu::runtime
