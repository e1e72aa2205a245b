// The .npy reader, through to the host tensor the runtime makes of it.
#include <vector>

#include "container/npy_file.h"
#include "runtime/tensor.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace npu;
  try {
    const auto array = container::parse_npy(std::vector<std::uint8_t>(data, data + size), "fuzz.npy");
    const auto tensor = runtime::from_npy(array, "fuzz.npy");
    fuzz::require(tensor.bytes.size() == tensor.element_count() * runtime::element_bytes(tensor.dtype),
                  "a host tensor's bytes do not match its shape");
  } catch (const std::exception& e) {
    fuzz::require_clean_error(e, "fuzz.npy");
  }
  return 0;
}
