// ONNX -> graph IR, with libonnx's protobuf schema and shape inference.
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <fcntl.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <type_traits>
#include <utility>

#include "compiler/frontend/onnx_io.h"
#include "compiler/frontend/shape_inference.h"
#include "isa/fp16.h"
#include "isa/whole_file.h"

namespace npu::compiler {
namespace {

// Element i of a raw_data field (little-endian, as this host).
template <typename T>
T read_raw(const std::string& raw, std::size_t i) {
  T v;
  std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
std::int64_t as_int64(T v) { return static_cast<std::int64_t>(v); }

// `out` = convert(each of the n elements of `raw`), sized once: appending one at a time grew
// each weight to up to twice its size in memory during import. Same-type data is one copy.
template <typename Raw, typename Out, typename Convert>
void from_raw(const std::string& raw, std::int64_t n, std::vector<Out>& out, Convert convert) {
  out.assign(static_cast<std::size_t>(n), Out());
  if constexpr (std::is_same_v<Raw, Out>) {
    if (n > 0) std::memcpy(out.data(), raw.data(), out.size() * sizeof(Out));
  } else {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = convert(read_raw<Raw>(raw, i));
  }
}

// Fills `t` (shape, type, data) from an ONNX TensorProto.
void read_tensor_proto(const onnx::TensorProto& p, Tensor& t, const std::string& where) {
  t.elem_type = p.data_type();
  t.shape.assign(p.dims().begin(), p.dims().end());
  t.shape_known = true;
  t.is_constant = true;
  if (p.data_location() == onnx::TensorProto::EXTERNAL)
    throw CompileError(where + ": tensor '" + p.name() + "' uses external data, which is not supported");
  std::int64_t n = t.elements();
  const std::string& raw = p.raw_data();
  bool has_raw = p.has_raw_data();
  auto check_raw = [&](std::size_t elem_bytes) {
    if (raw.size() != static_cast<std::size_t>(n) * elem_bytes)
      throw CompileError(where + ": tensor '" + p.name() + "' has " + std::to_string(raw.size()) +
                         " data bytes, expected " + std::to_string(n * elem_bytes));
  };
  auto check_count = [&](int count) {
    if (count != n)
      throw CompileError(where + ": tensor '" + p.name() + "' has " + std::to_string(count) +
                         " values for shape " + shape_string(t.shape));
  };
  switch (p.data_type()) {
    case kFloat:
      if (has_raw) { check_raw(4); from_raw<float>(raw, n, t.floats, [](float v) { return v; }); }
      else { check_count(p.float_data_size()); t.floats.assign(p.float_data().begin(), p.float_data().end()); }
      break;
    case kDouble:
      if (has_raw) { check_raw(8); from_raw<double>(raw, n, t.floats, [](double v) { return static_cast<float>(v); }); }
      else { check_count(p.double_data_size()); for (double d : p.double_data()) t.floats.push_back(static_cast<float>(d)); }
      break;
    case kFloat16:
      if (has_raw) { check_raw(2); from_raw<std::uint16_t>(raw, n, t.floats, isa::half_to_float); }
      else { check_count(p.int32_data_size()); for (int v : p.int32_data()) t.floats.push_back(isa::half_to_float(static_cast<std::uint16_t>(v))); }
      break;
    case kInt64:
      if (has_raw) { check_raw(8); from_raw<std::int64_t>(raw, n, t.ints, as_int64<std::int64_t>); }
      else { check_count(p.int64_data_size()); t.ints.assign(p.int64_data().begin(), p.int64_data().end()); }
      break;
    case kInt32:
      if (has_raw) { check_raw(4); from_raw<std::int32_t>(raw, n, t.ints, as_int64<std::int32_t>); }
      else { check_count(p.int32_data_size()); t.ints.assign(p.int32_data().begin(), p.int32_data().end()); }
      break;
    case kInt8:
      if (has_raw) { check_raw(1); from_raw<std::int8_t>(raw, n, t.ints, as_int64<std::int8_t>); }
      else { check_count(p.int32_data_size()); t.ints.assign(p.int32_data().begin(), p.int32_data().end()); }
      break;
    case 5:  // int16
      if (has_raw) { check_raw(2); from_raw<std::int16_t>(raw, n, t.ints, as_int64<std::int16_t>); }
      else { check_count(p.int32_data_size()); t.ints.assign(p.int32_data().begin(), p.int32_data().end()); }
      break;
    case 4:  // uint16
      if (has_raw) { check_raw(2); from_raw<std::uint16_t>(raw, n, t.ints, as_int64<std::uint16_t>); }
      else { check_count(p.int32_data_size()); t.ints.assign(p.int32_data().begin(), p.int32_data().end()); }
      break;
    case 12:  // uint32
      if (has_raw) { check_raw(4); from_raw<std::uint32_t>(raw, n, t.ints, as_int64<std::uint32_t>); }
      else { check_count(p.uint64_data_size()); t.ints.assign(p.uint64_data().begin(), p.uint64_data().end()); }
      break;
    case 13:  // uint64 (held as int64: values above 2^63 wrap)
      if (has_raw) { check_raw(8); from_raw<std::uint64_t>(raw, n, t.ints, as_int64<std::uint64_t>); }
      else { check_count(p.uint64_data_size()); for (auto v : p.uint64_data()) t.ints.push_back(static_cast<std::int64_t>(v)); }
      break;
    case kUint8:
    case kBool:
      if (has_raw) { check_raw(1); from_raw<std::uint8_t>(raw, n, t.ints, as_int64<std::uint8_t>); }
      else { check_count(p.int32_data_size()); t.ints.assign(p.int32_data().begin(), p.int32_data().end()); }
      break;
    default:
      // Kept as an opaque constant: only CPU steps will see it, and only when it is float.
      t.is_constant = false;
      throw CompileError(where + ": tensor '" + p.name() + "' has unsupported element type " +
                         std::to_string(p.data_type()));
  }
}

void read_value_info(const onnx::ValueInfoProto& v, Graph& g) {
  if (!v.type().has_tensor_type()) return;
  Tensor& t = g.tensors[v.name()];
  t.name = v.name();
  if (t.is_constant) return;
  const auto& tt = v.type().tensor_type();
  if (tt.elem_type() != 0) t.elem_type = tt.elem_type();
  if (!tt.has_shape()) return;
  t.shape.clear();
  t.dim_names.clear();
  bool known = true;
  for (const auto& d : tt.shape().dim()) {
    if (d.has_dim_value() && d.dim_value() > 0) {
      t.shape.push_back(d.dim_value());
      t.dim_names.push_back("");
    } else if (d.has_dim_value() && d.dim_value() == 0) {
      t.shape.push_back(0);
      t.dim_names.push_back("");
    } else {
      t.shape.push_back(-1);
      t.dim_names.push_back(d.has_dim_param() ? d.dim_param() : "?");
      known = false;
    }
  }
  t.shape_known = known;
}

void read_attribute(const onnx::AttributeProto& a, Node& node, Graph& g,
                    const std::string& where) {
  Attribute at;
  switch (a.type()) {
    case onnx::AttributeProto::INT: at.kind = Attribute::Kind::Int; at.i = a.i(); break;
    case onnx::AttributeProto::FLOAT: at.kind = Attribute::Kind::Float; at.f = a.f(); break;
    case onnx::AttributeProto::STRING: at.kind = Attribute::Kind::String; at.s = a.s(); break;
    case onnx::AttributeProto::INTS: at.kind = Attribute::Kind::Ints; at.ints.assign(a.ints().begin(), a.ints().end()); break;
    case onnx::AttributeProto::FLOATS: at.kind = Attribute::Kind::Floats; at.floats.assign(a.floats().begin(), a.floats().end()); break;
    case onnx::AttributeProto::STRINGS: at.kind = Attribute::Kind::Strings; at.strings.assign(a.strings().begin(), a.strings().end()); break;
    case onnx::AttributeProto::TENSOR: {
      at.kind = Attribute::Kind::Opaque;
      Tensor t;
      try {
        read_tensor_proto(a.t(), t, where);
      } catch (const CompileError&) {
        break;  // a type we do not hold numerically: only re-export needs it
      }
      at.kind = Attribute::Kind::Tensor;
      at.tensor_shape = t.shape;
      at.tensor_elem_type = t.elem_type;
      at.floats = std::move(t.floats);
      at.ints = std::move(t.ints);
      break;
    }
    default: at.kind = Attribute::Kind::Opaque; break;
  }
  a.SerializeToString(&at.onnx_bytes);
  node.attributes[a.name()] = at;
}


void apply_input_shapes(onnx::ModelProto& m, const std::vector<std::string>& specs,
                        const std::string& origin) {
  for (const auto& spec : specs) {
    auto [name, dims] = parse_input_shape(spec, origin);
    bool found = false;
    for (auto& in : *m.mutable_graph()->mutable_input()) {
      if (in.name() != name) continue;
      found = true;
      auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
      if (shape->dim_size() != 0 && shape->dim_size() != static_cast<int>(dims.size()))
        throw CompileError(origin + ": input shape for '" + name + "' has " +
                           std::to_string(dims.size()) + " dims, the model's input has " +
                           std::to_string(shape->dim_size()));
      shape->clear_dim();
      for (auto d : dims) shape->add_dim()->set_dim_value(d);
    }
    if (!found) throw CompileError(origin + ": --input-shape names '" + name + "', which is not a model input");
  }
}

// A Constant node's value as the constant tensor `name`.
void read_constant_node(const onnx::NodeProto& np, Tensor& t, const std::string& name, const std::string& where) {
  t = Tensor{};
  for (const auto& a : np.attribute()) {
    if (a.name() == "value") {
      read_tensor_proto(a.t(), t, where);
    } else if (a.name() == "value_float") {
      t.elem_type = kFloat; t.shape = {}; t.floats = {a.f()};
    } else if (a.name() == "value_floats") {
      t.elem_type = kFloat; t.shape = {a.floats_size()}; t.floats.assign(a.floats().begin(), a.floats().end());
    } else if (a.name() == "value_int") {
      t.elem_type = kInt64; t.shape = {}; t.ints = {a.i()};
    } else if (a.name() == "value_ints") {
      t.elem_type = kInt64; t.shape = {a.ints_size()}; t.ints.assign(a.ints().begin(), a.ints().end());
    } else {
      throw CompileError(where + ": Constant attribute '" + a.name() + "' is not supported");
    }
  }
  t.name = name;
  t.is_constant = true;
  t.shape_known = true;
}

}  // namespace

std::pair<std::string, std::vector<std::int64_t>> parse_input_shape(const std::string& spec,
                                                                    const std::string& origin) {
  auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    throw CompileError(origin + ": input shape '" + spec + "' is not of the form name=1x3x224x224");
  std::vector<std::int64_t> dims;
  std::stringstream ss(spec.substr(eq + 1));
  std::string part;
  while (std::getline(ss, part, 'x')) {
    try {
      std::size_t used = 0;
      long long v = std::stoll(part, &used);
      if (used != part.size() || v <= 0) throw std::invalid_argument("bad");
      dims.push_back(v);
    } catch (const std::exception&) {
      throw CompileError(origin + ": input shape '" + spec + "' has a bad dimension '" + part + "'");
    }
  }
  return {spec.substr(0, eq), dims};
}

namespace {

// The names `gp` reads from enclosing graphs (not its own inputs, initializers or node outputs)
// renamed as `renamed` says, in the graphs inside it too.
void rename_outer_references(onnx::GraphProto& gp, const std::map<std::string, std::string>& renamed) {
  std::set<std::string> local;
  for (const auto& in : gp.input()) local.insert(in.name());
  for (const auto& init : gp.initializer()) local.insert(init.name());
  for (const auto& n : gp.node())
    for (const auto& o : n.output()) local.insert(o);
  std::map<std::string, std::string> outer;
  for (const auto& [from, to] : renamed)
    if (!local.count(from) && from != to) outer[from] = to;
  if (outer.empty()) return;
  auto rename = [&](std::string* name) {
    if (const auto found = outer.find(*name); found != outer.end()) *name = found->second;
  };
  for (auto& n : *gp.mutable_node()) {
    for (auto& in : *n.mutable_input()) rename(&in);
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) rename_outer_references(*a.mutable_g(), outer);
      for (auto& nested : *a.mutable_graphs()) rename_outer_references(nested, outer);
    }
  }
  for (auto& o : *gp.mutable_output()) rename(o.mutable_name());
}

}  // namespace

