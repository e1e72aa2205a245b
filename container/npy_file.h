// NumPy .npy files (format 1.0/2.0/3.0, little-endian, C order): calibration inputs for the
// compiler, tensor files for the runtime. The one .npy parser in the project.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace npu::container {

struct NpyArray {
  std::string dtype;                 // numpy descr without byte order: "f4", "f2", "i1", "u1", "i4", "i8", "b1", ...
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> data;    // raw little-endian elements, C order
  std::size_t element_count() const;
  std::size_t element_bytes() const;
};

// Throws std::runtime_error "<path>: <what is wrong>".
NpyArray read_npy(const std::string& path);
// The same from the file's bytes; `origin` names it in errors.
NpyArray parse_npy(const std::vector<std::uint8_t>& file, const std::string& origin);
void write_npy(const std::string& path, const NpyArray& array);

}  // namespace npu::container
