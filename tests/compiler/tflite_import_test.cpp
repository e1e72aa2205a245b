// The TFLite importer on models written here with the flatc-generated builder, each small enough
// to check by hand: NHWC -> NCHW layout and TensorFlow's SAME padding, per-channel constants,
// sparse (CSR) and INT4 weights decoded, and clear errors for malformed files.
#include <catch2/catch.hpp>

#include <cstring>

#include "compiler/frontend/tflite/tflite_import.h"
#include "compiler/frontend/tflite/tflite_schema_generated.h"

using namespace npu::compiler;

namespace {

// Builds one-subgraph models: tensors with optional data, operators by builtin code.
class ModelWriter {
 public:
  int tensor(const std::string& name, std::vector<int> shape, tflite::TensorType type = tflite::TensorType_FLOAT32,
             std::vector<std::uint8_t> data = {}, flatbuffers::Offset<tflite::QuantizationParameters> quant = 0,
             flatbuffers::Offset<tflite::SparsityParameters> sparsity = 0, std::vector<int> signature = {}) {
    std::uint32_t buffer = 0;
    if (!data.empty()) {
      buffer = static_cast<std::uint32_t>(buffers_.size());
      buffers_.push_back(tflite::CreateBuffer(fbb_, fbb_.CreateVector(data)));
    }
    tensors_.push_back(tflite::CreateTensor(fbb_, fbb_.CreateVector(shape), type, buffer, fbb_.CreateString(name), quant, false,
                                            sparsity, signature.empty() ? 0 : fbb_.CreateVector(signature)));
    return static_cast<int>(tensors_.size()) - 1;
  }
  template <typename T>
  static std::vector<std::uint8_t> bytes(const std::vector<T>& v) {
    std::vector<std::uint8_t> out(v.size() * sizeof(T));
    std::memcpy(out.data(), v.data(), out.size());
    return out;
  }
  void op(tflite::BuiltinOperator code, std::vector<int> in, std::vector<int> out,
          tflite::BuiltinOptions type = tflite::BuiltinOptions_NONE, flatbuffers::Offset<void> options = 0) {
    std::uint32_t index = 0;
    for (; index < codes_.size() && codes_[index] != code; ++index) {
    }
    if (index == codes_.size()) codes_.push_back(code);
    ops_.push_back(tflite::CreateOperator(fbb_, index, fbb_.CreateVector(in), fbb_.CreateVector(out), type, options));
  }
  std::vector<std::uint8_t> finish(std::vector<int> inputs, std::vector<int> outputs) {
    std::vector<flatbuffers::Offset<tflite::OperatorCode>> codes;
    for (auto c : codes_)
      codes.push_back(tflite::CreateOperatorCode(fbb_, static_cast<std::int8_t>(std::min<int>(c, 127)), 0, 1, c));
    auto sub = tflite::CreateSubGraph(fbb_, fbb_.CreateVector(tensors_), fbb_.CreateVector(inputs), fbb_.CreateVector(outputs),
                                      fbb_.CreateVector(ops_));
    auto model = tflite::CreateModel(fbb_, 3, fbb_.CreateVector(codes), fbb_.CreateVector(std::vector{sub}), 0,
                                     fbb_.CreateVector(buffers_));
    tflite::FinishModelBuffer(fbb_, model);
    return {fbb_.GetBufferPointer(), fbb_.GetBufferPointer() + fbb_.GetSize()};
  }
  flatbuffers::FlatBufferBuilder& fbb() { return fbb_; }

 private:
  flatbuffers::FlatBufferBuilder fbb_;
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers_{tflite::CreateBuffer(fbb_)};
  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors_;
  std::vector<flatbuffers::Offset<tflite::Operator>> ops_;
  std::vector<tflite::BuiltinOperator> codes_;
};

const Node& only(const Graph& g, const std::string& op) {
  const Node* found = nullptr;
  for (const auto& n : g.nodes)
    if (n.op_type == op) {
      REQUIRE(found == nullptr);
      found = &n;
    }
  REQUIRE(found != nullptr);
  return *found;
}

int count(const Graph& g, const std::string& op) {
  return static_cast<int>(std::count_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.op_type == op; }));
}

}  // namespace

