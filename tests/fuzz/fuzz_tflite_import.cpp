// TFLite import: the flatbuffer verifier, tensor decoding (sub-byte, sparse, block-wise weights),
// every operator translation and shape inference over the result, straight from bytes. Tensors
// are limited to 16 MiB. What imports also passes the static-shape front end (IF folding, WHILE
// unrolling) and the restoring of the IF/WHILE nodes it leaves.
#include <string>
#include <vector>

#include "compiler/frontend/passes.h"
#include "compiler/frontend/tflite/tflite_import.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace npu;
  const std::vector<std::uint8_t> bytes(data, data + size);
  compiler::Graph g;
  try {
    g = compiler::import_tflite_bytes(bytes, "fuzz.tflite", {}, std::uint64_t{16} << 20);
    fuzz::require(!g.outputs.empty(), "an imported model has outputs");
  } catch (const std::exception& e) {
    fuzz::require_clean_error(e, "fuzz.tflite");
    return 0;
  }
  try {
    compiler::fold_static_shapes(g);
    compiler::restore_tflite_control_flow(g);  // IF/WHILE folding left
  } catch (const std::exception& e) {
    fuzz::require_clean_error(e);
  }
  return 0;
}