InlinedGraph import_graph_attribute(Graph& g, const Node& owner, const std::string& attribute,
                                    const std::vector<std::string>& bound_inputs, const std::string& prefix) {
  const std::string where = g.source + ": node '" + owner.name + "' (" + owner.op_type + ") " + attribute;
  const auto found = owner.attributes.find(attribute);
  onnx::AttributeProto a;
  if (found == owner.attributes.end() || found->second.onnx_bytes.empty() ||
      !a.ParseFromString(found->second.onnx_bytes) || !a.has_g())
    throw CompileError(where + ": the attribute holds no graph");
  const onnx::GraphProto& gp = a.g();
  if (gp.input_size() != static_cast<int>(bound_inputs.size()))
    throw CompileError(where + ": has " + std::to_string(gp.input_size()) + " inputs, " +
                       std::to_string(bound_inputs.size()) + " expected");
  // The subgraph's own values keep their names unless the outer graph has them already (a second
  // unrolled iteration always does); its references to outer values (ONNX's outer scope) stay.
  std::map<std::string, std::string> renamed;
  for (int i = 0; i < gp.input_size(); ++i) renamed[gp.input(i).name()] = bound_inputs[static_cast<std::size_t>(i)];
  auto define = [&](const std::string& name) {
    std::string fresh = name;
    for (int k = 0; g.tensors.count(fresh); ++k)
      fresh = prefix + "/" + name + (k ? "_" + std::to_string(k) : std::string());
    renamed[name] = fresh;
    g.tensors[fresh].name = fresh;
    return fresh;
  };
  auto refer = [&](const std::string& name) {
    const auto r = renamed.find(name);
    return r == renamed.end() ? name : r->second;
  };
  InlinedGraph inlined;
  for (const auto& init : gp.initializer()) {
    const std::string name = define(init.name());
    Tensor& t = g.tensors[name];
    read_tensor_proto(init, t, where);
    t.name = name;
    t.is_constant = true;
    t.shape_known = true;
  }
  int index = 0;
  for (const auto& np : gp.node()) {
    const std::string name = prefix + "/" + (np.name().empty() ? np.op_type() + "_" + std::to_string(index) : np.name());
    ++index;
    const std::string node_where = where + ": node '" + name + "' (" + np.op_type() + ")";
    if (np.op_type() == "Constant" && (np.domain().empty() || np.domain() == "ai.onnx")) {
      if (np.output_size() != 1) throw CompileError(node_where + ": Constant needs one output");
      const std::string out = define(np.output(0));
      read_constant_node(np, g.tensors[out], out, node_where);
      continue;
    }
    Node node;
    node.name = name;
    node.op_type = np.op_type();
    node.domain = np.domain() == "ai.onnx" ? "" : np.domain();
    node.fused_nodes = {owner.name};
    for (const auto& in : np.input()) {
      const std::string value = in.empty() ? in : refer(in);
      if (!value.empty() && !g.tensors.count(value))
        throw CompileError(node_where + ": input '" + in + "' is not produced by any node, input or initializer");
      node.inputs.push_back(value);
    }
    for (const auto& out : np.output()) node.outputs.push_back(out.empty() ? out : define(out));
    for (const auto& at : np.attribute()) {
      if (!at.has_g() && at.graphs_size() == 0) {
        read_attribute(at, node, g, node_where);
        continue;
      }
      // A graph in this node (an If's branch in a Loop body) reads this subgraph's values by
      // name: the names they have in `g` now.
      onnx::AttributeProto renamed_at = at;
      if (renamed_at.has_g()) rename_outer_references(*renamed_at.mutable_g(), renamed);
      for (auto& nested : *renamed_at.mutable_graphs()) rename_outer_references(nested, renamed);
      read_attribute(renamed_at, node, g, node_where);
    }
    inlined.nodes.push_back(std::move(node));
  }
  for (const auto& out : gp.output()) {
    const std::string value = refer(out.name());
    if (!g.tensors.count(value))
      throw CompileError(where + ": output '" + out.name() + "' is not produced by any node, input or initializer");
    inlined.outputs.push_back(value);
  }
  return inlined;
}

