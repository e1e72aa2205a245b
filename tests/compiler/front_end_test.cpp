// The static-shape front end and the canonicalisation passes on small hand-built graphs: each
// rewrite is checked by op counts and numerically (FP32 evaluator, before vs after).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "compiler/core/node_parameters.h"
#include "compiler/frontend/onnx_io.h"
#include "compiler/frontend/opset_upgrade.h"
#include "compiler/frontend/passes.h"
#include "compiler/passes/passes.h"
#include "tests/compiler/test_graphs.h"
#include "tests/compiler/test_helpers.h"

using namespace npu::compiler;
using testing::GraphBuilder;

namespace {

const Node& node_named(const Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  FAIL("no node " << name);
  return g.nodes.front();
}

// Every output of `after` equals the same output of `before` on one random input per graph input.
void check_same_outputs(const Graph& before, const Graph& after, float tolerance = 1e-5f, unsigned seed = 3) {
  TensorMap in;
  for (const auto& name : before.inputs) in[name] = testing::random_tensor(before.tensor(name).shape, seed++);
  auto a = evaluate_graph(before, in), b = evaluate_graph(after, in);
  for (const auto& o : before.outputs) {
    INFO(o);
    REQUIRE(b.count(o));
    CHECK(a.at(o).shape == b.at(o).shape);
    CHECK(testing::max_abs_diff(a.at(o), b.at(o)) < tolerance);
  }
}

std::string scalar(GraphBuilder& b, const std::string& name, float v) { return b.constant(name, {}, {v}); }

std::string int64_input(GraphBuilder& b, const std::string& name, std::vector<std::int64_t> shape) {
  const std::string v = b.input(name, std::move(shape));
  b.graph().tensor(v).elem_type = kInt64;
  return v;
}

// transformers' attention mask [1, T] as a float [1, 1, 1, T]: Cast(Unsqueeze(Unsqueeze(mask))).
std::string mask_as_float(GraphBuilder& b, const std::string& mask) {
  b.node("Unsqueeze", {mask, b.int_constant("ax1", {1}, {1})}, "u1");
  b.node("Unsqueeze", {b.out("u1"), b.int_constant("ax2", {1}, {2})}, "u2");
  b.node("Cast", {b.out("u2")}, "m").set_int("to", kFloat);
  return b.out("m");
}

}  // namespace

TEST_CASE("integer shape arithmetic folds exactly: PyTorch's chunk (C + 2) / 3 is 64 for 192, not 65",
          "[compiler][front-end]") {
  // Regression: folding computed int64 Div in float and rounded, so 194 / 3 = 64.67 became 65 and
  // the TransformerEncoder/ViT exports failed in ONNX Runtime (Reshape of 32x1x65 to 32x4x16),
  // ShuffleNet's channel split with "C: 57 kernel channels: 58".
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 192});
  b.node("Shape", {x}, "shape");
  b.node("Gather", {b.out("shape"), b.int_constant("last", {}, {2})}, "dim");
  b.node("Add", {b.out("dim"), b.int_constant("two", {}, {2})}, "plus");
  b.node("Div", {b.out("plus"), b.int_constant("three", {}, {3})}, "chunk");
  b.node("Unsqueeze", {b.out("chunk"), b.int_constant("axis0", {1}, {0})}, "end");
  b.node("Mul", {b.out("end"), b.int_constant("twice", {1}, {2})}, "end2");
  b.node("Slice", {x, b.int_constant("zero", {1}, {0}), b.out("end"), b.int_constant("axes", {1}, {2})}, "q");
  b.node("Slice", {x, b.out("end"), b.out("end2"), b.int_constant("axes2", {1}, {2})}, "k");
  Graph before = b.finish({b.out("q"), b.out("k")});
  Graph g = before;
  fold_static_shapes(g);
  CHECK(g.nodes.size() == 2);
  CHECK(node_named(g, "q").get_ints("ends") == std::vector<std::int64_t>{64});
  CHECK(node_named(g, "k").get_ints("starts") == std::vector<std::int64_t>{64});
  CHECK(node_named(g, "k").get_ints("ends") == std::vector<std::int64_t>{128});
  CHECK(node_named(g, "q").inputs.size() == 1);  // parameters are attributes now
  CHECK(g.tensor(b.out("q")).shape == std::vector<std::int64_t>{1, 4, 64});
  CHECK(g.tensor("chunk_out").ints == std::vector<std::int64_t>{64});
  check_same_outputs(before, g);
}

TEST_CASE("INT64_MAX slice ends stay exact and clamp", "[compiler][front-end]") {
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 6});
  b.node("Slice", {x, b.int_constant("s", {1}, {2}), b.int_constant("e", {1}, {INT64_MAX}), b.int_constant("a", {1}, {-1})},
         "tail");
  Graph before = b.finish({b.out("tail")});
  Graph g = before;
  fold_static_shapes(g);
  CHECK(node_named(g, "tail").get_ints("ends") == std::vector<std::int64_t>{INT64_MAX});
  CHECK(g.tensor(b.out("tail")).shape == std::vector<std::int64_t>{1, 3, 4});
  check_same_outputs(before, g);
}

