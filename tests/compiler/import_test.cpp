#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "compiler/frontend/onnx_io.h"
#include "compiler/frontend/opset_upgrade.h"
#include "compiler/frontend/passes.h"
#include "compiler/passes/passes.h"
#include "compiler/reference/float_evaluator.h"
#include "tests/compiler/test_graphs.h"
#include "tests/compiler/test_helpers.h"

using namespace npu::compiler;

namespace {

const std::string kTestData = "/usr/include/onnx/backend/test/data/";  // Debian's libonnx-testdata
const std::string kNodeTests = kTestData + "node/";
const std::string kTinyModel = std::string(NPUSIM_SOURCE_DIR) + "/models/tiny_convnet.onnx";

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("the bundled tiny model imports with weights and shapes", "[compiler][import]") {
  Graph g = import_onnx(kTinyModel);
  CHECK(g.inputs == std::vector<std::string>{"input"});
  CHECK(g.outputs.size() == 1);
  CHECK(count_op(g, "Conv") == 3);
  CHECK(count_op(g, "BatchNormalization") == 3);
  CHECK(count_op(g, "Gemm") == 1);
  const Tensor& out = g.tensor(g.outputs[0]);
  CHECK(out.shape == std::vector<std::int64_t>{1, 10});
  // every node output has a static shape
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) CHECK(g.tensor(o).shape_known);
  const Tensor& w = g.tensor(g.nodes[0].inputs[1]);
  CHECK(w.is_constant);
  CHECK(w.shape == std::vector<std::int64_t>{8, 3, 3, 3});
  CHECK(w.floats.size() == 8 * 3 * 3 * 3);
}

TEST_CASE("ONNX node tests import and infer shapes", "[compiler][import]") {
  struct Case { const char* name; std::vector<std::int64_t> shape; };
  std::vector<Case> cases = {
      {"test_conv_with_strides_padding", {1, 1, 4, 3}},
      {"test_conv_with_strides_no_padding", {1, 1, 3, 2}},
      {"test_relu", {3, 4, 5}},
      {"test_maxpool_2d_pads", {1, 3, 30, 30}},
      {"test_maxpool_2d_ceil", {1, 1, 2, 2}},
      {"test_averagepool_2d_same_upper", {1, 3, 32, 32}},
      {"test_globalaveragepool", {1, 3, 1, 1}},
      {"test_gemm_default_matrix_bias", {3, 4}},
      {"test_concat_2d_axis_1", {2, 4}},
      {"test_flatten_axis1", {2, 60}},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    Graph g = import_onnx(kNodeTests + c.name + "/model.onnx");
    REQUIRE(g.outputs.size() >= 1);
    const Tensor& out = g.tensor(g.outputs[0]);
    CHECK(out.shape_known);
    CHECK(out.shape == c.shape);
  }
}

TEST_CASE("Constant nodes become weights", "[compiler][import]") {
  // test_constant has a Constant node feeding the output
  Graph g = import_onnx(kNodeTests + "test_constant/model.onnx");
  CHECK(g.nodes.empty());
  CHECK(g.tensor(g.outputs[0]).is_constant);
  CHECK(g.tensor(g.outputs[0]).floats.size() == 25);
}

TEST_CASE("our shape inference matches the values of window formulas", "[compiler][shapes]") {
  testing::GraphBuilder b;
  auto x = b.input("x", {1, 3, 17, 23});
  b.node("Conv", {x, b.random_constant("w", {8, 3, 3, 3})}, "conv")
      .set_ints("strides", {2, 2});
  auto& c = b.node("Conv", {x, b.random_constant("w2", {6, 1, 5, 5})}, "dw");
  c.set_int("group", 3);
  c.set_ints("pads", {2, 2, 2, 2});
  c.set_ints("dilations", {2, 1});
  auto& p = b.node("MaxPool", {x}, "pool");
  p.set_ints("kernel_shape", {3, 3});
  p.set_ints("strides", {2, 2});
  p.set_int("ceil_mode", 1);
  auto& s = b.node("AveragePool", {x}, "same");
  s.set_ints("kernel_shape", {3, 3});
  s.set_ints("strides", {2, 2});
  s.set_string("auto_pad", "SAME_UPPER");
  Graph g = b.finish({b.out("conv"), b.out("dw"), b.out("pool"), b.out("same")});
  CHECK(g.tensor(b.out("conv")).shape == std::vector<std::int64_t>{1, 8, 8, 11});
  CHECK(g.tensor(b.out("dw")).shape == std::vector<std::int64_t>{1, 6, 13, 23});
  CHECK(g.tensor(b.out("pool")).shape == std::vector<std::int64_t>{1, 3, 8, 11});
  CHECK(g.tensor(b.out("same")).shape == std::vector<std::int64_t>{1, 3, 9, 12});
}

