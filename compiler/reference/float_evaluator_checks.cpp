#include "compiler/reference/float_evaluator_checks.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace npu::compiler {

namespace {

using Shape = std::vector<std::int64_t>;

std::int64_t product(const Shape& s, std::size_t from = 0, std::size_t to = SIZE_MAX) {
  std::int64_t n = 1;
  for (std::size_t d = from; d < s.size() && d < to; ++d) n *= s[d];
  return n;
}

}  // namespace

void check_evaluator_inputs(const Graph& g, const Node& n, const std::vector<const FloatTensor*>& in) {
  auto fail = [&](const std::string& what) {
    throw CompileError(g.source + ": node '" + n.name + "' (" + n.op_type + "): " + what);
  };
  auto input = [&](std::size_t i) -> const FloatTensor* { return i < in.size() ? in[i] : nullptr; };
  auto rank = [&](std::size_t i) { return input(i) ? static_cast<std::int64_t>(input(i)->shape.size()) : -1; };
  auto axis_in = [&](std::int64_t axis, std::int64_t r, const char* what) {
    if (axis < -r || axis >= std::max<std::int64_t>(r, 1)) fail(std::string(what) + " " + std::to_string(axis) + " is out of range");
    return axis < 0 ? axis + r : axis;
  };
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!in[i]) continue;
    for (auto d : in[i]->shape)
      if (d < 0) fail("input " + std::to_string(i) + " has a negative dimension");
    if (static_cast<std::size_t>(product(in[i]->shape)) != in[i]->data.size())
      fail("input " + std::to_string(i) + " holds " + std::to_string(in[i]->data.size()) +
           " values for shape " + shape_string(in[i]->shape));
  }
  const std::string& op = n.op_type;
  if ((op == "Conv" || op == "FusedConv") && input(0) && input(1)) {
    const Shape &x = input(0)->shape, &w = input(1)->shape;
    const std::int64_t group = n.get_int("group", 1);
    if ((x.size() != 4 && x.size() != 3) || w.size() != x.size()) fail("only 1-D and 2-D convolution are supported");
    if (group < 1 || x[1] % group || w[0] % group || w[1] * group != x[1])
      fail("weights " + shape_string(w) + " do not fit input " + shape_string(x) + " in " + std::to_string(group) +
           " groups");
    if (input(2) && static_cast<std::int64_t>(input(2)->data.size()) < w[0]) fail("bias is shorter than the output channels");
  }
  if ((op == "Gemm" || op == "FusedGemm") && input(0) && input(1)) {
    // FusedGemm (a MatMul by constant weights) keeps the input's leading dims: rows of K.
    const bool rows_of_k = op == "FusedGemm" && rank(0) > 2;
    if ((rank(0) != 2 && !rows_of_k) || rank(1) != 2) fail("Gemm needs 2-D inputs");
    const Shape &a = input(0)->shape, &b = input(1)->shape;
    const std::int64_t k = rows_of_k ? a.back() : a[n.get_int("transA", 0) ? 0 : 1];
    if (k != b[n.get_int("transB", 0) ? 1 : 0]) fail("inner dimensions differ");
  }
  if ((op == "MatMul" || op == "FusedMatMul") && input(0) && input(1)) {
    const Shape &a = input(0)->shape, &b = input(1)->shape;
    if (a.empty() || b.empty()) fail("MatMul needs inputs of rank 1 or more");
    if (a.back() != (b.size() == 1 ? b[0] : b[b.size() - 2])) fail("inner dimensions differ");
  }
  if (op == "Transpose" && input(0)) {
    auto perm = n.get_ints("perm");
    if (!perm.empty()) {
      Shape sorted = perm;
      std::sort(sorted.begin(), sorted.end());
      for (std::size_t d = 0; d < sorted.size(); ++d)
        if (sorted[d] != static_cast<std::int64_t>(d) || sorted.size() != input(0)->shape.size())
          fail("perm is not a permutation of the input's axes");
    }
  }
  if (op == "Concat" && input(0)) {
    const std::int64_t axis = axis_in(n.get_int("axis", 0), rank(0), "axis");
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (!in[i] || in[i]->shape.size() != in[0]->shape.size()) fail("inputs differ in rank");
      for (std::size_t d = 0; d < in[i]->shape.size(); ++d)
        if (static_cast<std::int64_t>(d) != axis && in[i]->shape[d] != in[0]->shape[d])
          fail("inputs differ outside the concatenation axis");
    }
  }
  if (op == "Softmax" && input(0)) axis_in(n.get_int("axis", g.opset >= 13 ? -1 : 1), rank(0), "axis");
  if ((op == "GlobalAveragePool" || op == "GlobalMaxPool") && input(0) && rank(0) < 3) fail("needs an N x C x ... input");
  if (op == "BatchNormalization" && input(0)) {
    const std::int64_t channels = rank(0) > 1 ? input(0)->shape[1] : 1;
    for (std::size_t i = 1; i < 5; ++i)
      if (!input(i) || static_cast<std::int64_t>(input(i)->data.size()) < channels) fail("a parameter is shorter than the channels");
  }
  if (op == "Gather" && input(0) && input(1)) {
    const std::int64_t r = rank(0);
    if (r < 1) fail("Gather needs data of rank 1 or more");
    const std::int64_t extent = input(0)->shape[axis_in(n.get_int("axis", 0), r, "axis")];
    for (float index : input(1)->data)
      if (!(index >= -extent && index < extent) || index != std::floor(index))
        fail("index " + std::to_string(index) + " is out of range for a dimension of " + std::to_string(extent));
  }
  if ((op == "Resize" || op == "Upsample") && input(0) && g.has_tensor(n.outputs.at(0)) &&
      g.tensor(n.outputs[0]).shape.size() != input(0)->shape.size())
    fail("output rank differs from the input's");
  if ((op == "Flatten" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze") && input(0) &&
      g.has_tensor(n.outputs.at(0)) && g.tensor(n.outputs[0]).shape_known &&
      product(g.tensor(n.outputs[0]).shape) != product(input(0)->shape))
    fail("output shape " + shape_string(g.tensor(n.outputs[0]).shape) + " holds another number of values than input " +
         shape_string(input(0)->shape));
}

}  // namespace npu::compiler