TEST_CASE("Shape->Gather->Unsqueeze->Concat->Reshape chains and Range/Expand anchors fold away",
          "[compiler][front-end]") {
  GraphBuilder b;
  auto x = b.input("x", {1, 8, 4, 4});
  b.node("Shape", {x}, "shape");
  for (int d = 0; d < 4; ++d)
    b.node("Gather", {b.out("shape"), b.int_constant("i" + std::to_string(d), {}, {d})}, "d" + std::to_string(d));
  b.node("Mul", {b.out("d2"), b.out("d3")}, "hw");
  for (const char* d : {"d0", "d1", "hw"})
    b.node("Unsqueeze", {b.out(d), b.int_constant(std::string("ax_") + d, {1}, {0})}, std::string("u_") + d);
  b.node("Concat", {b.out("u_d0"), b.out("u_d1"), b.out("u_hw")}, "target").set_int("axis", 0);
  b.node("Reshape", {x, b.out("target")}, "flat");
  // anchors: Range(0, W) in float, expanded to H x W and added to the input
  b.node("Cast", {b.out("d3")}, "w_float").set_int("to", kFloat);
  b.node("Range", {scalar(b, "start", 0.0f), b.out("w_float"), scalar(b, "delta", 1.0f)}, "anchors");
  b.node("Expand", {b.out("anchors"), b.int_constant("grid_shape", {2}, {4, 4})}, "grid");
  b.node("Add", {x, b.out("grid")}, "shifted");
  Graph before = b.finish({b.out("flat"), b.out("shifted")});
  Graph g = before;
  auto detail = fold_static_shapes(g);
  remove_dead_nodes(g);
  INFO(detail);
  CHECK(count_op(g, "Shape") == 0);
  CHECK(count_op(g, "Range") == 0);
  CHECK(count_op(g, "Expand") == 0);
  CHECK(g.nodes.size() == 2);  // Reshape, Add
  CHECK(node_named(g, "flat").get_ints("shape") == std::vector<std::int64_t>{1, 8, 16});
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) CHECK(g.tensor(o).shape_known);
  check_same_outputs(before, g);
}

TEST_CASE("parameters as attributes survive export at the graph's opset and re-import", "[compiler][front-end]") {
  GraphBuilder b;
  auto x = b.input("x", {1, 6, 4, 4});
  b.node("Split", {x, b.int_constant("sizes", {2}, {2, 4})}, "split").set_int("axis", 1);
  b.graph().nodes.back().outputs = {"split_a", "split_b"};
  b.graph().tensors["split_a"].name = "split_a";
  b.graph().tensors["split_b"].name = "split_b";
  b.node("Pad", {"split_a", b.int_constant("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1}), scalar(b, "pv", 0.5f)}, "pad");
  b.node("Clip", {"split_b", scalar(b, "lo", -0.3f), scalar(b, "hi", 0.4f)}, "clip");
  b.node("ReduceSum", {b.out("clip"), b.int_constant("raxes", {1}, {1})}, "sum");
  b.node("Unsqueeze", {b.out("sum"), b.int_constant("uaxes", {1}, {0})}, "unsq");
  b.node("Resize", {b.out("pad"), "", b.constant("scales", {4}, {1, 1, 2, 2})}, "up").set_string("mode", "nearest");
  Graph before = b.finish({b.out("up"), b.out("unsq")});
  Graph g = before;
  fold_static_shapes(g);
  for (const auto& n : g.nodes) {
    INFO(n.name);
    CHECK(n.inputs.size() == 1);
  }
  CHECK(node_named(g, "split").get_ints("split") == std::vector<std::int64_t>{2, 4});
  CHECK(node_named(g, "clip").get_float("max", 0) == Approx(0.4f));
  CHECK(node_named(g, "up").attributes.at("scales").floats == std::vector<float>{1, 1, 2, 2});
  check_same_outputs(before, g);
  // opset 13 takes these as inputs: the export writes them so, the import reads them back
  Graph back = import_onnx_bytes(export_onnx(g), "roundtrip.onnx");
  CHECK(parameter_input("Split", "split", back.opset) == 1);
  CHECK(node_named(back, "split").inputs.size() == 2);
  fold_static_shapes(back);
  CHECK(node_named(back, "split").inputs.size() == 1);
  check_same_outputs(before, back);
}

TEST_CASE("Div and Sub by constants become Mul and Add; constant chains merge", "[compiler][front-end]") {
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 4, 4});
  b.node("Div", {x, scalar(b, "six", 6.0f)}, "div");
  b.node("Mul", {b.out("div"), b.random_constant("per_c", {3, 1, 1})}, "scale");
  b.node("Sub", {b.out("scale"), scalar(b, "half", 0.5f)}, "sub");
  b.node("Add", {b.constant("one", {1}, {1.0f}), b.out("sub")}, "add");  // constant first
  Graph before = b.finish({b.out("add")});
  Graph g = before;
  auto detail = canonicalize_arithmetic(g);
  remove_dead_nodes(g);
  INFO(detail);
  CHECK(count_op(g, "Div") == 0);
  CHECK(count_op(g, "Sub") == 0);
  CHECK(count_op(g, "Mul") == 1);  // x * (1/6 * per_c)
  CHECK(count_op(g, "Add") == 1);  // + (-0.5 + 1)
  check_same_outputs(before, g);
}

TEST_CASE("max(x, -inf) and min(+inf, x) pass x through; a finite bound or a broadcast stays", "[compiler][front-end]") {
  const float inf = std::numeric_limits<float>::infinity();
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 4, 4});
  b.node("Max", {x, b.constant("low", {1}, {-inf})}, "max");                    // JAX's clamp: x
  b.node("Min", {b.constant("high", {1, 1, 1}, {inf}), b.out("max")}, "min");   // constant first: x
  b.node("Max", {b.out("min"), b.constant("zero", {1}, {0.0f})}, "relu");       // a real bound
  b.node("Min", {b.out("relu"), b.constant("wide", {2, 1, 3, 4, 4}, std::vector<float>(96, inf))}, "widened");
  Graph before = b.finish({b.out("widened")});
  Graph g = before;
  const auto detail = canonicalize_arithmetic(g);
  remove_dead_nodes(g);
  INFO(detail);
  CHECK(detail.find("0 x*1/x+0 removed, 2 max(x,-inf)/min(x,inf) removed") != std::string::npos);
  CHECK(count_op(g, "Max") == 1);  // relu
  CHECK(count_op(g, "Min") == 1);  // its constant makes the output bigger than x
  check_same_outputs(before, g);
}