void rename_to_outputs(const Node& owner, const std::vector<std::string>& values, const std::vector<std::string>& outputs,
                       const std::string& tag, std::vector<Node>& nodes) {
  for (std::size_t i = 0; i < outputs.size() && i < values.size(); ++i) {
    if (outputs[i].empty()) continue;
    Node id;
    id.name = owner.name + "/" + tag + "_" + std::to_string(i);
    id.op_type = "Identity";
    id.inputs = {values[i]};
    id.outputs = {outputs[i]};
    id.fused_nodes = {owner.name};
    nodes.push_back(std::move(id));
  }
}

std::int64_t graph_attribute_nodes(const Node& owner, const std::string& attribute) {
  const auto found = owner.attributes.find(attribute);
  onnx::AttributeProto a;
  if (found == owner.attributes.end() || !a.ParseFromString(found->second.onnx_bytes) || !a.has_g()) return 0;
  return a.g().node_size();
}

bool loop_body_condition_stays_true(const Node& loop) {
  const auto found = loop.attributes.find("body");
  onnx::AttributeProto a;
  if (found == loop.attributes.end() || !a.ParseFromString(found->second.onnx_bytes) || !a.has_g()) return false;
  const onnx::GraphProto& body = a.g();
  if (body.input_size() < 2 || body.output_size() < 1) return false;
  const std::string& cond_out = body.output(0).name();
  if (cond_out == body.input(1).name()) return true;  // passed through from the loop's own (true) condition
  auto true_tensor = [](const onnx::TensorProto& p) {
    Tensor t;
    try {
      read_tensor_proto(p, t, "");
    } catch (const CompileError&) {
      return false;
    }
    return t.ints.size() == 1 && t.ints[0] != 0;
  };
  for (const auto& init : body.initializer())
    if (init.name() == cond_out) return true_tensor(init);
  for (const auto& np : body.node()) {
    if (np.output_size() != 1 || np.output(0) != cond_out) continue;
    if (np.op_type() == "Identity" && np.input_size() == 1 && np.input(0) == body.input(1).name()) return true;
    if (np.op_type() != "Constant") return false;
    for (const auto& at : np.attribute())
      if (at.name() == "value") return true_tensor(at.t());
    return false;
  }
  return false;
}

