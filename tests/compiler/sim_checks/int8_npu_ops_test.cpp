// The int8 forms of the ops real exported models need (data movement in any layout, broadcast
// element-wise ops, tables, fp16 islands, softmax/layernorm/reductions, MatMul of computed
// tensors, ConvTranspose lowered onto conv) store exactly the integer reference's bytes on the
// simulated NPU, on the default scratchpad and on a 64 KiB one where every layer is tiled.
#include <catch2/catch.hpp>
#include <map>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "compiler/frontend/onnx_io.h"
#include "costmodel/footprint.h"
#include "tests/compiler/sim_checks/sim_check_helpers.h"
#include "tests/compiler/test_graphs.h"

using namespace npu;
using namespace npu::compiler;
using namespace npu::compiler::sim_checks;
using testing::GraphBuilder;

namespace {

// Builds the graph, writes it as ONNX and checks it on both scratchpads.
void check_graph(Graph g, const std::string& name) {
  auto path = std::filesystem::temp_directory_path() / ("npusim_int8_ops_" + name + ".onnx");
  write_onnx(g, path.string());
  check_bit_exact(path.string(), "default.yaml");
  check_bit_exact(path.string(), "tiny-8x8.yaml");
  if (!std::getenv("NPUSIM_KEEP_TEST_MODELS")) std::filesystem::remove(path);
}

// The model at `path` lowered and compiled for INT8 on default.yaml, without running it.
struct Int8Program {
  Graph lowered;
  CompiledModel model;
};
Int8Program compile_int8(const std::filesystem::path& path) {
  CompileOptions options;
  options.precision = Precision::Int8;
  Int8Program p;
  p.lowered = lower_graph(path.string(), options, p.model);
  generate_code(p.lowered, load_hardware_config(config_path("default.yaml")), options, p.model);
  return p;
}

class Builder : public GraphBuilder {
 public:
  explicit Builder(unsigned seed) : GraphBuilder(seed) {}
  std::string int_constant(const std::string& name, std::vector<std::int64_t> v) {
    Graph& g = graph();
    Tensor& t = g.tensors[name];
    t.name = name;
    t.elem_type = kInt64;
    t.shape = {static_cast<std::int64_t>(v.size())};
    t.shape_known = true;
    t.is_constant = true;
    t.ints = std::move(v);
    return name;
  }
  Node& conv(const std::string& x, std::int64_t cin, std::int64_t cout, const std::string& name, std::int64_t k = 3) {
    Node& n = node("Conv", {x, random_constant(name + "_w", {cout, cin, k, k}), random_constant(name + "_b", {cout})}, name);
    n.set_ints("pads", {k / 2, k / 2, k / 2, k / 2});
    return n;
  }
};

// One decode step of GPT-2-style attention over a KV cache of `past` (`heads` of `dim`):
// x [1, 1, heads * dim] -> q, k, v; present = Concat(past, new) along the sequence;
// scores = Q * present_k^T, softmax, ctx = P * present_v. Inputs x, past_k, past_v; outputs
// ctx, present_k, present_v.
Graph decode_attention(Builder& b, std::int64_t heads, std::int64_t dim, std::int64_t past) {
  const std::int64_t d = heads * dim;
  auto x = b.input("x", {1, 1, d});
  auto past_k = b.input("past_k", {1, heads, past, dim});
  auto past_v = b.input("past_v", {1, heads, past, dim});
  auto split = b.int_constant("heads", {1, 1, heads, dim});
  for (const char* p : {"q", "k", "v"}) {
    b.node("MatMul", {x, b.random_constant(std::string("w") + p, {d, d})}, p);
    b.node("Reshape", {b.out(p), split}, std::string(p) + "4");
    b.node("Transpose", {b.out(std::string(p) + "4")}, std::string(p) + "h").set_ints("perm", {0, 2, 1, 3});
  }
  b.node("Concat", {past_k, b.out("kh")}, "present_k").set_int("axis", 2);
  b.node("Concat", {past_v, b.out("vh")}, "present_v").set_int("axis", 2);
  b.node("Transpose", {b.out("present_k")}, "kt").set_ints("perm", {0, 1, 3, 2});
  b.node("MatMul", {b.out("qh"), b.out("kt")}, "scores");
  b.node("Softmax", {b.out("scores")}, "probs").set_int("axis", -1);
  b.node("MatMul", {b.out("probs"), b.out("present_v")}, "ctx");
  return b.finish({b.out("ctx"), b.out("present_k"), b.out("present_v")});
}

}  // namespace