TEST_CASE("decomposed activations become one node each and compute the same", "[compiler][front-end]") {
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 5, 5});
  // SiLU
  b.node("Sigmoid", {x}, "sig");
  b.node("Mul", {x, b.out("sig")}, "silu");
  // HardSwish as PP-OCR writes it: x * relu6(x + 3) / 6, Clip bounds as inputs (opset 13)
  b.node("Add", {x, scalar(b, "three", 3.0f)}, "hs_add");
  b.node("Clip", {b.out("hs_add"), scalar(b, "zero", 0.0f), scalar(b, "six", 6.0f)}, "hs_clip");
  b.node("Mul", {x, b.out("hs_clip")}, "hs_mul");
  b.node("Div", {b.out("hs_mul"), scalar(b, "six_d", 6.0f)}, "hardswish1");
  // x * HardSigmoid(x) (MobileNetV3)
  auto& hsig = b.node("HardSigmoid", {x}, "hsig");
  hsig.set_float("alpha", 1.0f / 6.0f);
  hsig.set_float("beta", 0.5f);
  b.node("Mul", {b.out("hsig"), x}, "hardswish2");
  // PP-OCRv4's learnable scale: x * relu6(x + 3) / 6 * 1.7
  b.node("Add", {x, scalar(b, "three2", 3.0f)}, "ls_add");
  b.node("Clip", {b.out("ls_add"), scalar(b, "zero2", 0.0f), scalar(b, "six2", 6.0f)}, "ls_clip");
  b.node("Mul", {x, b.out("ls_clip")}, "ls_mul");
  b.node("Div", {b.out("ls_mul"), scalar(b, "six3", 6.0f)}, "ls_div");
  b.node("Mul", {b.out("ls_div"), scalar(b, "learned", 1.7f)}, "hardswish_scaled");
  // GELU (erf), as torch exports it: x * 0.5 * (1 + erf(x / sqrt 2))
  b.node("Div", {x, scalar(b, "sqrt2", 1.41421356f)}, "g_div");
  b.node("Erf", {b.out("g_div")}, "g_erf");
  b.node("Add", {b.out("g_erf"), scalar(b, "one", 1.0f)}, "g_add");
  b.node("Mul", {x, b.out("g_add")}, "g_mul");
  b.node("Mul", {b.out("g_mul"), scalar(b, "half", 0.5f)}, "gelu");
  // GELU (tanh): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  b.node("Pow", {x, scalar(b, "three3", 3.0f)}, "t_pow");
  b.node("Mul", {scalar(b, "k1", 0.044715f), b.out("t_pow")}, "t_k1");
  b.node("Add", {x, b.out("t_k1")}, "t_sum");
  b.node("Mul", {b.out("t_sum"), scalar(b, "k0", 0.7978845608f)}, "t_k0");
  b.node("Tanh", {b.out("t_k0")}, "t_tanh");
  b.node("Add", {b.out("t_tanh"), scalar(b, "one2", 1.0f)}, "t_add");
  b.node("Mul", {scalar(b, "half2", 0.5f), x}, "t_half");
  b.node("Mul", {b.out("t_half"), b.out("t_add")}, "gelu_tanh");
  // Mish
  b.node("Softplus", {x}, "sp");
  b.node("Tanh", {b.out("sp")}, "sp_tanh");
  b.node("Mul", {x, b.out("sp_tanh")}, "mish");
  Graph before = b.finish({b.out("silu"), b.out("hardswish1"), b.out("hardswish2"), b.out("hardswish_scaled"), b.out("gelu"),
                           b.out("gelu_tanh"), b.out("mish")});
  before.opset = 17;
  Graph g = before;
  fold_static_shapes(g);
  canonicalize_arithmetic(g);
  remove_dead_nodes(g);
  auto detail = fuse_activation_patterns(g);
  remove_dead_nodes(g);
  INFO(detail);
  CHECK(count_op(g, "SiLU") == 1);
  CHECK(count_op(g, "HardSwish") == 3);
  CHECK(count_op(g, "Gelu") == 1);
  CHECK(count_op(g, "GeluTanh") == 1);
  CHECK(count_op(g, "Mish") == 1);
  CHECK(count_op(g, "Mul") == 1);  // the learned scale 1.7 after its HardSwish
  CHECK(g.nodes.size() == 8);
  check_same_outputs(before, g, 1e-5f);
}

