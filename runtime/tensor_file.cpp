#include "runtime/tensor_file.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

namespace npu::runtime {

TensorFile read_tensor_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open file");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.rfind("\x93NUMPY", 0) == 0)
    return {from_npy(container::parse_npy({bytes.begin(), bytes.end()}, path), path), ""};
  return parse_onnx_tensor(bytes, path);
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
