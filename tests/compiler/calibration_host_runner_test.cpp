// One op calibration's FP32 evaluator has no kernel for (LpNormalization, which has no NPU
// instruction either) between convolutions: without a host runner the convolutions after it
// lose their int8 ranges and run in fp16 on the NPU, the warning naming the op to blame; with
// one, they are int8. Either way only the op itself runs on the CPU.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "compiler/compile.h"
#include "compiler/frontend/onnx_io.h"
#include "compiler/quant/quantize.h"
#include "test_graphs.h"
#include "tests/compiler/test_helpers.h"

using namespace npu;
using namespace npu::compiler;

namespace {

// x -> conv1 -> relu1 -> lpnorm -> conv2 -> relu2 -> conv3 -> y, 1x1 convolutions.
std::string model_with_an_op_without_kernels() {
  testing::GraphBuilder b;
  b.input("x", {1, 8, 8, 8});
  b.node("Conv", {"x", b.random_constant("w1", {16, 8, 1, 1}), b.random_constant("b1", {16})}, "conv1");
  b.node("Relu", {b.out("conv1")}, "relu1");
  b.node("LpNormalization", {b.out("relu1")}, "lpnorm").set_int("axis", 1);
  b.node("Conv", {b.out("lpnorm"), b.random_constant("w2", {16, 16, 1, 1}), b.random_constant("b2", {16})}, "conv2");
  b.node("Relu", {b.out("conv2")}, "relu2");
  b.node("Conv", {b.out("relu2"), b.random_constant("w3", {8, 16, 1, 1}), b.random_constant("b3", {8})}, "conv3");
  Graph g = b.finish({b.out("conv3")});
  // One file per process: ctest runs this file's test cases in parallel, each writing the model.
  const auto path = (std::filesystem::temp_directory_path() /
                     ("npusim_lpnorm_between_convs_" + std::to_string(::getpid()) + ".onnx")).string();
  write_onnx(g, path);
  return path;
}

// What ONNX Runtime would compute for LpNormalization(p=2) over the channels of an NCHW tensor.
std::vector<FloatTensor> l2_normalise_channels(const CpuStep& step, const std::vector<HostStepInput>& inputs) {
  REQUIRE(step.node_names == std::vector<std::string>{"lpnorm"});
  REQUIRE(inputs.size() == 1);
  FloatTensor y = *inputs[0].value;
  const std::int64_t c = y.shape[1], hw = y.shape[2] * y.shape[3];
  for (std::int64_t p = 0; p < hw; ++p) {
    float sum = 0.0f;
    for (std::int64_t k = 0; k < c; ++k) sum += y.data[k * hw + p] * y.data[k * hw + p];
    const float norm = std::sqrt(sum);
    for (std::int64_t k = 0; k < c; ++k) y.data[k * hw + p] = norm > 0.0f ? y.data[k * hw + p] / norm : 0.0f;
  }
  return {y};
}

}  // namespace

TEST_CASE("calibration without a host runner: the layers after the op run in fp16, the warning names it and why",
          "[calibration][host_runner]") {
  CompileOptions o;  // no host_runner: what the compiler alone can do
  const CompiledModel m = compile(model_with_an_op_without_kernels(), default_config(), o);
  REQUIRE(m.fallbacks.size() == 1);
  CHECK(m.fallbacks[0].node == "lpnorm");
  CHECK(m.fallbacks[0].reason == "op LpNormalization has no NPU instruction");
  // The convolutions after it have no int8 ranges: fp16 on the NPU, not the CPU.
  REQUIRE(m.quantization.fp16_layers.size() == 2);
  for (const auto& layer : m.quantization.fp16_layers) CHECK((layer.find("conv2") != std::string::npos || layer.find("conv3") != std::string::npos));
  std::string warning;
  for (const auto& w : m.warnings)
    if (w.find("run in fp16 on the NPU") != std::string::npos) warning = w;
  INFO(warning);
  CHECK(warning.find("calibration could not run 'lpnorm' (LpNormalization): the FP32 evaluator has no kernel for "
                     "this op; nothing else to run it on") != std::string::npos);
  CHECK(warning.find('\n') == std::string::npos);
}

TEST_CASE("calibration with a host runner: an op without kernels costs only itself", "[calibration][host_runner]") {
  CompileOptions o;
  int calls = 0;
  o.host_runner = [&calls](const CpuStep& step, const std::vector<HostStepInput>& inputs) {
    ++calls;
    return l2_normalise_channels(step, inputs);
  };
  const CompiledModel m = compile(model_with_an_op_without_kernels(), default_config(), o);
  REQUIRE(m.fallbacks.size() == 1);
  CHECK(m.fallbacks[0].node == "lpnorm");
  CHECK(calls == 2);  // once per generated calibration sample: the one-node step is made once
}

TEST_CASE("calibration: a host runner that fails is named in the fp16 warning", "[calibration][host_runner]") {
  CompileOptions o;
  o.host_runner = [](const CpuStep&, const std::vector<HostStepInput>&) -> std::vector<FloatTensor> {
    throw std::runtime_error("onnxruntime is not installed");
  };
  const CompiledModel m = compile(model_with_an_op_without_kernels(), default_config(), o);
  REQUIRE(m.fallbacks.size() == 1);
  CHECK(m.quantization.fp16_layers.size() == 2);
  bool named = false;
  for (const auto& w : m.warnings)
    named = named || w.find("calibration could not run 'lpnorm' (LpNormalization): the FP32 evaluator has no kernel for "
                            "this op; onnxruntime is not installed") != std::string::npos;
  CHECK(named);
}

TEST_CASE("generated integer inputs: token ids within every table they index, other integers all ones",
          "[calibration][integer_inputs]") {
  testing::GraphBuilder b;
  b.input("ids", {1, 4});
  b.graph().tensors["ids"].elem_type = kInt64;
  b.input("mask", {1, 4});
  b.graph().tensors["mask"].elem_type = kInt64;
  // Token embedding (10 rows) and, two rows further on (OPT's positions + 2), a position
  // embedding of 8 rows: valid ids are those both accept, [0, 6).
  b.node("Gather", {b.random_constant("tokens", {10, 4}), "ids"}, "wte");
  b.node("Add", {"ids", b.int_constant("two", {}, {2})}, "shifted");
  b.node("Gather", {b.random_constant("positions", {8, 4}), b.out("shifted")}, "wpe");
  b.node("Add", {b.out("wte"), b.out("wpe")}, "embedded");
  b.node("Cast", {"mask"}, "mask_float").set_int("to", kFloat);
  b.node("Mul", {b.out("embedded"), b.out("mask_float")}, "masked");
  const Graph g = b.finish({b.out("masked")});

  const IntegerInputValues ids = integer_input_values(g, "ids");
  CHECK(ids.lo == 0);
  CHECK(ids.hi == 6);
  CHECK(ids.why.find("uniform in [0, 6)") != std::string::npos);
  const IntegerInputValues mask = integer_input_values(g, "mask");
  CHECK(mask.lo == 1);
  CHECK(mask.hi == 2);
  CHECK(mask.why.find("all ones") != std::string::npos);
}