namespace {

// ONNX's shape rule for STFT gives frame_length bins where the default onesided = 1 gives
// frame_length / 2 + 1 (ONNX Runtime's kernel, and the spec): the value_info it writes for
// an STFT's output, and for everything computed from it, is dropped for our own inference.
void forget_shapes_after_stft(onnx::GraphProto& graph) {
  std::set<std::string> wrong;
  for (const auto& n : graph.node())
    if (n.op_type() == "STFT" && (n.domain().empty() || n.domain() == "ai.onnx"))
      for (const auto& o : n.output()) wrong.insert(o);
  if (wrong.empty()) return;
  for (const auto& n : graph.node())  // nodes are in topological order in a valid model
    for (const auto& i : n.input())
      if (wrong.count(i)) {
        for (const auto& o : n.output()) wrong.insert(o);
        break;
      }
  auto* infos = graph.mutable_value_info();
  infos->erase(std::remove_if(infos->begin(), infos->end(), [&](const onnx::ValueInfoProto& v) { return wrong.count(v.name()) > 0; }),
               infos->end());
}

void parse_model(const std::vector<std::uint8_t>& bytes, const std::string& origin, onnx::ModelProto& m) {
  if (bytes.empty() || !m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) ||
      !m.has_graph() || m.ir_version() <= 0)
    throw CompileError(origin + ": not a valid ONNX model (truncated file or not ONNX protobuf)");
}

