#include "compiler/backend/eltwise_plan.h"

#include <cmath>
#include <map>
#include <tuple>
#include <limits>

#include "compiler/backend/instruction_stream.h"
#include "compiler/core/tensor_layout.h"
#include "compiler/quant/int8_layer_params.h"
#include "compiler/reference/node_geometry.h"

namespace npu::compiler {
namespace {

using Kind = EltwiseStep::Kind;

float scalar_value(const Tensor& t) { return t.floats.empty() ? static_cast<float>(t.ints.at(0)) : t.floats.at(0); }

float clip_bound(const Graph& g, const Node& n, std::size_t input, const char* attr, float fallback) {
  if (n.inputs.size() > input && !n.inputs[input].empty()) return scalar_value(g.tensor(n.inputs[input]));
  return n.has(attr) ? n.get_float(attr, fallback) : fallback;
}

// `values` (logical, shape `from`) broadcast to `to` (numpy rules).
std::vector<float> broadcast_to(const std::vector<float>& values, const std::vector<std::int64_t>& from,
                                const std::vector<std::int64_t>& to) {
  std::int64_t n = 1;
  for (auto d : to) n *= d;
  std::vector<std::int64_t> strides(to.size(), 0);
  std::int64_t s = 1;
  for (std::size_t i = from.size(); i-- > 0;) {
    const std::size_t a = to.size() - from.size() + i;
    strides[a] = from[i] == 1 ? 0 : s;
    s *= from[i];
  }
  std::vector<float> out(static_cast<std::size_t>(n));
  std::vector<std::int64_t> coord(to.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t off = 0;
    for (std::size_t a = 0; a < to.size(); ++a) off += coord[a] * strides[a];
    out[static_cast<std::size_t>(i)] = values[static_cast<std::size_t>(off)];
    for (std::size_t a = to.size(); a-- > 0;) {
      if (++coord[a] < to[a]) break;
      coord[a] = 0;
    }
  }
  return out;
}

std::vector<float> as_floats(const Tensor& t) {
  std::vector<float> v = t.floats;
  if (v.empty())
    for (auto i : t.ints) v.push_back(static_cast<float>(i));
  return v;
}

class Planner {
 public:
  Planner(CodegenContext& ctx, const Node& n) : ctx_(ctx), g_(ctx.graph), n_(n), y_(ctx.tensor(n.outputs[0])) {}

  EltwisePlan run() {
    if (ctx_.int8()) plan_int8();
    else plan_fp16();
    return plan_;
  }

 private:
  // Operand from input `i` (a constant placed in the output's order on `q`).
  int operand(const std::string& name, const QuantParams& q = {}) {
    const DdrTensor* t;
    std::string value;
    if (g_.is_constant(name)) {
      const auto& s = g_.tensor(name).shape;
      t = &ctx_.constant(name, q, projected_order(y_.order, y_.shape.size(), s.size()));
    } else {
      t = &ctx_.tensor(name);
      value = name;
    }
    plan_.operands.push_back({t, value});
    return static_cast<int>(plan_.operands.size()) - 1;
  }
  int constant_operand(Tensor t) {
    t.is_constant = true;
    t.shape_known = true;
    const DdrTensor* d = &ctx_.constant(t, {}, projected_order(y_.order, y_.shape.size(), t.shape.size()));
    plan_.operands.push_back({d, ""});
    return static_cast<int>(plan_.operands.size()) - 1;
  }
  int temp(int like = -1, std::int64_t elem = 2) {
    plan_.temps.push_back({like, elem});
    return kTempBase + static_cast<int>(plan_.temps.size()) - 1;
  }
  EltwiseStep& step(Kind kind, int a, int b = kNoBuffer, int out = kOutputBuffer) {
    EltwiseStep s;
    s.kind = kind;
    s.a = a;
    s.b = b;
    s.out = out;
    s.dtype = ctx_.int8() ? isa::DType::Int8 : isa::DType::Fp16;
    plan_.steps.push_back(s);
    return plan_.steps.back();
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw CompileError(g_.source + ": layer '" + n_.name + "' (" + n_.op_type + "): " + what);
  }

