// ONNX import through lowering and code generation: compile() of an arbitrary model for a
// small config (tiny-8x8.yaml), INT8 for even-sized inputs and FP16 for odd ones, so both
// precisions' passes run. The model goes through a file because the compiler reads paths.
// Tensors are limited to 16 MiB.
#include <unistd.h>

#include <fstream>
#include <string>

#include "compiler/compile.h"
#include "compiler/pipeline.h"
#include "hwconfig/hardware_config.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

const npu::HardwareConfig& small_config() {
  static const npu::HardwareConfig config =
      npu::load_hardware_config(std::string(NPUSIM_SOURCE_DIR) + "/configs/tiny-8x8.yaml");
  return config;
}

// One file per process, removed at exit.
struct ScratchFile {
  std::string path = "/tmp/npusim-fuzz-" + std::to_string(::getpid()) + ".onnx";
  ~ScratchFile() { ::unlink(path.c_str()); }
};

const std::string& scratch_path() {
  static const ScratchFile file;
  return file.path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace npu;
  {
    std::ofstream out(scratch_path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  compiler::CompileOptions options;
  options.precision = size % 2 ? compiler::Precision::Fp16 : compiler::Precision::Int8;
  // Models as small as the seeds: bigger tensors only make a run slow, and the default limit
  // (4 GiB) is checked by the same code.
  options.max_tensor_bytes = std::uint64_t{16} << 20;
  try {
    // lower_graph + generate_code, not compile(): compile() caches lowering by file stamp.
    compiler::CompiledModel model;
    const auto graph = compiler::lower_graph(scratch_path(), options, model);
    compiler::generate_code(graph, small_config(), options, model);
  } catch (const std::exception& e) {
    fuzz::require_clean_error(e);
  }
  return 0;
}