// The graph IR of a parsed model. Each initializer's data is freed once read into its tensor,
// so the weights are held twice at most one tensor at a time.
Graph import_model_proto(onnx::ModelProto& m, const std::string& origin, const std::vector<std::string>& input_shapes,
                         std::uint64_t max_tensor_bytes) {
  Graph g;
  g.source = origin;
  g.name = m.graph().name();
  g.opset = 0;
  for (const auto& op : m.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") g.opset = op.version();
  if (g.opset == 0) g.opset = 1;
  if (g.opset > 18)
    throw CompileError(origin + ": opset " + std::to_string(g.opset) + " is newer than this importer knows (up to 18)");
  apply_input_shapes(m, input_shapes, origin);
  try {
    onnx::shape_inference::InferShapes(m);
  } catch (const std::exception&) {
    // Partial inference is fine: our own pass fills the op set we compile.
  }
  forget_shapes_after_stft(*m.mutable_graph());
  std::set<std::string> initializer_names;
  for (auto& init : *m.mutable_graph()->mutable_initializer()) {
    Tensor& t = g.tensors[init.name()];
    t.name = init.name();
    read_tensor_proto(init, t, origin);
    std::string().swap(*init.mutable_raw_data());  // clear() would keep the bytes allocated
    initializer_names.insert(init.name());
  }
  const auto& gp = m.graph();
  for (const auto& v : gp.input()) {
    if (initializer_names.count(v.name())) continue;
    read_value_info(v, g);
    g.inputs.push_back(v.name());
  }
  for (const auto& v : gp.value_info()) read_value_info(v, g);
  for (const auto& v : gp.output()) {
    read_value_info(v, g);
    g.outputs.push_back(v.name());
  }
  // ONNX graphs are single-assignment: a value produced twice would leave the passes with two
  // ideas of its shape.
  std::map<std::string, std::string> producer;
  for (const auto& init : initializer_names) producer[init] = "an initializer";
  for (const auto& in : g.inputs) producer[in] = "a graph input";
  auto claim = [&](const std::string& value, const std::string& node, const std::string& where) {
    if (value.empty()) return;
    const auto [it, fresh] = producer.emplace(value, "node '" + node + "'");
    if (!fresh) throw CompileError(where + ": output '" + value + "' is already produced by " + it->second);
  };
  int index = 0;
  for (const auto& np : gp.node()) {
    std::string name = np.name().empty() ? np.op_type() + "_" + std::to_string(index) : np.name();
    ++index;
    std::string where = origin + ": node '" + name + "' (" + np.op_type() + ")";
    for (const auto& o : np.output()) claim(o, name, where);
    if (np.op_type() == "Constant" && (np.domain().empty() || np.domain() == "ai.onnx")) {
      if (np.output_size() != 1) throw CompileError(where + ": Constant needs one output");
      read_constant_node(np, g.tensors[np.output(0)], np.output(0), where);
      continue;
    }
    Node node;
    node.name = name;
    node.op_type = np.op_type();
    node.domain = np.domain() == "ai.onnx" ? "" : np.domain();
    node.fused_nodes = {name};
    node.inputs.assign(np.input().begin(), np.input().end());
    node.outputs.assign(np.output().begin(), np.output().end());
    for (const auto& a : np.attribute()) read_attribute(a, node, g, where);
    for (const auto& o : node.outputs)
      if (!o.empty() && !g.tensors.count(o)) g.tensors[o].name = o;
    for (const auto& in : node.inputs)
      if (!in.empty() && !g.tensors.count(in))
        throw CompileError(where + ": input '" + in + "' is not produced by any node, input or initializer");
    g.nodes.push_back(std::move(node));
  }
  // ONNX's own converter and checker assume this; a dangling output would crash the converter.
  for (const auto& out : g.outputs)
    if (!producer.count(out))
      throw CompileError(origin + ": graph output '" + out + "' is not produced by any node, input or initializer");
  // Dynamic graph inputs must be fixed before anything else can be planned.
  for (const auto& in : g.inputs) {
    const Tensor& t = g.tensor(in);
    if (t.shape.empty() && t.dim_names.empty() && !t.shape_known)
      throw CompileError(origin + ": input '" + in + "' has no shape; fix it with --input-shape " + in + "=...");
    for (std::size_t d = 0; d < t.shape.size(); ++d)
      if (t.shape[d] < 0)
        throw CompileError(origin + ": input '" + in + "' dim " + std::to_string(d) + " ('" +
                           t.dim_names[d] + "') is dynamic; fix it with --input-shape " + in + "=" +
                           "<dims separated by x>");
  }
  check_tensor_sizes(g, max_tensor_bytes);
  g.sort_topologically();
  infer_shapes(g);
  check_tensor_sizes(g, max_tensor_bytes);
  return g;
}

}  // namespace