TEST_CASE("TFLite conv: NHWC held as NCHW between ops, OHWI weights as OIHW, SAME padding as TensorFlow's") {
  ModelWriter w;
  // filter[o][h][w][i] = 1000 o + 100 h + 10 w + i: every element says where it came from
  std::vector<float> filter;
  for (int o = 0; o < 4; ++o)
    for (int h = 0; h < 3; ++h)
      for (int x = 0; x < 3; ++x)
        for (int i = 0; i < 2; ++i) filter.push_back(static_cast<float>(1000 * o + 100 * h + 10 * x + i));
  const int in = w.tensor("image", {1, 6, 6, 2});
  const int f = w.tensor("filter", {4, 3, 3, 2}, tflite::TensorType_FLOAT32, ModelWriter::bytes(filter));
  const int conv = w.tensor("conv", {1, 3, 3, 4});
  const int scale = w.tensor("scale", {4}, tflite::TensorType_FLOAT32, ModelWriter::bytes(std::vector<float>{1, 2, 3, 4}));
  const int out = w.tensor("scaled", {1, 3, 3, 4});
  w.op(tflite::BuiltinOperator_CONV_2D, {in, f, -1}, {conv}, tflite::BuiltinOptions_Conv2DOptions,
       tflite::CreateConv2DOptions(w.fbb(), tflite::Padding_SAME, 2, 2, tflite::ActivationFunctionType_RELU6).Union());
  w.op(tflite::BuiltinOperator_MUL, {conv, scale}, {out});
  const Graph g = import_tflite_bytes(w.finish({in}, {out}), "conv.tflite");

  // 6 wide, kernel 3, stride 2: 3 outputs need (3-1)*2+3-6 = 1 pixel of padding, at the end.
  const Node& c = only(g, "Conv");
  CHECK(c.get_ints("pads") == std::vector<std::int64_t>{0, 0, 1, 1});
  CHECK(c.get_ints("strides") == std::vector<std::int64_t>{2, 2});
  const Tensor& weights = g.tensor(c.inputs[1]);
  CHECK(weights.shape == std::vector<std::int64_t>{4, 2, 3, 3});
  CHECK(weights.floats[((3 * 2 + 1) * 3 + 2) * 3 + 0] == 3201.0f);  // [o=3][i=1][h=2][w=0]
  CHECK(count(g, "Clip") == 1);                                      // the fused RELU6
  // The per-channel [4] constant broadcasts over NHWC's last axis: [1,4,1,1] next to NCHW.
  const Node& mul = only(g, "Mul");
  CHECK(g.tensor(mul.inputs[1]).shape == std::vector<std::int64_t>{1, 4, 1, 1});
  // One Transpose in (the NHWC image), one out (the NHWC result), none between the two ops.
  CHECK(count(g, "Transpose") == 2);
  CHECK(g.inputs == std::vector<std::string>{"image"});
  CHECK(g.outputs == std::vector<std::string>{"scaled"});
  CHECK(g.tensor("scaled").shape == std::vector<std::int64_t>{1, 3, 3, 4});
}

TEST_CASE("TFLite sparse (CSR) and INT4 weights are dense float constants") {
  ModelWriter w;
  auto& fbb = w.fbb();
  // 4x4: row 0 holds a at column 1, row 1 b at 0, row 2 nothing, row 3 c, d at 2, 3.
  auto segments = tflite::CreateInt32Vector(fbb, fbb.CreateVector(std::vector<int>{0, 1, 2, 2, 4}));
  auto indices = tflite::CreateInt32Vector(fbb, fbb.CreateVector(std::vector<int>{1, 0, 2, 3}));
  std::vector<flatbuffers::Offset<tflite::DimensionMetadata>> dims{
      tflite::CreateDimensionMetadata(fbb, tflite::DimensionType_DENSE, 4),
      tflite::CreateDimensionMetadata(fbb, tflite::DimensionType_SPARSE_CSR, 0, tflite::SparseIndexVector_Int32Vector,
                                      segments.Union(), tflite::SparseIndexVector_Int32Vector, indices.Union())};
  auto sparsity = tflite::CreateSparsityParameters(fbb, fbb.CreateVector(std::vector<int>{0, 1}), 0, fbb.CreateVector(dims));
  const int x = w.tensor("x", {1, 4});
  const int sparse = w.tensor("w_sparse", {4, 4}, tflite::TensorType_FLOAT32, ModelWriter::bytes(std::vector<float>{5, 6, 7, 8}), 0,
                              sparsity);
  const int dense = w.tensor("w_dense", {4, 4});
  const int y = w.tensor("y", {1, 4});
  // INT4 per-channel weights, two per byte, low nibble first: 1, 2, -8, -1 / 7, 0, 3, -3.
  auto quant = tflite::CreateQuantizationParameters(fbb, 0, 0, fbb.CreateVector(std::vector<float>{0.5f, 0.25f}),
                                                    fbb.CreateVector(std::vector<std::int64_t>{0, 0}));
  const int w4 = w.tensor("w_int4", {2, 4}, tflite::TensorType_INT4, {0x21, 0xF8, 0x07, 0xD3}, quant);
  const int z = w.tensor("z", {1, 2});
  w.op(tflite::BuiltinOperator_DENSIFY, {sparse}, {dense});
  w.op(tflite::BuiltinOperator_FULLY_CONNECTED, {x, dense, -1}, {y});
  w.op(tflite::BuiltinOperator_FULLY_CONNECTED, {y, w4, -1}, {z});
  const Graph g = import_tflite_bytes(w.finish({x}, {z}), "sparse.tflite");
  REQUIRE(count(g, "Gemm") == 2);
  std::vector<const Tensor*> gemm_weights;
  for (const auto& n : g.nodes)
    if (n.op_type == "Gemm") gemm_weights.push_back(&g.tensor(n.inputs[1]));
  CHECK(gemm_weights[0]->floats == std::vector<float>{0, 5, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 8});
  CHECK(gemm_weights[1]->floats == std::vector<float>{0.5f, 1.0f, -4.0f, -0.5f, 1.75f, 0.0f, 0.75f, -0.75f});
  CHECK(count(g, "DENSIFY") == 0);
}