TEST_CASE("fusion still sees Conv -> HardSwish after the decomposed form is recognised", "[compiler][front-end]") {
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 8, 8});
  b.node("Conv", {x, b.random_constant("w", {8, 3, 3, 3}), b.random_constant("bias", {8})}, "conv")
      .set_ints("pads", {1, 1, 1, 1});
  b.node("Add", {b.out("conv"), scalar(b, "three", 3.0f)}, "add");
  auto& clip = b.node("Clip", {b.out("add")}, "relu6");
  clip.set_float("min", 0.0f);
  clip.set_float("max", 6.0f);
  b.node("Mul", {b.out("conv"), b.out("relu6")}, "mul");
  b.node("Div", {b.out("mul"), scalar(b, "six", 6.0f)}, "hswish");
  Graph before = b.finish({b.out("hswish")});
  before.opset = 17;
  Graph g = before;
  canonicalize_arithmetic(g);
  fuse_activation_patterns(g);
  remove_dead_nodes(g);
  fuse_layers(g);
  remove_dead_nodes(g);
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].op_type == "FusedConv");
  CHECK(g.nodes[0].get_string("activation", "") == "HardSwish");
  CHECK(g.nodes[0].get_string("pattern", "") == "Conv+HardSwish");
  check_same_outputs(before, g, 1e-4f);
}

TEST_CASE("the ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add chain becomes LayerNormalization",
          "[compiler][front-end]") {
  GraphBuilder b;
  auto x = b.input("x", {2, 5, 16});
  b.node("ReduceMean", {x}, "mean").set_ints("axes", {-1});
  b.node("Sub", {x, b.out("mean")}, "d");
  b.node("Pow", {b.out("d"), scalar(b, "two", 2.0f)}, "sq");
  b.node("ReduceMean", {b.out("sq")}, "var").set_ints("axes", {-1});
  b.node("Add", {b.out("var"), scalar(b, "eps", 1e-5f)}, "var_eps");
  b.node("Sqrt", {b.out("var_eps")}, "std");
  b.node("Div", {b.out("d"), b.out("std")}, "norm");
  b.node("Mul", {b.out("norm"), b.random_constant("gamma", {16})}, "scaled");
  b.node("Add", {b.out("scaled"), b.random_constant("beta", {16})}, "ln");
  Graph before = b.finish({b.out("ln")});
  before.opset = 17;
  Graph g = before;
  auto detail = fuse_layernorm_pattern(g);
  remove_dead_nodes(g);
  CHECK(detail == "1 LayerNormalization");
  REQUIRE(g.nodes.size() == 1);
  CHECK(g.nodes[0].op_type == "LayerNormalization");
  CHECK(g.nodes[0].get_int("axis", 0) == 2);
  CHECK(g.nodes[0].get_float("epsilon", 0) == Approx(1e-5f));
  check_same_outputs(before, g, 1e-5f);
  // below opset 17 there is no LayerNormalization to write
  Graph old = before;
  old.opset = 13;
  fuse_layernorm_pattern(old);
  CHECK(count_op(old, "LayerNormalization") == 0);
}

namespace {

// Llama's attention on grouped K/V heads as the exporter writes it: 2 K/V heads of 5 positions,
// each repeated 3 times (Unsqueeze at `axis`, Expand, Reshape) for 6 query heads of 4 rows.
Graph repeated_kv_attention(std::int64_t axis) {
  GraphBuilder b;
  auto q = b.input("q", {1, 6, 4, 8});
  auto k = b.input("k", {1, 2, 5, 8});
  auto v = b.input("v", {1, 2, 5, 8});
  const std::vector<std::int64_t> expanded = axis == 2 ? std::vector<std::int64_t>{1, 2, 3, 5, 8}
                                                       : std::vector<std::int64_t>{1, 2, 5, 3, 8};
  for (const char* kv : {"k", "v"}) {
    const std::string name(kv);
    b.node("Unsqueeze", {name, b.int_constant(name + "_axis", {1}, {axis})}, name + "_u");
    b.node("Expand", {b.out(name + "_u"), b.int_constant(name + "_shape", {5}, expanded)}, name + "_e");
    b.node("Reshape", {b.out(name + "_e"), b.int_constant(name + "_heads", {4}, {1, 6, 5, 8})}, name + "_rep");
  }
  b.node("Transpose", {b.out("k_rep")}, "k_t").set_ints("perm", {0, 1, 3, 2});
  b.node("MatMul", {q, b.out("k_t")}, "scores");
  b.node("Softmax", {b.out("scores")}, "probs").set_int("axis", -1);
  b.node("MatMul", {b.out("probs"), b.out("v_rep")}, "ctx");
  Graph g = b.finish({b.out("ctx"), b.out("scores")});
  g.opset = 17;
  fold_static_shapes(g);
  return g;
}

}  // namespace