Graph import_onnx_bytes(const std::vector<std::uint8_t>& bytes, const std::string& origin,
                        const std::vector<std::string>& input_shapes, std::uint64_t max_tensor_bytes) {
  onnx::ModelProto m;
  parse_model(bytes, origin, m);
  return import_model_proto(m, origin, input_shapes, max_tensor_bytes);
}

Graph import_onnx_bytes(std::vector<std::uint8_t>&& bytes, const std::string& origin,
                        const std::vector<std::string>& input_shapes, std::uint64_t max_tensor_bytes) {
  onnx::ModelProto m;
  parse_model(bytes, origin, m);
  std::vector<std::uint8_t>().swap(bytes);  // the file's bytes, parsed: not needed beside the model (100 MB for ResNet-50)
  return import_model_proto(m, origin, input_shapes, max_tensor_bytes);
}

Tensor read_tensor_pb(const std::string& path) {
  const auto bytes = isa::read_whole_file(path);
  if (!bytes) throw CompileError(path + ": cannot open file: " + std::strerror(errno));
  onnx::TensorProto p;
  if (!p.ParseFromArray(bytes->data(), static_cast<int>(bytes->size()))) throw CompileError(path + ": not a serialized ONNX TensorProto");
  Tensor t;
  read_tensor_proto(p, t, path);
  t.name = p.name();
  return t;
}

