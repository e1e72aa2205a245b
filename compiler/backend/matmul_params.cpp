#include "compiler/backend/matmul_params.h"

#include <algorithm>

#include "compiler/core/tensor_layout.h"
#include "compiler/quant/quantize.h"
#include "compiler/reference/float_evaluator.h"
#include "compiler/reference/node_geometry.h"

namespace npu::compiler {
namespace {

AxisOrder stored_order(const Tensor& t) { return t.is_constant ? identity_order(t.shape.size()) : t.order; }

QuantParams constant_params(const Tensor& t) {
  FloatTensor f = constant_as_float(t);
  if (f.data.empty()) return activation_params(0.0f, 0.0f);
  auto [lo, hi] = std::minmax_element(f.data.begin(), f.data.end());
  return activation_params(*lo, *hi);
}

}  // namespace

MatMulGeometry matmul_geometry(const Graph& g, const Node& n) {
  const Tensor& a = g.tensor(n.inputs[0]);
  const Tensor& b = g.tensor(n.inputs[1]);
  if (a.shape.size() < 2 || b.shape.size() < 2)
    throw CompileError(g.source + ": node '" + n.name + "' (MatMul): 1-D operands");
  MatMulGeometry geo;
  const std::size_t ra = a.shape.size(), rb = b.shape.size();
  geo.m = a.shape[ra - 2];
  geo.k = a.shape[ra - 1];
  geo.n = b.shape[rb - 1];
  std::vector<std::int64_t> ab(a.shape.begin(), a.shape.end() - 2), bb(b.shape.begin(), b.shape.end() - 2);
  const std::vector<std::int64_t> batch = broadcast_shapes(ab, bb, g.source + ": node '" + n.name + "'");
  const auto sa = logical_strides(a.shape, stored_order(a)), sb = logical_strides(b.shape, stored_order(b));
  for (auto d : batch) geo.batch *= d;
  std::vector<std::int64_t> idx(batch.size(), 0);
  for (std::int64_t i = 0; i < geo.batch; ++i) {
    std::int64_t oa = 0, ob = 0;
    for (std::size_t d = 0; d < batch.size(); ++d) {
      const std::int64_t da = static_cast<std::int64_t>(d) - static_cast<std::int64_t>(batch.size() - ab.size());
      const std::int64_t db = static_cast<std::int64_t>(d) - static_cast<std::int64_t>(batch.size() - bb.size());
      if (da >= 0 && ab[static_cast<std::size_t>(da)] != 1) oa += idx[d] * sa[static_cast<std::size_t>(da)];
      if (db >= 0 && bb[static_cast<std::size_t>(db)] != 1) ob += idx[d] * sb[static_cast<std::size_t>(db)];
    }
    geo.a_batch_offset.push_back(oa);
    geo.b_batch_offset.push_back(ob);
    for (std::size_t d = batch.size(); d-- > 0;) {
      if (++idx[d] < batch[d]) break;
      idx[d] = 0;
    }
  }
  return geo;
}

Int8MatMulParams int8_matmul_params(const Graph& g, const Node& n) {
  Int8MatMulParams p;
  const Tensor& a = g.tensor(n.inputs[0]);
  const Tensor& b = g.tensor(n.inputs[1]);
  p.a = a.is_constant ? constant_params(a) : a.quant;
  p.b = b.is_constant ? constant_params(b) : b.quant;
  const QuantParams& y = g.tensor(n.outputs[0]).quant;
  p.requant = to_fixed_point(static_cast<double>(p.a.scale) * p.b.scale / y.scale);
  return p;
}

}  // namespace npu::compiler
