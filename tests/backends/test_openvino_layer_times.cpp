// OpenVINO's per-layer counters read back as ONNX nodes, on counter lists as OpenVINO 2026.4's
// CPU plugin printed them for models/tiny_convnet.onnx and resnet_small_opset11.onnx (names,
// types, execTypes and statuses copied; times chosen to make the arithmetic checkable).
#include <catch2/catch.hpp>

#include "backends/openvino_layer_times.h"

using namespace npu::backends;

namespace {

OpenVinoCounter ran(std::string node, std::string type, double mean_us, std::string exec = "jit_avx512_bf16") {
  return {std::move(node), std::move(type), std::move(exec), true, mean_us};
}
OpenVinoCounter fused(std::string node, std::string type) { return {std::move(node), std::move(type), "undef", false, 0}; }
OpenVinoCounter in_place(std::string node, std::string type) {
  return {std::move(node), std::move(type), "unknown_bf16", false, 0};
}

// tiny_convnet: Conv+BatchNorm+Relu blocks, MaxPool, GlobalAveragePool, Flatten, Gemm.
OnnxGraphNames tiny_convnet_names() {
  OnnxGraphNames n;
  for (const char* node : {"stem_conv", "stem_bn", "stem_relu", "block1_conv", "block1_bn", "block1_relu", "pool",
                           "block2_conv", "block2_bn", "block2_relu", "gap", "flatten", "fc"}) {
    n.nodes.insert(node);
    n.producer[std::string(node) + "_out"] = node;
  }
  return n;
}

// Counters of the same layers at two readings: mean since compile, `before_us` after 2 runs,
// `after_us` after 7.
std::vector<OpenVinoCounter> tiny_convnet_counters(bool after) {
  auto at = [&](double before_us, double after_us) { return after ? after_us : before_us; };
  return {
      {"input", "Parameter", "unknown_f32", false, 0},
      ran("input_f32_abcd_bf16_acdb_Multiply_3717", "Reorder", at(30, 10), "jit_uni_f32"),
      ran("Multiply_3717", "Convolution", at(100, 40), "brgconv_avx512_amx_bf16"),
      fused("stem_relu", "Relu"),
      ran("Multiply_3724", "Convolution", at(50, 20), "brgconv_avx512_amx_bf16"),
      fused("block1_relu", "Relu"),
      ran("pool", "MaxPool", at(20, 10)),
      ran("Multiply_3731", "Convolution", at(35, 10), "brgconv_avx512_amx_bf16"),  // nothing in the window
      fused("block2_relu", "Relu"),
      ran("gap", "ReduceMean", at(12, 5)),
      ran("gap_f32_acdb_bf16_abcd_flatten", "Reorder", at(8, 3), "jit_uni_f32"),
      in_place("flatten", "Reshape"),
      ran("fc_out", "FullyConnected", at(1400, 400), "brgemm_avx512_bf16"),
      ran("fc/WithoutBiases_abcd_fc_out/sink_port_0", "Reorder", at(4, 4), "jit_uni_f32"),
      {"fc_out/sink_port_0", "Result", "unknown_f32", false, 0},
  };
}

const LayerTime& find(const std::vector<LayerTime>& times, const std::string& node) {
  for (const auto& t : times)
    if (t.node == node) return t;
  FAIL("no layer time for " << node);
  return times.front();
}

}  // namespace

TEST_CASE("OpenVINO layer times: the window between two running means, traced to ONNX nodes", "[devices]") {
  const auto times = openvino_layer_times(tiny_convnet_counters(false), 2, tiny_convnet_counters(true), 7,
                                          tiny_convnet_names());
  // (mean_after * 7 - mean_before * 2) / 5 runs
  CHECK(find(times, "input_f32_abcd_bf16_acdb_Multiply_3717").time_us == Approx((10 * 7 - 30 * 2) / 5.0));
  CHECK(find(times, "Multiply_3717").time_us == Approx((40 * 7 - 100 * 2) / 5.0));
  // A convolution named after the BatchNorm multiply folded into it goes to the ReLU fused after it.
  CHECK(find(times, "Multiply_3717").onnx_node == "stem_relu");
  CHECK(find(times, "Multiply_3724").onnx_node == "block1_relu");
  CHECK(find(times, "pool").onnx_node == "pool");
  // The Reorders OpenVINO inserts trace to nothing: the in-place Flatten after one is not fused into it.
  CHECK(find(times, "input_f32_abcd_bf16_acdb_Multiply_3717").internal);
  CHECK(find(times, "gap_f32_acdb_bf16_abcd_flatten").internal);
  CHECK(find(times, "gap_f32_acdb_bf16_abcd_flatten").onnx_node.empty());
  CHECK(find(times, "fc/WithoutBiases_abcd_fc_out/sink_port_0").internal);
  CHECK_FALSE(find(times, "pool").internal);
}