TEST_CASE("TFLite: an op without an ONNX equivalent is kept for LiteRT; invalid files are one line naming the file") {
  ModelWriter w;
  const int x = w.tensor("x", {1, 4});
  const int y = w.tensor("y", {1, 4});
  w.op(tflite::BuiltinOperator_EMBEDDING_LOOKUP_SPARSE, {x}, {y});
  auto bytes = w.finish({x}, {y});
  // An op with no ONNX equivalent is one node only LiteRT runs, with the file's output shape.
  const Graph g = import_tflite_bytes(bytes, "op.tflite");
  const Node& opaque = only(g, "EMBEDDING_LOOKUP_SPARSE");
  CHECK(opaque.domain == kTfliteOnlyDomain);
  CHECK(g.tensor(opaque.outputs[0]).shape == std::vector<std::int64_t>{1, 4});
  bytes.resize(bytes.size() / 2);
  CHECK_THROWS_WITH(import_tflite_bytes(bytes, "cut.tflite"), Catch::Contains("cut.tflite: not a valid TFLite model"));

  ModelWriter big;
  const int a = big.tensor("huge", {1 << 20, 1 << 20});
  const int b = big.tensor("b", {1 << 20, 1 << 20});
  big.op(tflite::BuiltinOperator_RELU, {a}, {b});
  CHECK_THROWS_WITH(import_tflite_bytes(big.finish({a}, {b}), "big.tflite"),
                    Catch::Contains("big.tflite: tensor 0 ('huge')") && Catch::Contains("larger than npusim handles"));
}

TEST_CASE("TFLite --input-shape fixes the dims shape_signature leaves dynamic, in every tensor") {
  ModelWriter w;
  const auto f32 = tflite::TensorType_FLOAT32;
  const int x = w.tensor("x", {1, 4}, f32, {}, 0, 0, {-1, 4});
  const int weights = w.tensor("w", {3, 4}, f32, ModelWriter::bytes(std::vector<float>(12, 0.5f)));
  const int y = w.tensor("y", {1, 3}, f32, {}, 0, 0, {-1, 3});
  w.op(tflite::BuiltinOperator_FULLY_CONNECTED, {x, weights, -1}, {y});
  const auto bytes = w.finish({x}, {y});
  // Without --input-shape the file's shape (batch 1); with it, batch 5 in and out.
  CHECK(import_tflite_bytes(bytes, "dyn.tflite").tensor("y").shape == std::vector<std::int64_t>{1, 3});
  const Graph g = import_tflite_bytes(bytes, "dyn.tflite", {"x=5x4"});
  CHECK(g.tensor("x").shape == std::vector<std::int64_t>{5, 4});
  CHECK(g.tensor("y").shape == std::vector<std::int64_t>{5, 3});
  CHECK_THROWS_WITH(import_tflite_bytes(bytes, "dyn.tflite", {"x=5x4x1"}),
                    Catch::Contains("dyn.tflite: --input-shape 'x=5x4x1': input 'x' has rank 2 (shape_signature -1x4), not 3"));
  CHECK_THROWS_WITH(import_tflite_bytes(bytes, "dyn.tflite", {"x=5x3"}),
                    Catch::Contains("dim 1 of input 'x' is fixed at 4 in the file"));
  CHECK_THROWS_WITH(import_tflite_bytes(bytes, "dyn.tflite", {"z=5x4"}), Catch::Contains("the model has no input 'z' (its inputs: x)"));
}