TEST_CASE("a truncated or non-ONNX file is one clear error", "[compiler][import][errors]") {
  auto bytes = read_bytes(kTinyModel);
  REQUIRE(bytes.size() > 1000);
  bytes.resize(bytes.size() / 2);
  try {
    import_onnx_bytes(bytes, "half.onnx");
    FAIL("no error");
  } catch (const CompileError& e) {
    std::string m = e.what();
    CHECK(m.find("half.onnx") != std::string::npos);
    CHECK(m.find("not a valid ONNX model") != std::string::npos);
    CHECK(m.find('\n') == std::string::npos);
  }
  std::string text = "name: not a model\n";
  std::vector<std::uint8_t> junk(text.begin(), text.end());
  CHECK_THROWS_WITH(import_onnx_bytes(junk, "junk.txt"), Catch::Contains("junk.txt") && Catch::Contains("not a valid ONNX"));
  CHECK_THROWS_WITH(import_onnx("/nonexistent/model.onnx"), Catch::Contains("cannot open"));
}

TEST_CASE("a dynamic dimension is an error naming input and dim unless fixed", "[compiler][import][errors]") {
  // Make a copy of the tiny model with a symbolic batch dimension through the IR round trip.
  Graph g = import_onnx(kTinyModel);
  g.tensor("input").shape_known = false;
  auto bytes = export_onnx(g);
  // export writes the shape only when known: the input now has no shape at all
  CHECK_THROWS_WITH(import_onnx_bytes(bytes, "dyn.onnx"), Catch::Contains("input 'input'"));
  Graph fixed = import_onnx_bytes(bytes, "dyn.onnx", {"input=1x3x32x32"});
  CHECK(fixed.tensor(fixed.outputs[0]).shape == std::vector<std::int64_t>{1, 10});
  CHECK_THROWS_WITH(import_onnx_bytes(bytes, "dyn.onnx", {"nosuch=1x3"}), Catch::Contains("nosuch"));
}

TEST_CASE("a symbolic batch dim is named in the error", "[compiler][import][errors]") {
  // test_... models have static shapes; build a symbolic one by editing the exported proto text
  Graph g = import_onnx(kTinyModel);
  g.tensor("input").shape = {-1, 3, 32, 32};
  auto bytes = export_onnx(g);  // -1 is written as dim_value -1: treated as unknown
  CHECK_THROWS_WITH(import_onnx_bytes(bytes, "dyn.onnx"),
                    Catch::Contains("input 'input' dim 0") && Catch::Contains("dynamic"));
}

TEST_CASE("the FP32 evaluator reproduces ONNX node test outputs", "[compiler][reference]") {
  const char* names[] = {
      "test_conv_with_strides_padding", "test_conv_with_strides_and_asymmetric_padding",
      "test_conv_with_autopad_same", "test_basic_conv_with_padding", "test_relu", "test_sigmoid",
      "test_hardswish", "test_hardsigmoid", "test_leakyrelu", "test_clip", "test_add", "test_mul",
      "test_add_bcast", "test_maxpool_2d_pads", "test_maxpool_2d_ceil", "test_maxpool_2d_dilations",
      "test_averagepool_2d_pads", "test_averagepool_2d_pads_count_include_pad",
      "test_averagepool_2d_same_upper", "test_averagepool_2d_ceil", "test_globalaveragepool",
      "test_gemm_default_matrix_bias", "test_gemm_transposeB", "test_gemm_alpha", "test_matmul_3d",
      "test_concat_3d_axis_1", "test_flatten_axis1", "test_reshape_reordered_all_dims",
      "test_softmax_axis_1", "test_softmax_example", "test_batchnorm_example",
      "test_resize_upsample_scales_nearest", "test_transpose_all_permutations_2"};
  for (const char* name : names) {
    INFO(name);
    std::string dir = kNodeTests + name + "/";
    Graph g = import_onnx(dir + "model.onnx");
    TensorMap in;
    for (std::size_t i = 0; i < g.inputs.size(); ++i)
      in[g.inputs[i]] = constant_as_float(read_tensor_pb(dir + "test_data_set_0/input_" + std::to_string(i) + ".pb"));
    auto values = evaluate_graph(g, in);
    for (std::size_t o = 0; o < g.outputs.size(); ++o) {
      FloatTensor expected = constant_as_float(read_tensor_pb(dir + "test_data_set_0/output_" + std::to_string(o) + ".pb"));
      const FloatTensor& got = values.at(g.outputs[o]);
      CHECK(got.shape == expected.shape);
      CHECK(testing::max_abs_diff(got, expected) < 1e-4f);
    }
  }
}

