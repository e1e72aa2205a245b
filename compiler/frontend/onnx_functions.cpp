#include "compiler/frontend/onnx_functions.h"

#include <vector>

namespace npu::compiler {
namespace {

struct BodyNode {
  const char* op;
  std::vector<std::string> inputs;
  std::string output;
};

void constant(onnx::FunctionProto& f, const std::string& name, float value) {
  auto* n = f.add_node();
  n->set_op_type("Constant");
  n->add_output(name);
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_float_data(value);
}

void body(onnx::FunctionProto& f, const std::vector<BodyNode>& nodes) {
  for (const auto& b : nodes) {
    auto* n = f.add_node();
    n->set_op_type(b.op);
    for (const auto& i : b.inputs) n->add_input(i);
    n->add_output(b.output);
  }
}

}  // namespace

bool is_internal_function_op(const std::string& op) {
  return op == "SiLU" || op == "Gelu" || op == "GeluTanh" || op == "Mish";
}

void add_internal_functions(onnx::ModelProto& m, const std::set<std::string>& ops, std::int64_t opset) {
  if (ops.empty()) return;
  bool imported = false;
  for (const auto& o : m.opset_import()) imported |= o.domain() == "npusim";
  if (!imported) {
    auto* o = m.add_opset_import();
    o->set_domain("npusim");
    o->set_version(1);
  }
  for (const auto& op : ops) {
    if (!is_internal_function_op(op)) continue;
    onnx::FunctionProto& f = *m.add_functions();
    f.set_name(op);
    f.set_domain("npusim");
    f.add_input("X");
    f.add_output("Y");
    auto* imp = f.add_opset_import();
    imp->set_domain("");
    imp->set_version(opset);
    if (op == "SiLU") {
      body(f, {{"Sigmoid", {"X"}, "S"}, {"Mul", {"X", "S"}, "Y"}});
    } else if (op == "Mish") {
      body(f, {{"Softplus", {"X"}, "SP"}, {"Tanh", {"SP"}, "T"}, {"Mul", {"X", "T"}, "Y"}});
    } else if (op == "Gelu") {  // 0.5 x (1 + erf(x / sqrt 2))
      constant(f, "InvSqrt2", 0.70710678118654752f);
      constant(f, "One", 1.0f);
      constant(f, "Half", 0.5f);
      body(f, {{"Mul", {"X", "InvSqrt2"}, "A"}, {"Erf", {"A"}, "E"}, {"Add", {"E", "One"}, "B"},
               {"Mul", {"X", "B"}, "M"}, {"Mul", {"M", "Half"}, "Y"}});
    } else {  // GeluTanh: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
      constant(f, "K0", 0.79788456080286536f);
      constant(f, "K1", 0.044715f);
      constant(f, "One", 1.0f);
      constant(f, "Half", 0.5f);
      body(f, {{"Mul", {"X", "X"}, "X2"}, {"Mul", {"X2", "X"}, "X3"}, {"Mul", {"X3", "K1"}, "C"},
               {"Add", {"X", "C"}, "I"}, {"Mul", {"I", "K0"}, "S"}, {"Tanh", {"S"}, "T"}, {"Add", {"T", "One"}, "B"},
               {"Mul", {"X", "B"}, "M"}, {"Mul", {"M", "Half"}, "Y"}});
    }
  }
}

}  // namespace npu::compiler
