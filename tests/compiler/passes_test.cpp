#include <catch2/catch.hpp>

#include "compiler/backend/partition.h"
#include "compiler/frontend/passes.h"
#include "compiler/passes/passes.h"
#include "compiler/pipeline.h"
#include "tests/compiler/test_graphs.h"
#include "tests/compiler/test_helpers.h"

using namespace npu::compiler;
using testing::GraphBuilder;

namespace {

// x -> Conv -> BatchNormalization -> Relu -> out, plus a dead branch and a constant subgraph.
Graph conv_bn_relu(bool with_extras) {
  GraphBuilder b(7);
  auto x = b.input("x", {1, 4, 9, 9});
  auto& c = b.node("Conv", {x, b.random_constant("w", {6, 4, 3, 3}), b.random_constant("b", {6})}, "conv");
  c.set_ints("pads", {1, 1, 1, 1});
  b.node("BatchNormalization", {b.out("conv"), b.random_constant("s", {6}, 0.5f, 1.5f), b.random_constant("beta", {6}),
                                b.random_constant("m", {6}), b.random_constant("v", {6}, 0.5f, 2.0f)}, "bn");
  b.node("Relu", {b.out("bn")}, "relu");
  std::vector<std::string> outs = {b.out("relu")};
  if (with_extras) {
    b.node("Sigmoid", {b.out("conv")}, "dead");  // also makes conv's output shared: BN cannot fold
    b.node("Add", {b.constant("c1", {1}, {2.0f}), b.constant("c2", {1}, {3.0f})}, "const_add");
    b.node("Mul", {b.out("relu"), b.out("const_add")}, "scale");
    outs = {b.out("scale")};
  }
  return b.finish(outs);
}

}  // namespace

TEST_CASE("constant folding evaluates constant subgraphs", "[compiler][passes]") {
  Graph g = conv_bn_relu(true);
  REQUIRE(g.nodes.size() == 6);
  auto detail = fold_constants(g);
  CHECK(g.nodes.size() == 5);
  CHECK(detail == "folded 1 constant nodes");
  CHECK(g.tensor("const_add_out").is_constant);
  CHECK(g.tensor("const_add_out").floats == std::vector<float>{5.0f});
}

TEST_CASE("dead-node removal drops nodes nothing reads", "[compiler][passes]") {
  Graph g = conv_bn_relu(true);
  fold_constants(g);
  remove_dead_nodes(g);
  CHECK(g.nodes.size() == 4);  // conv, bn, relu, scale
  CHECK(count_op(g, "Sigmoid") == 0);
  CHECK(!g.has_tensor("c1"));
}

TEST_CASE("BatchNorm folding keeps the numbers", "[compiler][passes]") {
  Graph before = conv_bn_relu(false);
  Graph after = before;
  auto detail = fold_batchnorm(after);
  CHECK(detail == "1 BatchNormalization to scale and shift, 2 folded into the layer before, 0 into the conv after");
  CHECK(after.nodes.size() == 2);
  CHECK(count_op(after, "BatchNormalization") == 0);
  TensorMap in{{"x", testing::random_tensor({1, 4, 9, 9}, 11)}};
  auto a = evaluate_graph(before, in), b = evaluate_graph(after, in);
  CHECK(testing::max_abs_diff(a.at(before.outputs[0]), b.at(after.outputs[0])) < 1e-4f);
}

TEST_CASE("BatchNorm on a shared Conv output becomes a per-channel Mul and Add", "[compiler][passes]") {
  Graph before = conv_bn_relu(true);
  Graph g = before;
  fold_batchnorm(g);
  CHECK(count_op(g, "BatchNormalization") == 0);
  CHECK(count_op(g, "Mul") == 2);  // the BN's scale and the graph's own "scale"
  CHECK(count_op(g, "Add") == 2);  // the BN's shift and the constant Add
  TensorMap in{{"x", testing::random_tensor({1, 4, 9, 9}, 12)}};
  auto a = evaluate_graph(before, in), b = evaluate_graph(g, in);
  CHECK(testing::max_abs_diff(a.at(before.outputs[0]), b.at(g.outputs[0])) < 1e-4f);
}