TEST_CASE("attention on K/V heads repeated for their query groups runs per group on the unrepeated heads",
          "[compiler][front-end]") {
  const Graph before = repeated_kv_attention(2);
  REQUIRE(has_repeated_kv_heads(before));
  Graph g = before;
  CHECK(share_grouped_kv_heads(g) == "2 attention product(s) per K/V group instead of on repeated K/V heads");
  remove_dead_nodes(g);
  CHECK(count_op(g, "Expand") == 0);
  CHECK(count_op(g, "MatMul") == 2);
  // Each product has the group's 3 query heads x 4 rows as its rows, against that group's K/V.
  CHECK(g.tensor(node_named(g, "scores").inputs[0]).shape == std::vector<std::int64_t>{1, 2, 12, 8});
  CHECK(g.tensor(node_named(g, "scores").outputs[0]).shape == std::vector<std::int64_t>{1, 2, 12, 5});
  CHECK(g.tensor(node_named(g, "ctx").inputs[0]).shape == std::vector<std::int64_t>{1, 2, 12, 5});
  CHECK(g.tensor(node_named(g, "ctx").inputs[1]).name == "v");
  check_same_outputs(before, g, 1e-6f);
  // A repeat along another axis interleaves the heads differently: not this pattern, unchanged.
  Graph other = repeated_kv_attention(3);
  CHECK(share_grouped_kv_heads(other) == "0 attention product(s) per K/V group instead of on repeated K/V heads");
  CHECK(count_op(other, "Expand") == 2);
}

TEST_CASE("rotary embeddings' rotate_half (two slices, a negation, a concat) becomes one product by a signed permutation",
          "[compiler][front-end]") {
  auto build = [](std::int64_t split) {
    GraphBuilder b;
    auto x = b.input("x", {1, 4, 3, 8});
    auto slice = [&](const std::string& name, std::int64_t start, std::int64_t end) {
      b.node("Slice", {x, b.int_constant(name + "_s", {1}, {start}), b.int_constant(name + "_e", {1}, {end}),
                       b.int_constant(name + "_a", {1}, {3})},
             name);
    };
    slice("x1", 0, split);
    slice("x2", split, std::numeric_limits<std::int64_t>::max());
    b.node("Neg", {b.out("x2")}, "neg");
    b.node("Concat", {b.out("neg"), b.out("x1")}, "rot").set_int("axis", -1);
    b.node("Mul", {b.out("rot"), b.random_constant("sin", {1, 1, 3, 8})}, "rot_sin");
    Graph g = b.finish({b.out("rot_sin")});
    g.opset = 17;
    fold_static_shapes(g);
    return g;
  };
  const Graph before = build(4);
  REQUIRE(has_negations(before));
  Graph g = before;
  CHECK(rotate_half_as_products(g) == "1 rotate_half(x) as x times a signed permutation");
  remove_dead_nodes(g);
  CHECK(count_op(g, "Slice") == 0);
  CHECK(count_op(g, "Neg") == 0);
  CHECK(count_op(g, "Concat") == 0);
  CHECK(node_named(g, "rot").op_type == "MatMul");
  check_same_outputs(before, g, 1e-7f);
  // Halves that are not halves (3 + 5) are another op: left alone.
  Graph uneven = build(3);
  CHECK(rotate_half_as_products(uneven) == "0 rotate_half(x) as x times a signed permutation");
}

TEST_CASE("an int64 attention mask only cast to float becomes a float input, and its masked fill a product",
          "[compiler][front-end]") {
  // transformers' _prepare_4d_attention_mask: Cast(Unsqueeze(Unsqueeze(mask)), float), 1 - m,
  // masked_fill(Cast(., bool), float32's lowest), added to the scores.
  GraphBuilder b;
  auto mask = int64_input(b, "mask", {1, 8});
  auto scores = b.input("scores", {1, 2, 1, 8});
  b.node("Sub", {scalar(b, "one", 1.0f), mask_as_float(b, mask)}, "inv");
  b.node("Cast", {b.out("inv")}, "padded").set_int("to", kBool);
  b.node("Where", {b.out("padded"), scalar(b, "lowest", std::numeric_limits<float>::lowest()), b.out("inv")}, "fill");
  b.node("Add", {scores, b.out("fill")}, "masked");
  Graph before = b.finish({b.out("masked")});
  before.opset = 17;
  fold_static_shapes(before);
  REQUIRE(has_integer_masks(before));
  Graph g = before;
  CHECK(float_masks_from_integers(g) ==
        "1 integer input(s) only cast to float made float, 0 whole-tensor ScatterND(s) as Reshape, 1 masked fill(s) as |sign(x)| * fill");
  remove_dead_nodes(g);
  CHECK(g.tensor("mask").elem_type == kFloat);
  CHECK(g.integer_valued_inputs.count("mask") == 1);
  CHECK(count_op(g, "Cast") == 0);
  CHECK(count_op(g, "Where") == 0);
  TensorMap in;
  in["mask"] = FloatTensor{{1, 8}, {1, 1, 0, 1, 1, 1, 0, 0}};
  in["scores"] = testing::random_tensor({1, 2, 1, 8}, 7);
  const auto a = evaluate_graph(before, in), c = evaluate_graph(g, in);
  CHECK(testing::max_abs_diff(a.at(b.out("masked")), c.at(b.out("masked"))) == 0.0f);
  // A mask that is also a Gather's indices or an output is not only cast: left alone.
  GraphBuilder ids;
  auto t = int64_input(ids, "ids", {1, 4});
  ids.node("Gather", {ids.random_constant("table", {16, 4}), t}, "rows");
  ids.node("Cast", {t}, "ids_float").set_int("to", kFloat);
  Graph other = ids.finish({ids.out("rows"), ids.out("ids_float")});
  fold_static_shapes(other);
  CHECK(float_masks_from_integers(other) ==
        "0 integer input(s) only cast to float made float, 0 whole-tensor ScatterND(s) as Reshape, 0 masked fill(s) as |sign(x)| * fill");
}

