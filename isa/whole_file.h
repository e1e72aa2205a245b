// Reads a whole file into memory in one go. Every loader of the project (ONNX models, programs,
// .npy and tensor files) starts here: reading through istreambuf_iterator grows the buffer a
// byte at a time, which on a 100 MB float ResNet-50 cost a tenth of the compile.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace npu::isa {

// The file's bytes, or nothing when it cannot be opened or read (errno says why).
std::optional<std::vector<std::uint8_t>> read_whole_file(const std::string& path);

}  // namespace npu::isa