TEST_CASE("int8 broadcast element-wise ops, tables and fp16 islands equal the integer reference", "[compiler][sim][int8]") {
  Builder b(21);
  auto x = b.input("x", {1, 8, 12, 10});
  b.conv(x, 8, 16, "c1");
  b.node("GlobalAveragePool", {b.out("c1")}, "gap");
  b.node("Sigmoid", {b.out("gap")}, "gate");                                                 // lut
  b.node("Mul", {b.out("c1"), b.out("gate")}, "se");                                          // qbinary, per channel
  b.node("Add", {b.out("se"), b.random_constant("shift", {1, 16, 1, 1})}, "add_c");           // qbinary, constant
  b.node("Sub", {b.out("add_c"), b.constant("half", {}, {0.5f})}, "sub_s");                   // lut (scalar)
  b.node("Erf", {b.out("sub_s")}, "erf");                                                    // lut
  b.node("Max", {b.out("erf"), b.out("se")}, "max");                                          // qbinary
  b.node("Div", {b.out("max"), b.out("gate")}, "div");                                        // island
  b.node("Pow", {b.out("div"), b.constant("two", {}, {2.0f})}, "square");                     // lut
  b.node("Add", {b.out("square"), b.out("c1")}, "residual");                                  // qadd
  Node& mp = b.node("MaxPool", {b.out("residual")}, "ceil_max");  // ceil mode: 12x10 -> 6x5 (floor: 5x4)
  mp.set_ints("kernel_shape", {3, 3});
  mp.set_ints("strides", {2, 2});
  mp.set_int("ceil_mode", 1);
  Node& ap = b.node("AveragePool", {b.out("ceil_max")}, "ceil_avg");
  ap.set_ints("kernel_shape", {2, 2});
  ap.set_ints("strides", {2, 2});
  ap.set_int("ceil_mode", 1);
  Graph g = b.finish({b.out("ceil_avg")});
  check_graph(g, "eltwise");
}

TEST_CASE("int8 data movement in any layout equals the integer reference", "[compiler][sim][int8]") {
  Builder b(22);
  auto x = b.input("x", {1, 6, 8, 10});
  b.conv(x, 6, 8, "c1");
  b.node("Transpose", {b.out("c1")}, "to_nchw").set_ints("perm", {0, 1, 3, 2});               // view or relayout
  b.node("Slice", {b.out("to_nchw"), b.int_constant("st", {1, 2}), b.int_constant("en", {7, 9}),
                   b.int_constant("ax", {1, 3}), b.int_constant("sp", {2, 3})}, "slice");
  Node& split = b.node("Split", {b.out("c1"), b.int_constant("parts", {3, 5})}, "split");
  split.set_int("axis", 1);
  split.outputs = {"split_a", "split_b"};
  b.graph().tensors["split_a"].name = "split_a";
  b.graph().tensors["split_b"].name = "split_b";
  b.node("Concat", {"split_b", "split_a", b.random_constant("extra", {1, 4, 8, 10})}, "concat").set_int("axis", 1);
  b.node("Pad", {b.out("concat"), b.int_constant("pads", {0, 0, 1, 2, 0, 0, 2, -1})}, "pad");
  b.node("Gather", {b.out("pad"), b.int_constant("idx", {4, 0, 1, 2})}, "gather").set_int("axis", 2);
  b.node("DepthToSpace", {b.out("gather"), }, "d2s").set_int("blocksize", 2);
  b.node("Reshape", {b.out("d2s"), b.int_constant("shape", {1, 6, 4, 22})}, "reshape");
  b.node("Relu", {b.out("reshape")}, "relu");
  Graph g = b.finish({b.out("slice"), b.out("relu")});
  check_graph(g, "moves");
}