  void plan_fp16() {
    const std::string& op = n_.op_type;
    const float inf = std::numeric_limits<float>::infinity();
    if (op == "Where") return plan_where();
    const int single = unary_operand(g_, n_);
    if (op == "Relu" || op == "Clip") {
      int x = operand(n_.inputs[0]);
      EltwiseStep& s = step(Kind::Clip, x);
      s.lo = op == "Relu" ? 0.0f : clip_bound(g_, n_, 1, "min", -inf);
      s.hi = op == "Relu" ? inf : clip_bound(g_, n_, 2, "max", inf);
      return;
    }
    if (op == "Pow" && single == 0) {
      const float e = scalar_value(g_.tensor(n_.inputs[1]));
      isa::ActFunction f;
      bool act = true;
      if (e == 2.0f) f = isa::ActFunction::Square;
      else if (e == 0.5f) f = isa::ActFunction::Sqrt;
      else if (e == -1.0f) f = isa::ActFunction::Reciprocal;
      else act = false;
      if (act) {
        step(Kind::Act, operand(n_.inputs[0])).function = static_cast<int>(f);
        return;
      }
    }
    isa::ActFunction f;
    if (act_function_of(op == "Gelu" && n_.get_string("approximate", "none") == "tanh" ? "GeluTanh" : op, f)) {
      EltwiseStep& s = step(Kind::Act, operand(n_.inputs[0]));
      s.function = static_cast<int>(f);
      act_parameters(n_, s.alpha, s.beta);
      return;
    }
    if (n_.inputs.size() != 2) fail("not a unary or binary element-wise op");
    int a = operand(n_.inputs[0]), b = operand(n_.inputs[1]);
    step(Kind::Binary, a, b).function = static_cast<int>(binary_function(op));
  }

  // An operand as fp16: itself in fp16 programs; in int8 ones an activation is dequantized to
  // a temporary and a constant placed in fp16.
  int float_operand(const std::string& name) {
    if (!ctx_.int8()) return operand(name);
    if (g_.is_constant(name)) return operand(name, QuantParams{});
    const int a = operand(name);
    const int t = temp(a);
    EltwiseStep& s = step(Kind::Dequantize, a, kNoBuffer, t);
    s.dtype = isa::DType::Fp16;
    s.scale = g_.tensor(name).quant.scale;
    s.zero_point = g_.tensor(name).quant.zero_point;
    return t;
  }
  void float_binary(isa::BinaryFunction f, int a, int b, int out) {
    EltwiseStep& s = step(Kind::Binary, a, b, out);
    s.dtype = isa::DType::Fp16;
    s.function = static_cast<int>(f);
  }

  // Where(c, x, y) with c a constant: x * M + K with M = c ? 1 : 0 and K = c ? 0 : y when y is a
  // constant (and mirrored when x is); (x - y) * M + y when both are computed. In fp16; an int8
  // program dequantizes its operands first and quantizes the result, unless the output stays
  // fp16 (a mask fill, masked_where()).
  void plan_where() {
    const Tensor& c = g_.tensor(n_.inputs[0]);
    if (!c.is_constant) fail("the condition is not a constant");
    const std::string& x = n_.inputs[1];
    const std::string& yv = n_.inputs[2];
    const bool xc = g_.is_constant(x), yc = g_.is_constant(yv);
    std::vector<float> cond = as_floats(c);
    auto mask = [&](bool when_true) {
      Tensor m;
      m.name = n_.name + (when_true ? "/where_mask" : "/where_mask_not");
      m.shape = c.shape;
      for (float v : cond) m.floats.push_back((v != 0.0f) == when_true ? 1.0f : 0.0f);
      return m;
    };
    auto selected = [&](const std::string& value, bool when_true) {
      const Tensor& v = g_.tensor(value);
      Tensor k;
      k.name = n_.name + "/where_" + value;
      k.shape = broadcast_shapes(c.shape, v.shape, n_.name);
      std::vector<float> cb = broadcast_to(cond, c.shape, k.shape), vb = broadcast_to(as_floats(v), v.shape, k.shape);
      for (std::size_t i = 0; i < cb.size(); ++i) k.floats.push_back((cb[i] != 0.0f) == when_true ? vb[i] : 0.0f);
      return k;
    };
    const QuantParams& yq = g_.tensor(n_.outputs[0]).quant;
    const bool quantize = ctx_.int8() && yq.valid();
    const int result = quantize ? temp() : kOutputBuffer;
    if (!xc && yc) {
      int xa = float_operand(x), m = constant_operand(mask(true)), k = constant_operand(selected(yv, false));
      int t = temp();
      float_binary(isa::BinaryFunction::Mul, xa, m, t);
      float_binary(isa::BinaryFunction::Add, t, k, result);
    } else if (xc && !yc) {
      int ya = float_operand(yv), m = constant_operand(mask(false)), k = constant_operand(selected(x, true));
      int t = temp();
      float_binary(isa::BinaryFunction::Mul, ya, m, t);
      float_binary(isa::BinaryFunction::Add, t, k, result);
    } else {
      int xa = float_operand(x), ya = float_operand(yv), m = constant_operand(mask(true));
      int t0 = temp(), t1 = temp();
      float_binary(isa::BinaryFunction::Sub, xa, ya, t0);
      float_binary(isa::BinaryFunction::Mul, t0, m, t1);
      float_binary(isa::BinaryFunction::Add, t1, ya, result);
    }
    if (quantize) {
      EltwiseStep& q = step(Kind::Quantize, result);
      q.dtype = isa::DType::Fp16;
      q.scale = yq.scale;
      q.zero_point = yq.zero_point;
    }
  }

