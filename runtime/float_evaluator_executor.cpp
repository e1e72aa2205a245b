// CPU steps on the compiler's own FP32 evaluator, so that a model whose fallback ops it
// covers runs without Python (runtime/python_bridge.h). The decision is made once per step:
// every node supported, every computed value float32, every shape static. A step the
// evaluator turns down, or that fails in it, goes to the next executor (ONNX Runtime).
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "compiler/frontend/onnx_io.h"
#include "compiler/reference/float_evaluator.h"
#include "runtime/cpu_executor.h"

namespace npu::runtime {

namespace {

using compiler::FloatTensor;

struct PreparedStep {
  compiler::Graph graph;
  compiler::TensorMap constants;
};

bool static_shape(const compiler::Tensor& t) {
  if (!t.shape_known) return false;
  for (auto d : t.shape)
    if (d < 0) return false;
  return true;
}

// The step as a graph the evaluator can run, or nothing when it cannot.
std::optional<PreparedStep> prepare(std::size_t step_index, const container::CpuStep& step) {
  PreparedStep p;
  try {
    p.graph = compiler::import_onnx_bytes(step.onnx_model, fmt::format("CPU step {}", step_index));
  } catch (const std::exception&) {
    return std::nullopt;  // ONNX Runtime will say what is wrong, if anything is
  }
  const compiler::Graph& g = p.graph;
  if (g.inputs != step.inputs || g.outputs != step.outputs) return std::nullopt;
  for (const auto& name : g.inputs) {
    const auto& t = g.tensor(name);
    const bool exact_type = t.elem_type == compiler::kFloat || t.elem_type == compiler::kInt32 ||
                            t.elem_type == compiler::kInt64;
    if (!exact_type || !static_shape(t)) return std::nullopt;
  }
  for (const auto& n : g.nodes) {
    if (!compiler::evaluator_supports(n)) return std::nullopt;
    for (const auto& out : n.outputs)
      if (!out.empty() && (!g.has_tensor(out) || g.tensor(out).elem_type != compiler::kFloat ||
                           !static_shape(g.tensor(out))))
        return std::nullopt;
  }
  for (const auto& name : g.outputs)
    if (g.tensor(name).elem_type != compiler::kFloat) return std::nullopt;
  p.constants = compiler::graph_constants(g);
  return p;
}

// A step input as FP32, when that is exact: float32, or integers of at most 24 bits.
std::optional<FloatTensor> as_float(const HostTensor& t, const compiler::Tensor& declared) {
  if (t.shape != declared.shape) return std::nullopt;
  FloatTensor f;
  f.shape = t.shape;
  const auto n = static_cast<std::size_t>(t.element_count());
  f.data.resize(n);
  constexpr std::int64_t kExact = std::int64_t{1} << 24;
  auto from_integers = [&](auto tag) -> bool {
    using T = decltype(tag);
    for (std::size_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, t.bytes.data() + i * sizeof(T), sizeof(T));
      if (v > kExact || v < -kExact) return false;
      f.data[i] = static_cast<float>(v);
    }
    return true;
  };
  switch (t.dtype) {
    case ElementType::Float32: std::memcpy(f.data.data(), t.bytes.data(), n * sizeof(float)); return f;
    case ElementType::Int32: return from_integers(std::int32_t{}) ? std::optional(f) : std::nullopt;
    case ElementType::Int64: return from_integers(std::int64_t{}) ? std::optional(f) : std::nullopt;
    default: return std::nullopt;
  }
}

class FloatEvaluatorExecutor : public CpuExecutor {
 public:
  explicit FloatEvaluatorExecutor(std::unique_ptr<CpuExecutor> next) : next_(std::move(next)) {}

  std::string name() const override { return "float_evaluator"; }

  std::vector<HostTensor> run(std::size_t step_index, const container::CpuStep& step,
                              const std::vector<HostTensor>& inputs) override {
    auto it = prepared_.find(step_index);
    if (it == prepared_.end()) it = prepared_.emplace(step_index, prepare(step_index, step)).first;
    if (!it->second) return next_->run(step_index, step, inputs);
    if (auto outputs = evaluate(*it->second, inputs)) return std::move(*outputs);
    return next_->run(step_index, step, inputs);
  }

 private:
  std::unique_ptr<CpuExecutor> next_;
  std::map<std::size_t, std::optional<PreparedStep>> prepared_;

  static std::optional<std::vector<HostTensor>> evaluate(const PreparedStep& p, const std::vector<HostTensor>& inputs) {
    const compiler::Graph& g = p.graph;
    if (inputs.size() != g.inputs.size()) return std::nullopt;
    compiler::TensorMap feed;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      auto value = as_float(inputs[i], g.tensor(g.inputs[i]));
      if (!value) return std::nullopt;
      feed.emplace(g.inputs[i], std::move(*value));
    }
    compiler::TensorMap values;
    try {
      values = compiler::evaluate_graph(g, feed, false, &p.constants);
    } catch (const compiler::CompileError&) {
      return std::nullopt;  // an attribute or case the evaluator does not cover
    }
    std::vector<HostTensor> outputs;
    for (const auto& name : g.outputs) {
      const FloatTensor* value = nullptr;
      if (auto v = values.find(name); v != values.end()) value = &v->second;
      else if (auto c = p.constants.find(name); c != p.constants.end()) value = &c->second;
      if (!value || value->elements() != static_cast<std::int64_t>(value->data.size())) return std::nullopt;
      HostTensor t = make_host_tensor(ElementType::Float32, value->shape);
      std::memcpy(t.bytes.data(), value->data.data(), value->data.size() * sizeof(float));
      outputs.push_back(std::move(t));
    }
    return outputs;
  }
};

}  // namespace

std::unique_ptr<CpuExecutor> make_float_evaluator_executor(std::unique_ptr<CpuExecutor> next) {
  return std::make_unique<FloatEvaluatorExecutor>(std::move(next));
}

}  // namespace npu::runtime