TEST_CASE("fusion merges Conv + bias + activation and residual Add + Relu", "[compiler][passes]") {
  GraphBuilder b(3);
  auto x = b.input("x", {1, 8, 6, 6});
  auto& c1 = b.node("Conv", {x, b.random_constant("w1", {8, 8, 3, 3}), b.random_constant("b1", {8})}, "c1");
  c1.set_ints("pads", {1, 1, 1, 1});
  b.node("Sigmoid", {b.out("c1")}, "sig");
  b.node("Mul", {b.out("c1"), b.out("sig")}, "silu");
  b.node("Conv", {b.out("silu"), b.random_constant("w2", {8, 8, 1, 1})}, "c2");
  b.node("Add", {b.out("c2"), x}, "residual");
  b.node("Relu", {b.out("residual")}, "relu");
  b.node("Flatten", {b.out("relu")}, "flat");
  b.node("Gemm", {b.out("flat"), b.random_constant("fc", {4, 288}), b.random_constant("fcb", {4})}, "fc")
      .set_int("transB", 1);
  b.node("Clip", {b.out("fc"), b.constant("lo", {}, {0.0f}), b.constant("hi", {}, {6.0f})}, "relu6");
  Graph before = b.finish({b.out("relu6")});
  Graph after = before;
  std::vector<PassSummary> summaries;
  PassPipeline p({}, summaries);
  p.run("fusion", after, fuse_layers);
  REQUIRE(summaries.size() == 1);
  CHECK(summaries[0].nodes_before == 9);
  CHECK(summaries[0].nodes_after == 4);  // FusedConv(SiLU), FusedConv(+Add+Relu), Flatten, FusedGemm(Clip)
  CHECK(count_op(after, "FusedConv") == 2);
  CHECK(count_op(after, "FusedGemm") == 1);
  for (const auto& n : after.nodes) {
    if (n.name == "c1") CHECK(n.get_string("pattern", "") == "Conv+SiLU");
    if (n.name == "c2") CHECK(n.get_string("pattern", "") == "Conv+Add+Relu");
    if (n.name == "fc") CHECK(n.get_string("pattern", "") == "Gemm+Clip");
  }
  TensorMap in{{"x", testing::random_tensor({1, 8, 6, 6}, 5)}};
  auto a = evaluate_graph(before, in), c = evaluate_graph(after, in);
  CHECK(testing::max_abs_diff(a.at(before.outputs[0]), c.at(after.outputs[0])) < 1e-4f);
}

TEST_CASE("partitioning gives each fallback a reason and counts transitions", "[compiler][partition]") {
  GraphBuilder b(4);
  auto x = b.input("x", {1, 4, 8, 8});
  b.node("Conv", {x, b.random_constant("w", {4, 4, 3, 3})}, "conv").set_ints("pads", {1, 1, 1, 1});
  b.node("Tanh", {b.out("conv")}, "tanh");
  b.node("LpPool", {b.out("tanh")}, "lp").set_ints("kernel_shape", {1, 1});  // no NPU op
  auto& big = b.node("Conv", {b.out("lp"), b.random_constant("w2", {4, 4, 17, 17})}, "big_kernel");
  big.set_ints("pads", {8, 8, 8, 8});
  auto& ap = b.node("AveragePool", {b.out("big_kernel")}, "ceil_pool");
  ap.set_ints("kernel_shape", {3, 3});
  ap.set_ints("strides", {2, 2});
  ap.set_int("ceil_mode", 1);
  ap.set_int("count_include_pad", 1);  // the ceil overhang would be counted too
  b.node("MaxPool", {b.out("ceil_pool")}, "pool").set_ints("kernel_shape", {2, 2});
  Graph g = b.finish({b.out("pool")});
  fuse_layers(g);
  auto fallbacks = assign_devices(g, Precision::Int8, false);
  REQUIRE(fallbacks.size() == 3);
  CHECK(fallbacks[0].node == "lp");
  CHECK(fallbacks[0].reason == "op LpPool has no NPU instruction");
  CHECK(fallbacks[1].node == "big_kernel");
  CHECK(fallbacks[1].reason.find("kernel 17 exceeds the ISA's 4-bit field") != std::string::npos);
  CHECK(fallbacks[2].node == "ceil_pool");
  CHECK(fallbacks[2].reason.find("ceil_mode") != std::string::npos);
  auto steps = group_steps(g);
  CHECK(steps.size() == 3);  // npu (conv, tanh), cpu (lp, big, ceil_pool), npu (pool)
  CHECK(count_transitions(steps) == 2);
  CHECK(steps[1].inputs == std::vector<std::string>{"tanh_out"});
  CHECK(steps[1].outputs == std::vector<std::string>{"ceil_pool_out"});
}

TEST_CASE("strict mode names the first fallback node", "[compiler][partition][errors]") {
  GraphBuilder b;
  auto x = b.input("x", {1, 4});
  b.node("Relu", {x}, "relu");
  b.node("LpNormalization", {b.out("relu")}, "the_norm");
  Graph g = b.finish({b.out("the_norm")});
  CHECK_THROWS_WITH(assign_devices(g, Precision::Int8, true),
                    Catch::Contains("node 'the_norm' (LpNormalization)") && Catch::Contains("--strict"));
}

TEST_CASE("int8 and fp16 differ in what the NPU takes", "[compiler][partition]") {
  GraphBuilder b;
  auto x = b.input("x", {2, 10});
  b.node("Atan", {x}, "atan");  // any function of one value is an int8 table; fp16 needs an act function
  Graph g = b.finish({b.out("atan")});
  CHECK(npu_rejection(g, g.nodes[0], Precision::Int8).empty());
  CHECK(npu_rejection(g, g.nodes[0], Precision::Fp16).find("no fp16 act function") != std::string::npos);
}