TEST_CASE("transformers' causal mask with padding (Equal, Where, ScatterND) becomes products the NPU runs",
          "[compiler][front-end]") {
  // transformers 4.38+ _update_causal_mask: padding = (causal + m) == 0, causal[:, :, :, :n] =
  // causal.masked_fill(padding, lowest) as a ScatterND over every element.
  constexpr std::int64_t T = 4;
  const float lowest = std::numeric_limits<float>::lowest();
  GraphBuilder b;
  auto mask = int64_input(b, "mask", {1, T});
  auto scores = b.input("scores", {1, 2, T, T});
  std::vector<float> causal(T * T, 0.0f);
  std::vector<std::int64_t> every;
  for (std::int64_t i = 0; i < T; ++i)
    for (std::int64_t j = 0; j < T; ++j) {
      if (j > i) causal[static_cast<std::size_t>(i * T + j)] = lowest;
      every.insert(every.end(), {0, 0, i, j});
    }
  auto c = b.constant("causal", {1, 1, T, T}, causal);
  b.node("Add", {c, mask_as_float(b, mask)}, "sum");
  b.node("Equal", {b.out("sum"), scalar(b, "zero", 0.0f)}, "padding");
  b.node("Cast", {b.out("padding")}, "padding_bool").set_int("to", kBool);
  b.node("Where", {b.out("padding_bool"), scalar(b, "lowest", lowest), c}, "filled");
  b.node("ScatterND", {c, b.int_constant("every", {1, 1, T, T, 4}, every), b.out("filled")}, "full");
  b.node("Add", {scores, b.out("full")}, "masked");
  Graph before = b.finish({b.out("masked")});
  before.opset = 17;
  fold_static_shapes(before);
  Graph g = before;
  CHECK(float_masks_from_integers(g) ==
        "1 integer input(s) only cast to float made float, 1 whole-tensor ScatterND(s) as Reshape, 1 masked fill(s) as |sign(x)| * fill");
  remove_dead_nodes(g);
  for (const char* op : {"Cast", "Equal", "Where", "ScatterND"}) CHECK(count_op(g, op) == 0);
  TensorMap in;
  in["mask"] = FloatTensor{{1, T}, {0, 1, 1, 1}};  // one padded position
  in["scores"] = testing::random_tensor({1, 2, T, T}, 7);
  const auto a = evaluate_graph(before, in), d = evaluate_graph(g, in);
  CHECK(a.at(b.out("masked")).data == d.at(b.out("masked")).data);
  // The causal constant's float32-lowest entries are clamped where only "== 0" reads them, so an
  // int8 range of the tested sum stays near 0; the filled mask keeps them.
  std::size_t clamped = 0;
  for (const auto& n : g.nodes)
    if (n.op_type == "Abs") {  // sign(|x|): the Abs reads the tested sum
      const int p = g.producer(n.inputs[0]);
      REQUIRE(p >= 0);
      for (const auto& x : g.nodes[static_cast<std::size_t>(p)].inputs)
        if (g.is_constant(x))
          for (float k : g.tensor(x).floats) {
            CHECK(std::abs(k) <= 2.0f);
            ++clamped;
          }
    }
  CHECK(clamped == T * T);
}

TEST_CASE("DistilBERT's mask, Where(Expand(Reshape(Equal(mask, 0))), lowest, scores), becomes products",
          "[compiler][front-end]") {
  constexpr std::int64_t T = 4;
  const float lowest = std::numeric_limits<float>::lowest();
  GraphBuilder b;
  auto mask = int64_input(b, "mask", {1, T});
  auto scores = b.input("scores", {1, 2, T, T});
  b.node("Equal", {mask, b.int_constant("zero", {}, {0})}, "padded");
  b.node("Reshape", {b.out("padded"), b.int_constant("shape", {4}, {1, 1, 1, T})}, "padded4");
  b.node("Expand", {b.out("padded4"), b.int_constant("to", {4}, {1, 2, T, T})}, "padded_all");
  b.node("Where", {b.out("padded_all"), scalar(b, "lowest", lowest), scores}, "masked");
  b.node("Softmax", {b.out("masked")}, "probs").set_int("axis", -1);
  Graph before = b.finish({b.out("probs")});
  before.opset = 17;
  fold_static_shapes(before);
  REQUIRE(has_integer_masks(before));
  Graph g = before;
  CHECK(float_masks_from_integers(g) ==
        "1 integer input(s) only cast to float made float, 0 whole-tensor ScatterND(s) as Reshape, 1 masked fill(s) as |sign(x)| * fill");
  remove_dead_nodes(g);
  for (const char* op : {"Equal", "Where"}) CHECK(count_op(g, op) == 0);
  CHECK(g.tensor("mask").elem_type == kFloat);
  TensorMap in;
  in["mask"] = FloatTensor{{1, T}, {1, 1, 0, 1}};
  in["scores"] = testing::random_tensor({1, 2, T, T}, 9);
  const auto a = evaluate_graph(before, in), c = evaluate_graph(g, in);
  CHECK(testing::max_abs_diff(a.at(b.out("probs")), c.at(b.out("probs"))) <= 1e-6f);
}

