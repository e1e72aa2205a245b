// The ONNX TensorProto (.pb) reader of `--input NAME=FILE.pb`.
#include <string>

#include "runtime/tensor_file.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace npu;
  try {
    const auto file = runtime::parse_onnx_tensor(std::string(reinterpret_cast<const char*>(data), size), "fuzz.pb");
    fuzz::require(file.tensor.bytes.size() == file.tensor.element_count() * runtime::element_bytes(file.tensor.dtype),
                  "a host tensor's bytes do not match its shape");
  } catch (const std::exception& e) {
    fuzz::require_clean_error(e, "fuzz.pb");
  }
  return 0;
}