  void plan_int8() {
    if (n_.op_type == "Where") return plan_where();
    Int8ElementwiseParams p = int8_elementwise_params(g_, n_);
    using K8 = Int8ElementwiseParams::Kind;
    switch (p.kind) {
      case K8::Clip: {
        EltwiseStep& s = step(Kind::Clip, operand(n_.inputs[0]));
        s.lo = static_cast<float>(p.lo);
        s.hi = static_cast<float>(p.hi);
        return;
      }
      case K8::Lut:
        plan_.lut = p.lut;
        step(Kind::Lut, operand(n_.inputs[static_cast<std::size_t>(unary_operand(g_, n_))]));
        return;
      case K8::Qadd: {
        int a = operand(n_.inputs[0]), b = operand(n_.inputs[1]);
        step(Kind::Qadd, a, b).qadd = p.qadd;
        return;
      }
      case K8::QBinary: {
        int a = operand(n_.inputs[0], p.operands[0]), b = operand(n_.inputs[1], p.operands[1]);
        EltwiseStep& s = step(Kind::QBinary, a, b);
        s.qbinary = p.qbinary;
        return;
      }
      case K8::Island: {
        int a = operand(n_.inputs[0], p.operands[0]), b = operand(n_.inputs[1], p.operands[1]);
        int ta = temp(a), tb = temp(b), tc = temp();
        for (auto [src, dst, q] : {std::tuple{a, ta, p.operands[0]}, std::tuple{b, tb, p.operands[1]}}) {
          EltwiseStep& s = step(Kind::Dequantize, src, kNoBuffer, dst);
          s.dtype = isa::DType::Fp16;
          s.scale = q.scale;
          s.zero_point = q.zero_point;
        }
        EltwiseStep& bin = step(Kind::Binary, ta, tb, tc);
        bin.dtype = isa::DType::Fp16;
        bin.function = static_cast<int>(p.island_function);
        const QuantParams& yq = g_.tensor(n_.outputs[0]).quant;
        EltwiseStep& q = step(Kind::Quantize, tc);
        q.dtype = isa::DType::Fp16;
        q.scale = yq.scale;
        q.zero_point = yq.zero_point;
        return;
      }
    }
  }

 public:
  static constexpr int kTempBase = 1000;

