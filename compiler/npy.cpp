#include "npy.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "fp16.h"

namespace npu::compiler {

FloatTensor read_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw CompileError(path + ": cannot open file");
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    throw CompileError(path + ": not a .npy file");
  std::size_t header_len, offset;
  if (bytes[6] == 1) {
    header_len = static_cast<std::uint8_t>(bytes[8]) | (static_cast<std::uint8_t>(bytes[9]) << 8);
    offset = 10;
  } else {
    if (bytes.size() < 12) throw CompileError(path + ": truncated .npy header");
    std::uint32_t len;
    std::memcpy(&len, bytes.data() + 8, 4);
    header_len = len;
    offset = 12;
  }
  if (offset + header_len > bytes.size()) throw CompileError(path + ": truncated .npy header");
  std::string header = bytes.substr(offset, header_len);
  auto field = [&](const std::string& key) {
    auto p = header.find("'" + key + "'");
    if (p == std::string::npos) throw CompileError(path + ": .npy header lacks '" + key + "'");
    return header.substr(header.find(':', p) + 1);
  };
  std::string descr = field("descr");
  descr = descr.substr(descr.find('\'') + 1);
  descr = descr.substr(0, descr.find('\''));
  if (field("fortran_order").find("True") < 6) throw CompileError(path + ": Fortran-ordered arrays are not supported");
  std::string shape_text = field("shape");
  shape_text = shape_text.substr(shape_text.find('(') + 1, shape_text.find(')') - shape_text.find('(') - 1);
  FloatTensor t;
  std::stringstream ss(shape_text);
  std::string dim;
  while (std::getline(ss, dim, ','))
    if (dim.find_first_of("0123456789") != std::string::npos) t.shape.push_back(std::stoll(dim));
  std::int64_t n = t.elements();
  const char* data = bytes.data() + offset + header_len;
  std::size_t avail = bytes.size() - offset - header_len;
  auto need = [&](std::size_t elem) {
    if (avail < static_cast<std::size_t>(n) * elem)
      throw CompileError(path + ": has " + std::to_string(avail) + " data bytes, shape needs " +
                         std::to_string(n * static_cast<std::int64_t>(elem)));
  };
  t.data.resize(static_cast<std::size_t>(n));
  auto load = [&](auto sample) {
    using T = decltype(sample);
    need(sizeof(T));
    for (std::int64_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, data + i * sizeof(T), sizeof(T));
      t.data[i] = static_cast<float>(v);
    }
  };
  if (descr == "<f4") load(float{});
  else if (descr == "<f8") load(double{});
  else if (descr == "<i8") load(std::int64_t{});
  else if (descr == "<i4") load(std::int32_t{});
  else if (descr == "|i1") load(std::int8_t{});
  else if (descr == "|u1") load(std::uint8_t{});
  else if (descr == "<f2") {
    need(2);
    for (std::int64_t i = 0; i < n; ++i) {
      std::uint16_t h;
      std::memcpy(&h, data + i * 2, 2);
      t.data[i] = isa::half_to_float(h);
    }
  } else {
    throw CompileError(path + ": dtype '" + descr + "' is not supported");
  }
  return t;
}

}  // namespace npu::compiler