TEST_CASE("int8 attention: MatMul of computed tensors, masked softmax, layernorm and reductions equal the integer reference",
          "[compiler][sim][int8]") {
  Builder b(23);
  auto x = b.input("x", {1, 12, 16});  // [1, T, D], 2 heads of 8
  b.node("MatMul", {x, b.random_constant("wq", {16, 16})}, "q");
  b.node("MatMul", {x, b.random_constant("wk", {16, 16})}, "k");
  b.node("MatMul", {x, b.random_constant("wv", {16, 16})}, "v");
  auto heads = b.int_constant("heads", {1, 12, 2, 8});
  b.node("Reshape", {b.out("q"), heads}, "q4");
  b.node("Reshape", {b.out("k"), heads}, "k4");
  b.node("Reshape", {b.out("v"), heads}, "v4");
  b.node("Transpose", {b.out("q4")}, "qh").set_ints("perm", {0, 2, 1, 3});
  b.node("Transpose", {b.out("k4")}, "kt").set_ints("perm", {0, 2, 3, 1});  // K^T: k innermost
  b.node("Transpose", {b.out("v4")}, "vh").set_ints("perm", {0, 2, 1, 3});
  b.node("MatMul", {b.out("qh"), b.out("kt")}, "scores");
  b.node("Mul", {b.out("scores"), b.constant("scale", {}, {0.35f})}, "scaled");
  std::vector<float> causal;
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 12; ++j) causal.push_back(j <= i ? 1.0f : 0.0f);
  b.constant("causal", {1, 1, 12, 12}, causal);
  b.graph().tensors["causal"].elem_type = kBool;
  b.node("Where", {"causal", b.out("scaled"), b.constant("fill", {}, {-3.4028235e38f})}, "masked");  // stays fp16
  b.node("Softmax", {b.out("masked")}, "probs").set_int("axis", -1);
  b.node("MatMul", {b.out("probs"), b.out("vh")}, "ctx");
  b.node("Transpose", {b.out("ctx")}, "ctx_t").set_ints("perm", {0, 2, 1, 3});
  b.node("Reshape", {b.out("ctx_t"), b.int_constant("flat", {1, 12, 16})}, "merged");
  b.node("Add", {b.out("merged"), x}, "res");
  Node& ln = b.node("LayerNormalization", {b.out("res"), b.random_constant("gamma", {16}), b.random_constant("beta", {16})}, "ln");
  ln.set_int("axis", -1);
  Node& rm = b.node("ReduceMean", {b.out("ln")}, "mean_t");
  rm.set_ints("axes", {1});
  rm.set_int("keepdims", 1);
  Node& rx = b.node("ReduceMax", {b.out("ln")}, "max_d");
  rx.set_ints("axes", {2});
  rx.set_int("keepdims", 0);
  Node& sm = b.node("Softmax", {b.out("ln")}, "softmax_t");  // along a non-innermost axis
  sm.set_int("axis", 1);
  Graph g = b.finish({b.out("mean_t"), b.out("max_d"), b.out("softmax_t")});
  check_graph(g, "attention");
}

TEST_CASE("int8 decode step over a KV cache: the 4-D cache crosses the boundary row-major, no relayout copies",
          "[compiler][sim][int8][layout]") {
  // One token attends over a cache of 80 (2 heads of 32), GPT-2 style: present = Concat(past,
  // new) along the sequence, scores = Q * present_k^T, ctx = P * present_v.
  Builder b(29);
  const std::string past_k = "past_k", past_v = "past_v";
  Graph g = decode_attention(b, 2, 32, 80);
  auto path = std::filesystem::temp_directory_path() / "npusim_int8_ops_kv_cache.onnx";
  write_onnx(g, path.string());

  const auto [lowered, m] = compile_int8(path);
  for (const Node& n : lowered.nodes) CHECK(n.op_type != "Relayout");  // NHWC put the heads innermost: 3 copies
  for (const std::string& v : {b.out("present_k"), b.out("present_v")}) CHECK(entry(m.program, v).layout == "ND");
  // The cache is updated in place: the host writes past into present's bytes (81 rows a head),
  // so the Concats move only the new row.
  for (const std::string& v : {past_k, past_v}) CHECK(entry(m.program, v).layout == "strided[5184,2592,32,1]");
  // Transfers over 4 KiB take DMA channel 0 (loads) or 1 (stores), shorter ones 2 or 3, so a
  // short one can finish first; with no cache copy left, none is over 4 KiB here.
  std::set<std::int64_t> channels;
  for (const auto& in : m.program.code) {
    if (in.opcode != isa::Opcode::Load && in.opcode != isa::Opcode::Store) continue;
    const std::int64_t channel = in.get(isa::Field::channel);
    CHECK(channel == (in.opcode == isa::Opcode::Load ? 0 : 1) + (cost::transfer_bytes(in) > 4096 ? 0 : 2));
    channels.insert(channel);
  }
  CHECK(channels == std::set<std::int64_t>{2, 3});
  check_bit_exact(path.string(), "default.yaml");
  check_bit_exact(path.string(), "tiny-8x8.yaml");
  std::filesystem::remove(path);
}