TEST_CASE("OpenVINO layer times leave out layers that did not run or took no time in the window", "[devices]") {
  const auto times = openvino_layer_times(tiny_convnet_counters(false), 2, tiny_convnet_counters(true), 7,
                                          tiny_convnet_names());
  std::vector<std::string> nodes;
  for (const auto& t : times) nodes.push_back(t.node);
  // Multiply_3731's running total stayed at 70 us (35 x 2, 10 x 7): 0 us per run in the window;
  // fc_out's too (1400 x 2, 400 x 7: the first run repacks the weights).
  CHECK(nodes == std::vector<std::string>{"input_f32_abcd_bf16_acdb_Multiply_3717", "Multiply_3717", "Multiply_3724",
                                          "pool", "gap", "gap_f32_acdb_bf16_abcd_flatten",
                                          "fc/WithoutBiases_abcd_fc_out/sink_port_0"});
}

TEST_CASE("OpenVINO layer names: ONNX node, sub-op of a node, tensor, or none", "[devices]") {
  OnnxGraphNames n;
  n.nodes = {"/conv1/Conv", "/layers/layers.0/Add", "/fc/Gemm", "/Flatten"};
  n.producer = {{"logits", "/fc/Gemm"}, {"/conv1/Conv_output_0", "/conv1/Conv"}};
  CHECK(onnx_node_of("/conv1/Conv/WithoutBiases", n) == "/conv1/Conv");  // the Conv without its bias Add
  CHECK(onnx_node_of("/layers/layers.0/Add", n) == "/layers/layers.0/Add");
  CHECK(onnx_node_of("logits", n) == "/fc/Gemm");  // a FullyConnected named after the Gemm's output
  CHECK(onnx_node_of("input_f32_abcd_bf16_acdb_/conv1/Conv/WithoutBiases", n).empty());
  CHECK(onnx_node_of("/avgpool/GlobalAveragePool_f32_acdb_bf16_abcd_/Flatten", n).empty());
  CHECK(onnx_node_of("VariadicSplit_4995", n).empty());
  // A Reorder's name joins its neighbours' names: taken whole or not at all.
  CHECK(onnx_node_of("/conv1/Conv/WithoutBiases_acdb_abcd_logits/sink_port_0", n) == "/conv1/Conv");
  CHECK(onnx_node_of("/conv1/Conv/WithoutBiases_acdb_abcd_logits/sink_port_0", n, true).empty());
  CHECK(onnx_node_of("/conv1/Conv_output_0", n, true) == "/conv1/Conv");
  CHECK(onnx_node_of("", n).empty());
}

TEST_CASE("ONNX Runtime profiler names: NCHWc nodes by their output tensor, fusions by their node", "[devices]") {
  OnnxGraphNames n;
  n.nodes = {"stem_conv", "stem_relu", "fc_matmul", "/layer1/relu/Relu"};
  n.producer = {{"stem_relu_out", "stem_relu"}, {"/layer1/relu/Relu_output_0", "/layer1/relu/Relu"}};
  CHECK(onnx_node_of("stem_relu_out_nchwc", n) == "stem_relu");  // the Conv+Relu the NCHWc pass made
  CHECK(onnx_node_of("/layer1/relu/Relu_output_0_nchwc", n) == "/layer1/relu/Relu");
  CHECK(onnx_node_of("fc_matmul/MatMulAddFusion", n) == "fc_matmul");
  CHECK(onnx_node_of("ReorderOutput", n).empty());  // inserted by the pass: no ONNX origin
  CHECK(onnx_node_of("_nchwc", n).empty());
}

TEST_CASE("OpenVINO layer times need runs between the two readings", "[devices]") {
  CHECK_THROWS_AS(openvino_layer_times({}, 3, {}, 3, {}), std::invalid_argument);
}