TEST_CASE("GPT-2's causal Where(constant condition, scores, lowest) becomes scores plus a constant mask",
          "[compiler][front-end]") {
  constexpr std::int64_t T = 4;
  const float lowest = std::numeric_limits<float>::lowest();
  GraphBuilder b;
  auto scores = b.input("scores", {1, 2, T, T});
  std::vector<std::int64_t> causal;
  for (std::int64_t i = 0; i < T; ++i)
    for (std::int64_t j = 0; j < T; ++j) causal.push_back(j <= i);
  auto keep = b.int_constant("keep", {1, 1, T, T}, causal);
  b.graph().tensor(keep).elem_type = kBool;
  b.node("Where", {keep, scores, scalar(b, "lowest", lowest)}, "masked");
  b.node("Where", {keep, scalar(b, "lowest2", lowest), b.out("masked")}, "inverted");  // the fill where c holds
  b.node("Where", {keep, b.out("inverted"), scalar(b, "zero", 0.0f)}, "zeroed");      // no fill: left alone
  Graph before = b.finish({b.out("zeroed")});
  before.opset = 17;
  fold_static_shapes(before);
  REQUIRE(has_constant_masks(before));
  Graph g = before;
  CHECK(constant_masks_as_sums(g) == "2 Where(constant condition, x, fill) as x + a constant mask");
  CHECK(count_op(g, "Where") == 1);
  TensorMap in;
  in["scores"] = testing::random_tensor({1, 2, T, T}, 5);
  const auto a = evaluate_graph(before, in), c = evaluate_graph(g, in);
  CHECK(a.at(b.out("zeroed")).data == c.at(b.out("zeroed")).data);
}

TEST_CASE("rotary cos/sin computed from float(position_ids) become Gathers of tables by position",
          "[compiler][front-end]") {
  // transformers 4.38+ LlamaRotaryEmbedding: inv_freq[None, :, None] @ position_ids[:, None, :].float(),
  // transposed, concatenated with itself, cos and sin.
  constexpr std::int64_t T = 4, H = 8;
  GraphBuilder b;
  auto pos = int64_input(b, "position_ids", {1, T});
  auto q = b.input("q", {1, T, 2 * H});
  std::vector<float> inv_freq(H);
  for (std::int64_t i = 0; i < H; ++i) inv_freq[static_cast<std::size_t>(i)] = std::pow(10000.0f, -static_cast<float>(i) / H);
  b.node("Unsqueeze", {pos, b.int_constant("ax", {1}, {1})}, "p3");
  b.node("Cast", {b.out("p3")}, "pf").set_int("to", kFloat);
  b.node("MatMul", {b.constant("inv_freq", {1, H, 1}, inv_freq), b.out("pf")}, "freqs");
  b.node("Transpose", {b.out("freqs")}, "freqs_t").set_ints("perm", {0, 2, 1});
  b.node("Concat", {b.out("freqs_t"), b.out("freqs_t")}, "emb").set_int("axis", -1);
  b.node("Cos", {b.out("emb")}, "cos");
  b.node("Sin", {b.out("emb")}, "sin");
  b.node("Mul", {q, b.out("cos")}, "qc");
  b.node("Mul", {q, b.out("sin")}, "qs");
  b.node("Add", {b.out("qc"), b.out("qs")}, "rotated");
  // A value of the positions mixed across positions (a sum over them) is no table.
  b.node("ReduceSum", {b.out("pf"), b.int_constant("axes", {1}, {2})}, "total").set_int("keepdims", 1);
  b.node("Mul", {b.out("emb"), b.out("total")}, "mixed");
  Graph before = b.finish({b.out("rotated"), b.out("mixed")});
  before.opset = 17;
  fold_static_shapes(before);
  REQUIRE(has_position_functions(before));
  Graph g = before;
  CHECK(position_functions_as_tables(g) == "2 value(s) of an integer input's positions as Gathers of 4096-row tables");
  remove_dead_nodes(g);
  CHECK(count_op(g, "Cos") == 0);
  CHECK(count_op(g, "Sin") == 0);
  CHECK(count_op(g, "Gather") == 2);
  CHECK(count_op(g, "ReduceSum") == 1);  // the mixed value stays as it was
  CHECK(g.tensor("position_ids").elem_type == kInt64);
  TensorMap in;
  in["position_ids"] = FloatTensor{{1, T}, {4095, 0, 2047, 7}};
  in["q"] = testing::random_tensor({1, T, 2 * H}, 3);
  const auto a = evaluate_graph(before, in), d = evaluate_graph(g, in);
  CHECK(testing::max_abs_diff(a.at(b.out("rotated")), d.at(b.out("rotated"))) <= 1e-5f);
  CHECK(a.at(b.out("mixed")).data == d.at(b.out("mixed")).data);
  // Token ids that only index a table are not positions, nor is an integer only scaled (no Cos or
  // Sin: it may be negative, which a table's rows 0 .. N-1 would wrap): nothing to tabulate.
  GraphBuilder ids;
  auto t = int64_input(ids, "ids", {1, 4});
  ids.node("Gather", {ids.random_constant("table", {16, 4}), t}, "rows");
  auto level = int64_input(ids, "level", {1, 4});
  ids.node("Cast", {level}, "level_f").set_int("to", kFloat);
  ids.node("Mul", {ids.out("level_f"), scalar(ids, "gain", 0.5f)}, "scaled");
  ids.node("Unsqueeze", {ids.out("scaled"), ids.int_constant("last", {1}, {2})}, "scaled3");
  ids.node("Mul", {ids.out("scaled3"), ids.random_constant("per_feature", {1, 1, 4})}, "features");
  Graph other = ids.finish({ids.out("rows"), ids.out("features")});
  fold_static_shapes(other);
  CHECK(position_functions_as_tables(other) == "0 value(s) of an integer input's positions as Gathers of 4096-row tables");
}

