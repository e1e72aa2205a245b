// Tensor files a user hands the runtime: NumPy .npy, or ONNX TensorProto .pb (the format of
// ONNX's node tests). Outputs are always written as .npy.
#pragma once
#include <string>

#include "runtime/tensor.h"

namespace npu::runtime {

struct TensorFile {
  HostTensor tensor;
  std::string name;  // the TensorProto's name; empty for .npy
};

// Picks the format by content (.npy magic), else parses a TensorProto. Throws one line
// "<path>: <what is wrong>".
TensorFile read_tensor_file(const std::string& path);
TensorFile parse_onnx_tensor(const std::string& bytes, const std::string& origin);
void write_tensor_npy(const std::string& path, const HostTensor& tensor);

// "<output-name>.npy", with characters a file name cannot hold ('/', '\\', ':', NUL) as '_':
// exported models name tensors like "save_infer_model/scale_0.tmp_1".
std::string npy_file_name(const std::string& tensor_name);

}  // namespace npu::runtime
