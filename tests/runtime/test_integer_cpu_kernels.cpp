// Our CPU kernels for the element-wise integer nodes ONNX Runtime lacks; others pass through.
#include <catch2/catch.hpp>

#include <cstring>

#include <onnx/onnx_pb.h>

#include "runtime/cpu_executor.h"

using namespace npu;
using namespace npu::runtime;

namespace {

struct Recorder : CpuExecutor {
  int* calls;
  explicit Recorder(int* c) : calls(c) {}
  std::string name() const override { return "recorder"; }
  std::vector<HostTensor> run(std::size_t, const container::CpuStep&, const std::vector<HostTensor>&) override {
    ++*calls;
    return {};
  }
};

container::CpuStep one_node_step(const std::string& op, std::vector<std::string> inputs,
                                const std::string& direction = "") {
  onnx::ModelProto model;
  auto* node = model.mutable_graph()->add_node();
  node->set_op_type(op);
  for (const auto& i : inputs) node->add_input(i);
  node->add_output("y");
  if (!direction.empty()) {
    auto* a = node->add_attribute();
    a->set_name("direction");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(direction);
  }
  const std::string bytes = model.SerializeAsString();
  container::CpuStep step;
  step.onnx_model.assign(bytes.begin(), bytes.end());
  step.inputs = std::move(inputs);
  step.outputs = {"y"};
  return step;
}

template <typename T>
HostTensor tensor(ElementType type, std::vector<std::int64_t> shape, std::vector<T> values) {
  HostTensor t = make_host_tensor(type, std::move(shape));
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

}  // namespace

TEST_CASE("uint8 Add wraps and broadcasts like numpy", "[integer_cpu_kernels]") {
  int calls = 0;
  auto kernels = make_integer_cpu_kernels(std::make_unique<Recorder>(&calls));
  const auto a = tensor<std::uint8_t>(ElementType::UInt8, {2, 2}, {250, 1, 2, 3});
  const auto b = tensor<std::uint8_t>(ElementType::UInt8, {2}, {10, 20});
  const auto out = kernels->run(0, one_node_step("Add", {"a", "b"}), {a, b});
  REQUIRE(out.size() == 1);
  CHECK(out[0].shape == std::vector<std::int64_t>{2, 2});
  CHECK(out[0].bytes == std::vector<std::uint8_t>{4, 21, 12, 23});
  CHECK(calls == 0);
}

TEST_CASE("BitShift, Max and Pow with unsigned exponents", "[integer_cpu_kernels]") {
  int calls = 0;
  auto kernels = make_integer_cpu_kernels(std::make_unique<Recorder>(&calls));
  const auto x = tensor<std::uint16_t>(ElementType::UInt16, {3}, {16, 4, 1});
  const auto s = tensor<std::uint16_t>(ElementType::UInt16, {3}, {1, 2, 3});
  auto out = kernels->run(0, one_node_step("BitShift", {"x", "s"}, "LEFT"), {x, s});
  CHECK(std::vector<std::uint16_t>(out[0].data<std::uint16_t>(), out[0].data<std::uint16_t>() + 3) ==
        std::vector<std::uint16_t>{32, 16, 8});

  const auto p = tensor<std::int8_t>(ElementType::Int8, {3}, {3, -2, 1});
  const auto q = tensor<std::int8_t>(ElementType::Int8, {3}, {1, 4, -4});
  const auto r = tensor<std::int8_t>(ElementType::Int8, {1}, {2});
  out = kernels->run(0, one_node_step("Max", {"p", "q", "r"}), {p, q, r});
  CHECK(std::vector<std::int8_t>(out[0].data<std::int8_t>(), out[0].data<std::int8_t>() + 3) ==
        std::vector<std::int8_t>{3, 4, 2});

  const auto base = tensor<float>(ElementType::Float32, {3}, {1.0f, 2.0f, 3.0f});
  const auto exponent = tensor<std::uint32_t>(ElementType::UInt32, {3}, {4, 5, 6});
  out = kernels->run(0, one_node_step("Pow", {"base", "e"}), {base, exponent});
  CHECK(out[0].dtype == ElementType::Float32);
  CHECK(out[0].data<float>()[2] == 729.0f);
  CHECK(calls == 0);
}

TEST_CASE("anything else goes to the next executor", "[integer_cpu_kernels]") {
  int calls = 0;
  auto kernels = make_integer_cpu_kernels(std::make_unique<Recorder>(&calls));
  const auto f = tensor<float>(ElementType::Float32, {1}, {1.0f});
  kernels->run(0, one_node_step("Add", {"a", "b"}), {f, f});  // float Add: ORT has it
  const auto i32 = tensor<std::int32_t>(ElementType::Int32, {1}, {1});
  kernels->run(0, one_node_step("Add", {"a", "b"}), {i32, i32});  // int32 Add: ORT has it
  kernels->run(0, one_node_step("Erf", {"a"}), {f});
  CHECK(calls == 3);
}