namespace {

// ONNX test directories (model.onnx + test_data_set_0) whose every op the FP32 evaluator runs.
std::vector<std::string> evaluator_node_tests(const std::string& root) {
  std::vector<std::string> dirs;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root, ec))
    if (std::filesystem::exists(e.path() / "model.onnx") && std::filesystem::exists(e.path() / "test_data_set_0"))
      dirs.push_back(e.path().string());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

// Runs one test directory through import, the static-shape front end, the opset upgrade and
// the FP32 evaluator; "" when every output matches, else what differs (one line).
std::string run_through_evaluator(const std::string& dir) {
  try {
    Graph g = import_onnx(dir + "/model.onnx");
    for (const auto& n : g.nodes)
      if (!evaluator_supports(n)) return "unsupported op " + n.op_type;
    fold_static_shapes(g);
    upgrade_opset(g);
    fold_static_shapes(g);
    TensorMap in;
    for (std::size_t i = 0; i < g.inputs.size(); ++i)
      in[g.inputs[i]] = constant_as_float(read_tensor_pb(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb"));
    auto values = evaluate_graph(g, in);
    for (std::size_t o = 0; o < g.outputs.size(); ++o) {
      const Tensor expected_t = read_tensor_pb(dir + "/test_data_set_0/output_" + std::to_string(o) + ".pb");
      FloatTensor expected = constant_as_float(expected_t);
      auto it = values.find(g.outputs[o]);
      if (it == values.end()) return "output " + g.outputs[o] + " not computed";
      const FloatTensor& got = it->second;
      if (got.shape != expected.shape)
        return "output " + g.outputs[o] + " shape " + shape_string(got.shape) + ", expected " + shape_string(expected.shape);
      for (std::size_t k = 0; k < got.data.size(); ++k) {
        const float a = got.data[k], e = expected.data[k];
        if (std::isnan(a) && std::isnan(e)) continue;
        if (std::isinf(e) && a == e) continue;
        if (!(std::fabs(a - e) <= 1e-4f + 1e-4f * std::fabs(e)))
          return "output " + g.outputs[o] + "[" + std::to_string(k) + "] = " + std::to_string(a) + ", expected " +
                 std::to_string(e);
      }
    }
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// Node tests the FP32 evaluator cannot pass, by name prefix, with why. The test also checks each
// entry still fails, so the list cannot go stale.
const std::vector<std::pair<std::string, std::string>> kEvaluatorExceptions = {
    {"test_averagepool_3d", "3-D windows: the evaluator runs 1-D and 2-D Conv/pooling (the CPU path runs 3-D)"},
    {"test_maxpool_3d", "3-D windows: the evaluator runs 1-D and 2-D Conv/pooling (the CPU path runs 3-D)"},
    {"test_convtranspose_3d", "3-D windows: the evaluator runs 1-D and 2-D Conv/pooling (the CPU path runs 3-D)"},

    {"test_batchnorm_epsilon_training_mode", "training-mode BatchNormalization (running statistics outputs)"},
    {"test_batchnorm_example_training_mode", "training-mode BatchNormalization (running statistics outputs)"},
    {"test_training_dropout", "training-mode Dropout draws a random mask"},
    {"test_cast_BFLOAT16", "bfloat16: the graph IR holds no such element type"},
    {"test_cast_FLOAT_to_BFLOAT16", "bfloat16: the graph IR holds no such element type"},
    {"test_castlike_BFLOAT16", "bfloat16: the graph IR holds no such element type"},
    {"test_castlike_FLOAT_to_BFLOAT16", "bfloat16: the graph IR holds no such element type"},
    {"test_cast_FLOAT_to_STRING", "string tensors: numeric tensors only"},
    {"test_cast_STRING", "string tensors: numeric tensors only"},
    {"test_castlike_FLOAT_to_STRING", "string tensors: numeric tensors only"},
    {"test_castlike_STRING", "string tensors: numeric tensors only"},
    {"test_identity_opt", "optional values: tensors only"},
    {"test_optional_", "optional values: tensors only"},
    {"test_identity_sequence", "sequence values: tensors only"},
    {"test_sequence_", "sequence values: tensors only"},
    {"test_loop13_seq", "sequence values: tensors only"},
    {"test_loop16_seq_none", "sequence values: tensors only"},
    {"test_resize_downsample_scales_cubic", "Resize mode cubic is not implemented (nearest and linear are)"},
    {"test_resize_downsample_sizes_cubic", "Resize mode cubic is not implemented (nearest and linear are)"},
    {"test_resize_upsample_scales_cubic", "Resize mode cubic is not implemented (nearest and linear are)"},
    {"test_resize_upsample_sizes_cubic", "Resize mode cubic is not implemented (nearest and linear are)"},
    {"test_resize_tf_crop_and_resize", "coordinate mode tf_crop_and_resize is not implemented"},
    {"test_resize_downsample_scales_linear_align_corners",
     "align_corners with a scale whose output length rounds: the reference divides by scale x length, the "
     "evaluator (like ONNX Runtime) by the integer output length"},
};

const std::vector<std::pair<std::string, std::string>> kPytorchExceptions = {
    {"test_AvgPool3d", "3-D windows: the evaluator runs 1-D and 2-D Conv/pooling (the CPU path runs 3-D)"},
    {"test_MaxPool3d", "3-D windows: the evaluator runs 1-D and 2-D Conv/pooling (the CPU path runs 3-D)"},
    {"test_Conv3d", "3-D windows: the evaluator runs 1-D and 2-D Conv/pooling (the CPU path runs 3-D)"},
};

using Exceptions = std::vector<std::pair<std::string, std::string>>;

void check_test_directories(const std::vector<std::string>& roots, const Exceptions& exceptions, int at_least) {
  auto expected_failure = [&](const std::string& name) -> std::string {
    for (const auto& [prefix, why] : exceptions)
      if (name.rfind(prefix, 0) == 0) return prefix;
    return "";
  };
  int ran = 0;
  std::set<std::string> excused;
  std::vector<std::string> dirs;
  for (const auto& root : roots)
    for (auto& d : evaluator_node_tests(root)) dirs.push_back(std::move(d));
  for (const auto& dir : dirs) {
    std::string why = run_through_evaluator(dir);
    if (why.rfind("unsupported op", 0) == 0) continue;
    ++ran;
    const std::string name = std::filesystem::path(dir).filename().string();
    const std::string exception = expected_failure(name);
    if (!exception.empty()) {
      if (!why.empty()) excused.insert(exception);
      continue;
    }
    if (!why.empty()) FAIL_CHECK(name << ": " << why);
  }
  CHECK(ran >= at_least);
  for (const auto& [prefix, reason] : exceptions)
    if (!excused.count(prefix)) FAIL_CHECK(prefix << " is listed as failing (" << reason << ") but passes");
}

TEST_CASE("the FP32 evaluator matches every ONNX node test whose ops it runs", "[compiler][reference]") {
  check_test_directories({kNodeTests}, kEvaluatorExceptions, 650);
}

TEST_CASE("the opset-6 PyTorch node tests run through the opset upgrade and the FP32 evaluator",
          "[compiler][reference]") {
  // libonnx-testdata's pytorch-converted and pytorch-operator: opset 6 models (broadcast
  // attributes, BatchNormalization-6, Upsample, Softmax before 13, ...) upgraded to 17.
  check_test_directories({kTestData + "pytorch-converted/", kTestData + "pytorch-operator/"}, kPytorchExceptions, 100);
}