// A regular file is parsed as it is read, a megabyte at a time: the whole file in one buffer
// (ViT-B/16: 346 MB, zero-filled, then copied into the parsed model's strings) is never held
// beside the parsed model, which is the same message either way. Anything else (a pipe) is read
// whole first, as before.
Graph import_onnx(const std::string& path, const std::vector<std::string>& input_shapes,
                  std::uint64_t max_tensor_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    google::protobuf::io::FileInputStream file(fd, 1 << 20);
    file.SetCloseOnDelete(true);
    onnx::ModelProto m;
    const bool parsed = m.ParseFromZeroCopyStream(&file);
    if (file.GetErrno() != 0) {  // a read error, as read_whole_file reports one
      errno = file.GetErrno();
      throw CompileError(path + ": cannot open file: " + std::strerror(errno));
    }
    if (!parsed || !m.has_graph() || m.ir_version() <= 0)
      throw CompileError(path + ": not a valid ONNX model (truncated file or not ONNX protobuf)");
    return import_model_proto(m, path, input_shapes, max_tensor_bytes);
  }
  if (fd >= 0) ::close(fd);
  const auto bytes = isa::read_whole_file(path);
  if (!bytes) throw CompileError(path + ": cannot open file: " + std::strerror(errno));
  return import_onnx_bytes(std::move(*bytes), path, input_shapes, max_tensor_bytes);
}

}  // namespace npu::compiler
