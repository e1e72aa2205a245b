// Graph IR -> ONNX ModelProto: pass dumps and CPU fallback steps.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "compiler/core/node_parameters.h"
#include "compiler/core/subgraph_capture.h"
#include "compiler/frontend/constant_outputs.h"
#include "compiler/frontend/onnx_functions.h"
#include "compiler/frontend/onnx_io.h"
#include "isa/fp16.h"

namespace npu::compiler {
namespace {

void write_value_info(const Tensor& t, onnx::ValueInfoProto* v, bool force_float) {
  v->set_name(t.name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(force_float ? kFloat : (t.elem_type ? t.elem_type : kFloat));
  if (!t.shape_known) return;
  auto* shape = tt->mutable_shape();
  for (std::size_t i = 0; i < t.shape.size(); ++i) {
    if (t.shape[i] >= 0) shape->add_dim()->set_dim_value(t.shape[i]);
    else shape->add_dim()->set_dim_param(i < t.dim_names.size() && !t.dim_names[i].empty() ? t.dim_names[i] : "N");
  }
}

void write_constant(const Tensor& t, onnx::TensorProto* p) {
  p->set_name(t.name);
  for (auto d : t.shape) p->add_dims(d);
  bool float_type = t.elem_type == kFloat || t.elem_type == kFloat16 || t.elem_type == kDouble;
  if (float_type || (!t.floats.empty() && t.ints.empty())) {
    // Float data keeps the IR's own type: a float16 or double constant stays one.
    if (t.elem_type == kFloat16) {
      p->set_data_type(kFloat16);
      for (float f : t.floats) p->add_int32_data(isa::float_to_half(f));
    } else if (t.elem_type == kDouble) {
      p->set_data_type(kDouble);
      for (float f : t.floats) p->add_double_data(f);
    } else {
      p->set_data_type(kFloat);
      for (float f : t.floats) p->add_float_data(f);
    }
  } else if (t.elem_type == kInt32 || t.elem_type == kInt8 || t.elem_type == kUint8 ||
             t.elem_type == kBool || t.elem_type == 4 /*uint16*/ || t.elem_type == 5 /*int16*/) {
    p->set_data_type(t.elem_type);
    for (auto i : t.ints) p->add_int32_data(static_cast<std::int32_t>(i));
  } else if (t.elem_type == 12 /*uint32*/ || t.elem_type == 13 /*uint64*/) {
    p->set_data_type(t.elem_type);
    for (auto i : t.ints) p->add_uint64_data(static_cast<std::uint64_t>(i));
  } else {
    p->set_data_type(kInt64);
    for (auto i : t.ints) p->add_int64_data(i);
  }
}

void write_attribute(const std::string& name, const Attribute& a, onnx::AttributeProto* p) {
  if (a.kind == Attribute::Kind::Opaque || !a.onnx_bytes.empty()) {
    p->ParseFromString(a.onnx_bytes);
    p->set_name(name);
    return;
  }
  p->set_name(name);
  switch (a.kind) {
    case Attribute::Kind::Int: p->set_type(onnx::AttributeProto::INT); p->set_i(a.i); break;
    case Attribute::Kind::Float: p->set_type(onnx::AttributeProto::FLOAT); p->set_f(a.f); break;
    case Attribute::Kind::String: p->set_type(onnx::AttributeProto::STRING); p->set_s(a.s); break;
    case Attribute::Kind::Ints:
      p->set_type(onnx::AttributeProto::INTS);
      for (auto v : a.ints) p->add_ints(v);
      break;
    case Attribute::Kind::Floats:
      p->set_type(onnx::AttributeProto::FLOATS);
      for (auto v : a.floats) p->add_floats(v);
      break;
    case Attribute::Kind::Strings:
      p->set_type(onnx::AttributeProto::STRINGS);
      for (const auto& v : a.strings) p->add_strings(v);
      break;
    case Attribute::Kind::Tensor: {
      p->set_type(onnx::AttributeProto::TENSOR);
      Tensor t;
      t.elem_type = a.tensor_elem_type;
      t.shape = a.tensor_shape;
      t.floats = a.floats;
      t.ints = a.ints;
      write_constant(t, p->mutable_t());
      break;
    }
    case Attribute::Kind::Opaque: break;
  }
}

void write_node_proto(const Node& n, onnx::NodeProto* p) {
  p->set_name(n.name);
  p->set_op_type(n.op_type);
  if (!n.domain.empty()) p->set_domain(n.domain);
  for (const auto& i : n.inputs) p->add_input(i);
  for (const auto& o : n.outputs) p->add_output(o);
  for (const auto& [name, a] : n.attributes) write_attribute(name, a, p->add_attribute());
}

onnx::ModelProto make_model(const std::string& name, std::int64_t opset, bool custom_domain) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("npusim");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  if (custom_domain) {
    auto* c = m.add_opset_import();
    c->set_domain("npusim");
    c->set_version(1);
  }
  m.mutable_graph()->set_name(name.empty() ? "graph" : name);
  return m;
}

// Writes nodes in the ONNX form of the graph's opset: parameter attributes that opset takes as
// inputs (node_parameters.h) become initializers, and internal activation ops (domain npusim)
// get model-local functions.
class NodeWriter {
 public:
  NodeWriter(const Graph& g, onnx::GraphProto* gp) : g_(g), gp_(gp) {}
  void write(const Node& n) {
    Node m = parameters_to_inputs(g_, n, g_.opset, extra_, [&](const std::string& base) { return unique(base); });
    if (m.domain == "npusim" && is_internal_function_op(m.op_type)) functions_.insert(m.op_type);
    if (m.domain == "com.microsoft") contrib_ops_ = true;
    write_node_proto(m, gp_->add_node());
  }
  void finish(onnx::ModelProto& model) {
    for (const auto& t : extra_) write_constant(t, gp_->add_initializer());
    add_internal_functions(model, functions_, g_.opset);
    // ONNX Runtime's own ops (the 16-bit Quantize/DequantizeLinear below opset 21) need their
    // domain imported, or it refuses the model.
    if (contrib_ops_ && std::none_of(model.opset_import().begin(), model.opset_import().end(),
                                     [](const onnx::OperatorSetIdProto& o) { return o.domain() == "com.microsoft"; })) {
      auto* c = model.add_opset_import();
      c->set_domain("com.microsoft");
      c->set_version(1);
    }
  }

