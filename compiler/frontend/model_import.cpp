#include "compiler/frontend/model_import.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include "compiler/frontend/onnx_io.h"
#include "compiler/frontend/tflite/tflite_import.h"
#include "isa/whole_file.h"

namespace npu::compiler {

ModelFormat model_format(const std::vector<std::uint8_t>& bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data() + 4, "TFL3", 4) == 0 ? ModelFormat::Tflite : ModelFormat::Onnx;
}

namespace {

// The first bytes of a regular file (enough for model_format); nullopt for anything else or
// any error (the whole-file read then reports it as before).
std::optional<std::vector<std::uint8_t>> regular_file_head(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::vector<std::uint8_t> head(8);
  ssize_t got = -1;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) got = ::pread(fd, head.data(), head.size(), 0);
  ::close(fd);
  if (got < 0) return std::nullopt;
  head.resize(static_cast<std::size_t>(got));
  return head;
}

}  // namespace

Graph import_model(const std::string& path, const std::vector<std::string>& input_shapes, std::uint64_t max_tensor_bytes) {
  // An ONNX file is parsed as it is read (import_onnx), not read whole first.
  if (const auto head = regular_file_head(path); head && model_format(*head) == ModelFormat::Onnx)
    return import_onnx(path, input_shapes, max_tensor_bytes);
  auto bytes = isa::read_whole_file(path);
  if (!bytes) throw CompileError(path + ": cannot open file: " + std::strerror(errno));
  if (model_format(*bytes) == ModelFormat::Tflite) return import_tflite_bytes(*bytes, path, input_shapes, max_tensor_bytes);
  return import_onnx_bytes(std::move(*bytes), path, input_shapes, max_tensor_bytes);
}

}  // namespace npu::compiler