TEST_CASE("int8 images keep NHWC at the boundary", "[compiler][layout]") {
  Builder b(31);
  b.conv(b.input("img", {1, 3, 8, 8}), 3, 4, "c1");
  Graph g = b.finish({b.out("c1")});
  auto path = std::filesystem::temp_directory_path() / "npusim_int8_ops_image.onnx";
  write_onnx(g, path.string());
  const CompiledModel m = compile_int8(path).model;
  CHECK(entry(m.program, "img").layout == "NHWC");
  CHECK(entry(m.program, b.out("c1")).layout == "NHWC");
  std::filesystem::remove(path);
}

TEST_CASE("int8 ConvTranspose and a patchify conv lowered onto conv equal the integer reference", "[compiler][sim][int8]") {
  Builder b(24);
  auto x = b.input("x", {1, 6, 7, 9});
  b.conv(x, 6, 8, "c1");
  b.node("ConvTranspose", {b.out("c1"), b.random_constant("up_w", {8, 4, 2, 2}), b.random_constant("up_b", {4})}, "up2")
      .set_ints("strides", {2, 2});  // 1x1 conv + DepthToSpace
  Node& ct = b.node("ConvTranspose", {b.out("up2"), b.random_constant("ct_w", {4, 3, 3, 3})}, "up3");
  ct.set_ints("strides", {2, 2});  // zero insertion + conv
  ct.set_ints("pads", {1, 1, 1, 1});
  ct.set_ints("output_padding", {1, 1});
  b.node("Relu", {b.out("up3")}, "relu");  // [1, 3, 29, 37]
  Node& patches = b.node("Conv", {b.out("relu"), b.random_constant("patch_w", {5, 3, 9, 9})}, "patchify");
  patches.set_ints("strides", {9, 9});  // beyond the stride field: SpaceToDepth + 1x1 conv (rows 27, 28 unused)
  Graph g = b.finish({b.out("relu"), b.out("patchify")});
  check_graph(g, "conv_transpose");
}

TEST_CASE("int8 decode attention with aligned rows stays on chip and equals the integer reference",
          "[compiler][sim][int8]") {
  // 2 heads of 64 over a cache of 127 + 1: each head's score row (128 bytes) and query (64
  // bytes) start on the scratchpad's 64-byte alignment, so the scores, the softmax and the
  // context read and write each other's values in place.
  Builder b(31);
  Graph g = decode_attention(b, 2, 64, 127);
  auto path = std::filesystem::temp_directory_path() / "npusim_int8_ops_aligned_decode.onnx";
  write_onnx(g, path.string());
  const auto [lowered, m] = compile_int8(path);
  std::map<std::string, std::uint64_t> ddr_bytes;
  for (const auto& l : m.layers) ddr_bytes[l.name] = l.planned_ddr_bytes;
  REQUIRE(ddr_bytes.count("probs"));
  CHECK(ddr_bytes["probs"] == 0);                       // neither its input nor its output crosses the DDR
  CHECK(ddr_bytes["scores"] == 2 * 128 * 64);           // only the K cache: q and the scores stay on chip
  check_bit_exact(path.string(), "default.yaml");
  std::filesystem::remove(path);
}