 private:
  CodegenContext& ctx_;
  const Graph& g_;
  const Node& n_;
  const DdrTensor& y_;
  EltwisePlan plan_;
};

}  // namespace

EltwisePlan plan_elementwise(CodegenContext& ctx, const Node& node) {
  EltwisePlan p = Planner(ctx, node).run();
  // Temporaries are numbered after the operands.
  const int k = static_cast<int>(p.operands.size());
  for (auto& s : p.steps)
    for (int* id : {&s.a, &s.b, &s.out})
      if (*id >= Planner::kTempBase) *id = *id - Planner::kTempBase + k;
  for (auto& t : p.temps)
    if (t.like_operand >= Planner::kTempBase) t.like_operand = t.like_operand - Planner::kTempBase + k;
  return p;
}

bool act_function_of(const std::string& op, isa::ActFunction& f) {
  using F = isa::ActFunction;
  static const std::map<std::string, F> kFunctions = {
      {"Sigmoid", F::Sigmoid}, {"Tanh", F::Tanh}, {"HardSigmoid", F::HardSigmoid}, {"HardSwish", F::HardSwish},
      {"SiLU", F::Silu}, {"Gelu", F::Gelu}, {"GeluTanh", F::GeluTanh}, {"Exp", F::Exp}, {"Log", F::Log},
      {"Sqrt", F::Sqrt}, {"Reciprocal", F::Reciprocal}, {"Erf", F::Erf}, {"Mish", F::Mish}, {"Abs", F::Abs},
      {"Neg", F::Neg}, {"Softplus", F::Softplus}, {"LeakyRelu", F::LeakyRelu}, {"Elu", F::Elu}, {"Relu", F::Relu},
      {"Selu", F::Selu}, {"Softsign", F::Softsign}, {"Sin", F::Sin}, {"Cos", F::Cos}, {"Floor", F::Floor},
      {"Ceil", F::Ceil}, {"Round", F::Round}, {"Sign", F::Sign}, {"Celu", F::Celu},
      {"ThresholdedRelu", F::ThresholdedRelu}};
  auto it = kFunctions.find(op);
  if (it == kFunctions.end()) return false;
  f = it->second;
  return true;
}

void act_parameters(const Node& n, float& alpha, float& beta) {
  const std::string& op = n.op_type;
  alpha = beta = 0.0f;
  if (op == "HardSigmoid") {
    alpha = n.get_float("alpha", 0.2f);
    beta = n.get_float("beta", 0.5f);
  } else if (op == "LeakyRelu") {
    alpha = n.get_float("alpha", 0.01f);
  } else if (op == "Elu" || op == "Celu" || op == "ThresholdedRelu") {
    alpha = n.get_float("alpha", 1.0f);
  } else if (op == "Selu") {
    alpha = n.get_float("alpha", 1.67326319217681884765625f);
    beta = n.get_float("gamma", 1.05070102214813232421875f);
  }
}

isa::Instruction step_instruction(const EltwiseStep& s, const EltwiseBuffer& a, const EltwiseBuffer& b,
                                  const EltwiseBuffer& out, std::int64_t rows, std::int64_t cols, std::uint64_t lut_addr) {
  const std::int64_t dtype = static_cast<std::int64_t>(s.dtype);
  switch (s.kind) {
    case Kind::Act: {
      Instruction in = make(Opcode::Activation, {{Field::dtype, dtype}, {Field::function, s.function},
                                                 {Field::dst_addr, addr(out.addr)}, {Field::src_addr, addr(a.addr)},
                                                 {Field::count, a.count}});
      in.set_float(Field::alpha, s.alpha);
      in.set_float(Field::beta, s.beta);
      return in;
    }
    case Kind::Clip: {
      Instruction in = make(Opcode::Clip, {{Field::dtype, dtype}, {Field::dst_addr, addr(out.addr)},
                                           {Field::src_addr, addr(a.addr)}, {Field::count, a.count}});
      in.set_float(Field::lo, s.lo);
      in.set_float(Field::hi, s.hi);
      return in;
    }
    case Kind::Lut:
      return make(Opcode::Lut, {{Field::dst_addr, addr(out.addr)}, {Field::src_addr, addr(a.addr)},
                                {Field::table_addr, addr(lut_addr)}, {Field::count, a.count}});
    case Kind::Binary:
      return make(Opcode::Binary, {{Field::dtype, dtype}, {Field::function, s.function}, {Field::dst_addr, addr(out.addr)},
                                   {Field::a_addr, addr(a.addr)}, {Field::b_addr, addr(b.addr)}, {Field::rows, rows},
                                   {Field::cols, cols}, {Field::a_row_stride, a.row_stride},
                                   {Field::a_col_stride, a.col_stride}, {Field::b_row_stride, b.row_stride},
                                   {Field::b_col_stride, b.col_stride}});
    case Kind::QBinary: {
      const QBinaryParams& q = s.qbinary;
      return make(Opcode::QuantizedBinary,
                  {{Field::function, q.function}, {Field::dst_addr, addr(out.addr)}, {Field::a_addr, addr(a.addr)},
                   {Field::b_addr, addr(b.addr)}, {Field::rows, rows}, {Field::cols, cols},
                   {Field::a_row_stride, a.row_stride}, {Field::a_col_stride, a.col_stride},
                   {Field::b_row_stride, b.row_stride}, {Field::b_col_stride, b.col_stride},
                   {Field::a_zero_point, q.a_zero_point}, {Field::b_zero_point, q.b_zero_point},
                   {Field::zero_point, q.zero_point}, {Field::a_multiplier, q.a_multiplier},
                   {Field::b_multiplier, q.b_multiplier}, {Field::shift, q.shift}, {Field::clamp_min, q.clamp_min},
                   {Field::clamp_max, q.clamp_max}});
    }
    case Kind::Qadd: {
      const QaddParams& q = s.qadd;
      return make(Opcode::QuantizedAdd,
                  {{Field::dst_addr, addr(out.addr)}, {Field::a_addr, addr(a.addr)}, {Field::b_addr, addr(b.addr)},
                   {Field::count, rows * cols}, {Field::a_zero_point, q.a_zero_point}, {Field::b_zero_point, q.b_zero_point},
                   {Field::zero_point, q.zero_point}, {Field::a_multiplier, q.a_multiplier},
                   {Field::b_multiplier, q.b_multiplier}, {Field::shift, q.shift}, {Field::clamp_min, q.clamp_min},
                   {Field::clamp_max, q.clamp_max}});
    }
    case Kind::Dequantize:
    case Kind::Quantize: {
      Instruction in = make(s.kind == Kind::Quantize ? Opcode::Quantize : Opcode::Dequantize,
                            {{Field::dtype, dtype}, {Field::dst_addr, addr(out.addr)}, {Field::src_addr, addr(a.addr)},
                             {Field::count, a.count}, {Field::zero_point, s.zero_point}});
      in.set_float(Field::scale, s.scale);
      return in;
    }
  }
  return isa::make_instruction(Opcode::Halt);
}

}  // namespace npu::compiler
