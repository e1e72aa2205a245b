#include "runtime/tensor_file.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "isa/whole_file.h"

namespace npu::runtime {

TensorFile read_tensor_file(const std::string& path) {
  const auto bytes = isa::read_whole_file(path);
  if (!bytes) throw std::runtime_error(path + ": cannot open file: " + std::strerror(errno));
  static constexpr char kNpyMagic[] = "\x93NUMPY";
  if (bytes->size() >= 6 && std::memcmp(bytes->data(), kNpyMagic, 6) == 0)
    return {from_npy(container::parse_npy(*bytes, path), path), ""};
  return parse_onnx_tensor(std::string(bytes->begin(), bytes->end()), path);
}

std::string npy_file_name(const std::string& tensor_name) {
  std::string name = tensor_name.empty() ? "_" : tensor_name;
  for (auto& c : name)
    if (c == '/' || c == '\\' || c == ':' || c == '\0') c = '_';
  if (name == "." || name == "..") name = "_" + name;
  return name + ".npy";
}

void write_tensor_npy(const std::string& path, const HostTensor& tensor) { container::write_npy(path, to_npy(tensor)); }

}  // namespace npu::runtime