TEST_CASE("standalone BatchNormalization becomes a per-channel scale and shift that folds into neighbours",
          "[compiler][front-end]") {
  auto bn = [](GraphBuilder& b, const std::string& in, const std::string& name, std::int64_t c) {
    b.node("BatchNormalization", {in, b.random_constant(name + "_s", {c}, 0.5f, 1.5f), b.random_constant(name + "_b", {c}),
                                  b.random_constant(name + "_m", {c}), b.random_constant(name + "_v", {c}, 0.5f, 2.0f)},
           name);
  };
  GraphBuilder b(5);
  auto x = b.input("x", {1, 4, 6, 6});
  auto y = b.input("y", {1, 4, 6, 6});
  // after ConvTranspose (+ its own per-channel Add): folds into its weights and bias
  b.node("ConvTranspose", {x, b.random_constant("wt", {4, 6, 2, 2})}, "up").set_ints("strides", {2, 2});
  b.node("Add", {b.out("up"), b.random_constant("up_bias", {6, 1, 1})}, "up_add");
  bn(b, b.out("up_add"), "bn_up", 6);
  // before an unpadded 1x1 Conv: folds into the conv's weights and bias
  b.node("Add", {x, y}, "sum");
  bn(b, b.out("sum"), "bn_pre", 4);
  b.node("Conv", {b.out("bn_pre"), b.random_constant("w1", {5, 4, 1, 1})}, "pw");
  // before a padded Conv: stays a Mul and an Add (padding would read zeros, not the shift)
  b.node("Mul", {x, y}, "prod");
  bn(b, b.out("prod"), "bn_padded", 4);
  b.node("Conv", {b.out("bn_padded"), b.random_constant("w3", {2, 4, 3, 3})}, "padded").set_ints("pads", {1, 1, 1, 1});
  // after Gemm
  b.node("Flatten", {x}, "flat");
  b.node("Gemm", {b.out("flat"), b.random_constant("fc", {3, 144}), b.random_constant("fcb", {3})}, "fc").set_int("transB", 1);
  bn(b, b.out("fc"), "bn_fc", 3);
  Graph before = b.finish({b.out("bn_up"), b.out("pw"), b.out("padded"), b.out("bn_fc")});
  Graph g = before;
  auto detail = fold_batchnorm(g);
  remove_dead_nodes(g);
  INFO(detail);
  CHECK(count_op(g, "BatchNormalization") == 0);
  CHECK(detail.rfind("4 BatchNormalization to scale and shift", 0) == 0);
  CHECK(count_op(g, "Mul") == 2);  // x*y and the padded conv's BN scale
  CHECK(count_op(g, "Add") == 2);  // x+y and the padded conv's BN shift
  check_same_outputs(before, g, 1e-4f);
}

TEST_CASE("a shape that stays dynamic names the tensor and the node that made it so", "[compiler][front-end][errors]") {
  GraphBuilder b;
  auto x = b.input("x", {2, 3});
  b.node("NonZero", {x}, "nz");
  b.node("Transpose", {b.out("nz")}, "idx");
  b.node("Relu", {x}, "fine");
  Graph g = b.finish({b.out("idx"), b.out("fine")});
  fold_static_shapes(g);
  auto dynamic = find_dynamic_shapes(g);
  REQUIRE(dynamic.size() == 1);  // idx inherits nz's origin
  CHECK(dynamic[0].tensor == "nz_out");
  CHECK(dynamic[0].node == "nz");
  const std::string line = describe(dynamic[0], g.source);
  CHECK(line.find("tensor 'nz_out'") != std::string::npos);
  CHECK(line.find("node 'nz' (NonZero)") != std::string::npos);
  CHECK(line.find("depends on the input values") != std::string::npos);
  CHECK(line.find('\n') == std::string::npos);
}

TEST_CASE("an old-opset graph is upgraded to opset 17 by ONNX's converter and computes the same",
          "[compiler][front-end]") {
  GraphBuilder b;
  auto x = b.input("x", {1, 2, 3, 3});
  b.node("Upsample", {x, b.constant("scales", {4}, {1, 1, 2, 2})}, "up").set_string("mode", "nearest");
  b.node("BatchNormalization", {b.out("up"), b.random_constant("s", {2}, 0.5f, 1.5f), b.random_constant("bb", {2}),
                                b.random_constant("m", {2}), b.random_constant("v", {2}, 0.5f, 2.0f)},
         "bn");
  b.node("Flatten", {b.out("bn")}, "flat");
  b.node("Softmax", {b.out("flat")}, "soft");  // opset 9: axis 1 of the flattened 2-D input
  Graph before = b.finish({b.out("soft")});
  before.opset = 9;
  Graph g = import_onnx_bytes(export_onnx(before), "old.onnx");
  REQUIRE(g.opset == 9);
  fold_static_shapes(g);
  CHECK(upgrade_opset(g).empty());
  CHECK(g.opset == 17);
  CHECK(count_op(g, "Upsample") == 0);
  CHECK(count_op(g, "Resize") == 1);
  fold_static_shapes(g);
  check_same_outputs(before, g, 1e-6f);
}