 private:
  std::string unique(const std::string& base) {
    std::string name = base;
    for (int k = 1; g_.has_tensor(name) || !names_.insert(name).second; ++k) name = base + "_" + std::to_string(k);
    return name;
  }
  const Graph& g_;
  onnx::GraphProto* gp_;
  std::vector<Tensor> extra_;
  std::set<std::string> functions_, names_;
  bool contrib_ops_ = false;
};

std::vector<std::uint8_t> to_bytes(const onnx::ModelProto& m) {
  std::string s;
  m.SerializeToString(&s);
  return std::vector<std::uint8_t>(s.begin(), s.end());
}

// A fused NPU layer as plain ONNX nodes, for CPU steps (ONNX Runtime or our kernels run them).
std::vector<Node> expand_fused(const Graph& g, const Node& n) {
  std::vector<Node> out;
  Node core;
  core.name = n.name;
  core.op_type = n.op_type == "FusedConv" ? "Conv" : "Gemm";
  core.inputs = {n.inputs[0], n.inputs[1]};
  const bool has_bias = n.inputs.size() > 2 && !n.inputs[2].empty();
  // A FusedGemm over rows of K keeps its input's leading dims, which Gemm (2-D only) cannot.
  const bool rows_of_k = core.op_type == "Gemm" && g.has_tensor(n.inputs[0]) && g.tensor(n.inputs[0]).shape.size() > 2;
  if (rows_of_k) core.op_type = "MatMul";
  if (has_bias && !rows_of_k) core.inputs.push_back(n.inputs[2]);
  for (const char* a : {"kernel_shape", "strides", "pads", "dilations", "group", "auto_pad"})
    if (n.has(a)) core.attributes[a] = n.attributes.at(a);
  std::string value = n.name + "_conv";
  core.outputs = {value};
  out.push_back(core);
  if (rows_of_k && has_bias) {
    Node bias;
    bias.name = n.name + "_bias";
    bias.op_type = "Add";
    bias.inputs = {value, n.inputs[2]};
    value = bias.name + "_out";
    bias.outputs = {value};
    out.push_back(bias);
  }
  auto activation = [&](const std::string& act, float alpha, float beta, const std::string& tag) {
    if (act.empty()) return;
    std::string in = value;
    value = n.name + "_" + tag;
    Node a;
    a.name = n.name + "_" + tag;
    a.inputs = {in};
    a.outputs = {value};
    if (act == "SiLU" || act == "Gelu" || act == "GeluTanh" || act == "Mish") {
      a.op_type = act;  // a model-local function (onnx_functions.h)
      a.domain = "npusim";
    } else if (act == "HardSwish" && g.opset >= 14) {
      a.op_type = act;
    } else if (act == "HardSwish") {
      Node s;
      s.name = a.name + "_gate";
      s.op_type = "HardSigmoid";
      s.set_float("alpha", 1.0f / 6.0f);
      s.set_float("beta", 0.5f);
      s.inputs = {in};
      s.outputs = {a.name + "_gate_out"};
      out.push_back(s);
      a.op_type = "Mul";
      a.inputs = {in, s.outputs[0]};
    } else if (act == "Clip") {
      a.op_type = "Clip";  // the writer turns the bounds into inputs from opset 11
      a.set_float("min", alpha);
      a.set_float("max", beta);
    } else {
      a.op_type = act;
      if (act == "HardSigmoid") {
        a.set_float("alpha", alpha);
        a.set_float("beta", beta);
      } else if (act == "LeakyRelu" || act == "Elu") {
        a.set_float("alpha", alpha);
      }
    }
    out.push_back(a);
  };
  activation(n.get_string("activation", ""), n.get_float("act_alpha", 0), n.get_float("act_beta", 0), "act");
  if (n.inputs.size() > 3 && !n.inputs[3].empty()) {
    Node add;
    add.name = n.name + "_add";
    add.op_type = "Add";
    add.inputs = {value, n.inputs[3]};
    value = add.name + "_out";
    add.outputs = {value};
    out.push_back(add);
    activation(n.get_string("post_activation", ""), n.get_float("post_alpha", 0), n.get_float("post_beta", 0), "post");
  }
  out.back().outputs = n.outputs;
  return out;
}

}  // namespace

std::vector<std::uint8_t> export_onnx(const Graph& g) {
  bool custom = false;
  for (const auto& n : g.nodes) custom |= !n.domain.empty();
  onnx::ModelProto m = make_model(g.name, g.opset, custom);
  auto* gp = m.mutable_graph();
  NodeWriter writer(g, gp);
  std::set<std::string> used;
  for (const auto& n : g.nodes) {
    writer.write(n);
    for (const auto& i : values_read(n)) used.insert(i);
  }
  for (const auto& in : g.inputs) write_value_info(g.tensor(in), gp->add_input(), false);
  for (const auto& out : g.outputs) write_value_info(g.tensor(out), gp->add_output(), false);
  for (const auto& [name, t] : g.tensors) {
    if (t.is_constant) {
      if (used.count(name) || g.is_graph_output(name)) write_constant(t, gp->add_initializer());
    } else if (t.shape_known && used.count(name) && !g.is_graph_output(name) &&
               std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end()) {
      write_value_info(t, gp->add_value_info(), false);
    }
  }
  writer.finish(m);
  return to_bytes(m);
}

Attribute graph_attribute(const std::string& name, const Graph& sub, bool with_inputs) {
  onnx::ModelProto m;
  const auto bytes = export_onnx(sub);
  if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw CompileError(sub.source + ": graph '" + sub.name + "' does not serialise as ONNX");
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::GRAPH);
  *a.mutable_g() = m.graph();
  if (!with_inputs) a.mutable_g()->clear_input();
  Attribute at;
  at.kind = Attribute::Kind::Opaque;
  a.SerializeToString(&at.onnx_bytes);
  return at;
}

