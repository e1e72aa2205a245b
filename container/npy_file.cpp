#include "container/npy_file.h"

#include <fstream>
#include <numeric>
#include <regex>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "isa/whole_file.h"

#include <fmt/format.h>

namespace npu::container {

namespace {

// "f4" -> 4; 0 for what is not a kind letter and one or two digits.
std::size_t bytes_of(const std::string& dtype) {
  if (dtype.size() < 2 || dtype.size() > 3) return 0;
  for (std::size_t i = 1; i < dtype.size(); ++i)
    if (dtype[i] < '0' || dtype[i] > '9') return 0;
  return static_cast<std::size_t>(std::stoul(dtype.substr(1)));
}

}  // namespace

std::size_t NpyArray::element_count() const {
  return std::accumulate(shape.begin(), shape.end(), std::size_t{1},
                         [](std::size_t a, std::int64_t b) { return a * static_cast<std::size_t>(b); });
}

std::size_t NpyArray::element_bytes() const { return bytes_of(dtype); }

NpyArray read_npy(const std::string& path) {
  const auto file = isa::read_whole_file(path);
  if (!file) throw std::runtime_error(path + ": cannot open file: " + std::strerror(errno));
  return parse_npy(*file, path);
}

NpyArray parse_npy(const std::vector<std::uint8_t>& file, const std::string& path) {
  auto fail = [&](const std::string& what) { return std::runtime_error(path + ": not a valid .npy file: " + what); };
  if (file.size() < 10 || std::string(file.begin(), file.begin() + 6) != "\x93NUMPY")
    throw fail("missing \\x93NUMPY magic");
  const int major = file[6];
  std::size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = file[8] | (file[9] << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) throw fail("truncated header");
    header_len = file[8] | (file[9] << 8) | (file[10] << 16) | (std::size_t(file[11]) << 24);
    header_start = 12;
  } else {
    throw fail(fmt::format("unsupported format version {}", major));
  }
  if (header_start + header_len > file.size()) throw fail("truncated header");
  const std::string header(file.begin() + header_start, file.begin() + header_start + header_len);

  // Built once: compiling a std::regex costs far more than matching a header.
  static const std::regex descr_pattern(R"('descr'\s*:\s*'([<>|=])([a-zA-Z]\d+)')");
  static const std::regex fortran_pattern(R"('fortran_order'\s*:\s*True)");
  static const std::regex shape_pattern(R"('shape'\s*:\s*\(([^)]*)\))");
  static const std::regex number(R"(\d+)");
  std::smatch m;
  NpyArray array;
  if (!std::regex_search(header, m, descr_pattern))
    throw fail("no 'descr' in header");
  if (m[1] == ">" ) throw fail("big-endian data is not supported");
  array.dtype = m[2];
  if (array.dtype.size() > 3 || array.element_bytes() == 0 || array.element_bytes() > 16)
    throw fail(fmt::format("unsupported dtype '{}'", array.dtype));
  if (std::regex_search(header, m, fortran_pattern))
    throw fail("Fortran-order arrays are not supported; save with np.ascontiguousarray");
  if (!std::regex_search(header, m, shape_pattern)) throw fail("no 'shape' in header");
  const std::string dims = m[1];
  // Checked before anything is sized from it: a header must never make us allocate or index
  // what the file does not hold.
  constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 40;
  std::uint64_t elements = 1;
  for (std::sregex_iterator it(dims.begin(), dims.end(), number), end; it != end; ++it) {
    const std::string digits = it->str();
    const std::uint64_t d = digits.size() > 12 ? kMaxElements + 1 : std::stoull(digits);
    if (d > kMaxElements || (d > 0 && elements > kMaxElements / d))
      throw fail(fmt::format("shape ({}) is implausibly large", dims));
    elements *= d;
    array.shape.push_back(static_cast<std::int64_t>(d));
  }

  const std::size_t expected = array.element_count() * array.element_bytes();
  const std::size_t data_start = header_start + header_len;
  if (file.size() - data_start < expected)
    throw fail(fmt::format("data truncated: {} bytes for {} expected", file.size() - data_start, expected));
  array.data.assign(file.begin() + data_start, file.begin() + data_start + expected);
  return array;
}

void write_npy(const std::string& path, const NpyArray& array) {
  std::string shape;
  for (auto d : array.shape) shape += std::to_string(d) + ",";
  if (array.shape.size() > 1) shape.pop_back();
  const char order = array.dtype == "i1" || array.dtype == "u1" || array.dtype == "b1" ? '|' : '<';
  std::string header = fmt::format("{{'descr': '{}{}', 'fortran_order': False, 'shape': ({}), }}", order,
                                   array.dtype, shape);
  // Pad so the data starts on a 64-byte boundary, as numpy does.
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(path + ": cannot write file");
  out.write("\x93NUMPY\x01\x00", 8);
  const std::uint16_t len = static_cast<std::uint16_t>(header.size());
  out.put(static_cast<char>(len & 0xff));
  out.put(static_cast<char>(len >> 8));
  out << header;
  out.write(reinterpret_cast<const char*>(array.data.data()), static_cast<std::streamsize>(array.data.size()));
  if (!out) throw std::runtime_error(path + ": write failed");
}

}  // namespace npu::container
