// Our own CPU kernels for CPU steps that are one element-wise integer node of the kinds ONNX
// Runtime's CPU provider lacks kernels for (Add/Sub/Mul/Div/Max/Min on 8/16-bit and unsigned
// integers, BitShift on uint16, Pow with unsigned exponents). Everything else goes to the next
// executor.
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "runtime/cpu_executor.h"

namespace npu::runtime {

namespace {

// numpy broadcasting: the output shape and, per input, element strides (0 on broadcast dims).
struct Broadcast {
  std::vector<std::int64_t> shape;
  std::vector<std::vector<std::int64_t>> strides;
};

Broadcast broadcast(const std::vector<HostTensor>& inputs) {
  Broadcast b;
  std::size_t rank = 0;
  for (const auto& t : inputs) rank = std::max(rank, t.shape.size());
  b.shape.assign(rank, 1);
  for (const auto& t : inputs)
    for (std::size_t i = 0; i < t.shape.size(); ++i) {
      auto& d = b.shape[rank - t.shape.size() + i];
      if (d == 1) d = t.shape[i];
      else if (t.shape[i] != 1 && t.shape[i] != d) throw std::runtime_error("shapes do not broadcast");
    }
  for (const auto& t : inputs) {
    std::vector<std::int64_t> s(rank, 0);
    std::int64_t stride = 1;
    for (std::size_t i = t.shape.size(); i-- > 0;) {
      s[rank - t.shape.size() + i] = t.shape[i] == 1 ? 0 : stride;
      stride *= t.shape[i];
    }
    b.strides.push_back(s);
  }
  return b;
}

template <typename T>
T element(const HostTensor& t, std::int64_t i) {
  T v;
  std::memcpy(&v, t.bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

// out[i] = f(a[i], b[i], ...) folded left to right, inputs and output all of type T.
template <typename T>
HostTensor fold(const std::vector<HostTensor>& inputs, const std::function<T(T, T)>& f) {
  const Broadcast b = broadcast(inputs);
  HostTensor out = make_host_tensor(inputs[0].dtype, b.shape);
  std::vector<std::int64_t> index(b.shape.size(), 0);
  for (std::uint64_t e = 0; e < out.element_count(); ++e) {
    T acc{};
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      std::int64_t offset = 0;
      for (std::size_t d = 0; d < index.size(); ++d) offset += index[d] * b.strides[k][d];
      const T v = element<T>(inputs[k], offset);
      acc = k == 0 ? v : f(acc, v);
    }
    std::memcpy(out.bytes.data() + e * sizeof(T), &acc, sizeof(T));
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < b.shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// Integer arithmetic wraps modulo 2^bits, as ONNX (and numpy) define it for these types.
template <typename T>
std::function<T(T, T)> integer_op(const std::string& op, const std::string& direction) {
  using U = std::make_unsigned_t<T>;
  if (op == "Add") return [](T a, T b) { return static_cast<T>(static_cast<U>(a) + static_cast<U>(b)); };
  if (op == "Sub") return [](T a, T b) { return static_cast<T>(static_cast<U>(a) - static_cast<U>(b)); };
  if (op == "Mul") return [](T a, T b) { return static_cast<T>(static_cast<U>(a) * static_cast<U>(b)); };
  if (op == "Div")
    return [](T a, T b) {
      if (b == 0) throw std::runtime_error("integer division by zero");
      return static_cast<T>(a / b);  // truncates toward zero
    };
  if (op == "Max") return [](T a, T b) { return a > b ? a : b; };
  if (op == "Min") return [](T a, T b) { return a < b ? a : b; };
  if constexpr (std::is_unsigned_v<T>) {
    if (op == "BitShift") {
      const bool left = direction == "LEFT";
      return [left](T a, T b) {
        if (b >= sizeof(T) * 8) return T{0};
        return static_cast<T>(left ? static_cast<U>(a) << b : static_cast<U>(a) >> b);
      };
    }
  }
  return nullptr;
}

template <typename T>
bool try_integer(const std::string& op, const std::string& direction, const std::vector<HostTensor>& inputs,
                 HostTensor& out) {
  const auto f = integer_op<T>(op, direction);
  if (!f) return false;
  out = fold<T>(inputs, f);
  return true;
}

// Pow(float32 base, unsigned exponent) -> float32.
HostTensor pow_float_unsigned(const std::vector<HostTensor>& inputs) {
  std::vector<HostTensor> as_double;
  for (const auto& t : inputs) {
    HostTensor d = make_host_tensor(ElementType::Float64, t.shape);
    for (std::uint64_t i = 0; i < t.element_count(); ++i) {
      double v = 0;
      if (t.dtype == ElementType::Float32) v = element<float>(t, static_cast<std::int64_t>(i));
      else if (t.dtype == ElementType::UInt32) v = element<std::uint32_t>(t, static_cast<std::int64_t>(i));
      else v = static_cast<double>(element<std::uint64_t>(t, static_cast<std::int64_t>(i)));
      std::memcpy(d.bytes.data() + i * 8, &v, 8);
    }
    as_double.push_back(std::move(d));
  }
  const HostTensor r = fold<double>(as_double, [](double a, double b) { return std::pow(a, b); });
  HostTensor out = make_host_tensor(ElementType::Float32, r.shape);
  for (std::uint64_t i = 0; i < r.element_count(); ++i) {
    const float f = static_cast<float>(element<double>(r, static_cast<std::int64_t>(i)));
    std::memcpy(out.bytes.data() + i * 4, &f, 4);
  }
  return out;
}

class IntegerCpuKernels : public CpuExecutor {
 public:
  explicit IntegerCpuKernels(std::unique_ptr<CpuExecutor> next) : next_(std::move(next)) {}
  std::string name() const override { return "integer CPU kernels, then " + next_->name(); }

  std::vector<HostTensor> run(std::size_t step_index, const container::CpuStep& step,
                              const std::vector<HostTensor>& inputs) override {
    HostTensor out;
    if (step.outputs.size() == 1 && try_run(step, inputs, out)) return {std::move(out)};
    return next_->run(step_index, step, inputs);
  }

 private:
  std::unique_ptr<CpuExecutor> next_;

  static bool try_run(const container::CpuStep& step, const std::vector<HostTensor>& inputs, HostTensor& out) {
    onnx::ModelProto model;
    if (inputs.empty() || !model.ParseFromArray(step.onnx_model.data(), static_cast<int>(step.onnx_model.size())) ||
        model.graph().node_size() != 1)
      return false;
    const auto& node = model.graph().node(0);
    if (node.output_size() != 1 || node.output(0) != step.outputs[0] || node.input_size() != static_cast<int>(inputs.size()))
      return false;
    for (int i = 0; i < node.input_size(); ++i)
      if (node.input(i) != step.inputs[static_cast<std::size_t>(i)]) return false;
    std::string direction;
    for (const auto& a : node.attribute())
      if (a.name() == "direction") direction = a.s();
    const std::string& op = node.op_type();

    if (op == "Pow" && inputs.size() == 2 && inputs[0].dtype == ElementType::Float32 &&
        (inputs[1].dtype == ElementType::UInt32 || inputs[1].dtype == ElementType::UInt64)) {
      out = pow_float_unsigned(inputs);
      return true;
    }
    for (const auto& t : inputs)
      if (t.dtype != inputs[0].dtype) return false;
    // Integer types other than int32/int64, which ONNX Runtime's kernels cover; ours are exact
    // for every integer type, so taking a few ORT also has costs nothing in correctness.
    switch (inputs[0].dtype) {
      case ElementType::UInt8: return try_integer<std::uint8_t>(op, direction, inputs, out);
      case ElementType::Int8: return try_integer<std::int8_t>(op, direction, inputs, out);
      case ElementType::UInt16: return try_integer<std::uint16_t>(op, direction, inputs, out);
      case ElementType::Int16: return try_integer<std::int16_t>(op, direction, inputs, out);
      case ElementType::UInt32: return try_integer<std::uint32_t>(op, direction, inputs, out);
      case ElementType::UInt64: return try_integer<std::uint64_t>(op, direction, inputs, out);
      default: return false;
    }
  }
};

}  // namespace

std::unique_ptr<CpuExecutor> make_integer_cpu_kernels(std::unique_ptr<CpuExecutor> next) {
  return std::make_unique<IntegerCpuKernels>(std::move(next));
}

}  // namespace npu::runtime