void write_onnx(const Graph& g, const std::string& path) {
  auto bytes = export_onnx(g);
  std::ofstream f(path, std::ios::binary);
  if (!f) throw CompileError(path + ": cannot write the graph dump");
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

Subgraph export_subgraph(const Graph& g, const std::vector<int>& node_indices,
                         const std::string& name) {
  onnx::ModelProto m = make_model(name, g.opset, false);
  auto* gp = m.mutable_graph();
  std::set<std::string> produced, consumed;
  std::set<int> inside(node_indices.begin(), node_indices.end());
  for (int i : node_indices) {
    const Node& n = g.nodes[i];
    for (const auto& o : n.outputs) if (!o.empty()) produced.insert(o);
  }
  Subgraph s;
  NodeWriter writer(g, gp);
  for (int i : node_indices) {
    const Node& n = g.nodes[i];
    if (n.domain == "npusim" && (n.op_type == "FusedConv" || n.op_type == "FusedGemm")) {
      for (const auto& part : expand_fused(g, n)) writer.write(part);
    } else {
      writer.write(n);
    }
    // Values a Loop/If body captures from the outer scope are inputs of the step as well.
    for (const auto& in : values_read(n)) {
      if (produced.count(in) || consumed.count(in)) continue;
      consumed.insert(in);
      const Tensor& t = g.tensor(in);
      if (t.is_constant) {
        write_constant(t, gp->add_initializer());
      } else {
        s.inputs.push_back(in);
        // The IR's own dtype: the runtime casts what it holds (an NPU result in FP32) to it.
        write_value_info(t, gp->add_input(), false);
      }
    }
  }
  for (int i : node_indices) {
    for (const auto& o : g.nodes[i].outputs) {
      if (o.empty()) continue;
      bool used_outside = g.is_graph_output(o);
      for (std::size_t c = 0; c < g.nodes.size() && !used_outside; ++c) {
        if (inside.count(static_cast<int>(c))) continue;
        for (const auto& r : values_read(g.nodes[c])) used_outside |= r == o;
      }
      if (used_outside) {
        s.outputs.push_back(o);
        write_value_info(g.tensor(o), gp->add_output(), false);
      } else if (g.tensor(o).shape_known) {
        write_value_info(g.tensor(o), gp->add_value_info(), false);
      }
    }
  }
  writer.finish(m);
  s.onnx_model = to_bytes(m);
  return s;
}

std::vector<std::string> constant_outputs(const Graph& g) {
  std::vector<std::string> out;
  for (const auto& o : g.outputs)
    if (g.is_constant(o) && std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
  return out;
}

Subgraph export_constant_outputs(const Graph& g, const std::vector<std::string>& names,
                                 const std::string& name) {
  onnx::ModelProto m = make_model(name, g.opset, false);
  auto* gp = m.mutable_graph();
  Subgraph s;
  for (const auto& o : names) {
    const Tensor& t = g.tensor(o);
    auto* node = gp->add_node();
    node->set_name("Constant_" + o);
    node->set_op_type("Constant");
    node->add_output(o);
    auto* a = node->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    write_constant(t, a->mutable_t());
    write_value_info(t, gp->add_output(), false);
    s.outputs.push_back(o);
  }
  s.onnx_model = to_bytes(m);
  return s;
}

}  // namespace npu::compiler
