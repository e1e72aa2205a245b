// INT8 programs on the SystemC model store exactly the bytes of the compiler's integer
// reference: every value the NPU writes to DDR (intermediates too, not just the outputs), so a
// mismatch names the first layer that differs.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "compiler/pipeline.h"
#include "container/compiled_model.h"
#include "sim/simulator.h"
#include "tests/compiler/sim_checks/sim_check_helpers.h"
#include "tests/compiler/test_graphs.h"
#include "tests/support/integer_reference.h"

using namespace npu;
using namespace npu::compiler;
using namespace npu::compiler::sim_checks;

TEST_CASE("int8 tiny model: simulated NPU equals the integer reference bit for bit", "[compiler][sim][int8]") {
  const std::string model = std::string(NPUSIM_SOURCE_DIR) + "/models/tiny_convnet.onnx";
  check_bit_exact(model, "default.yaml");
  check_bit_exact(model, "tiny-8x8.yaml");  // 64 KiB of SRAM: every layer is tiled
}

// ResNet-18 (residual qadd, max pool, gemm), MobileNetV2 (depthwise, Relu6 clamps, unfused
// Add) and the YOLO-style net (SiLU tables, concat, nearest resize) at 64x64 inputs.
TEST_CASE("int8 CNNs at 64x64: simulated NPU equals the integer reference bit for bit", "[compiler][sim][int8]") {
  for (const char* name : {"resnet18", "mobilenetv2", "yolo_style"}) {
    std::string model = std::string(NPUSIM_SMALL_MODELS_DIR) + "/" + name + ".onnx";
    REQUIRE_MODEL(model);
    check_bit_exact(model, "default.yaml");
  }
}

// The 40-TOPS preset's bandwidth-bound late layers rotate their weights through three buffers
// (npusim compile --debug-schedule: "3 weight buffers" on 8 of ResNet-18's layers).
TEST_CASE("int8 ResNet-18 at 64x64 on npu-40tops-55gbps: bit for bit", "[compiler][sim][int8]") {
  const std::string model = std::string(NPUSIM_SMALL_MODELS_DIR) + "/resnet18.onnx";
  REQUIRE_MODEL(model);
  check_bit_exact(model, "npu-40tops-55gbps.yaml");
}

// A 64 KiB scratchpad: every conv tiles down to channel slices and output-channel chunks (the
// kernel-row slices keep a real input row in every band) and stays bit-exact.
TEST_CASE("int8 CNNs at 64x64 on default.yaml with 64 KiB: bit for bit", "[compiler][sim][int8][tiling]") {
  for (const char* name : {"resnet18", "mobilenetv2", "yolo_style"}) {
    std::string model = std::string(NPUSIM_SMALL_MODELS_DIR) + "/" + name + ".onnx";
    REQUIRE_MODEL(model);
    check_bit_exact(model, "default.yaml", 64);
  }
}
