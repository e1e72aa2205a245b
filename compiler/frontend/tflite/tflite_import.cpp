#include "compiler/frontend/tflite/tflite_import.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "compiler/frontend/onnx_io.h"
#include "compiler/frontend/opset_upgrade.h"
#include "compiler/frontend/shape_inference.h"
#include "compiler/frontend/tflite/tflite_ops.h"
#include "compiler/frontend/tflite/tflite_tensors.h"

namespace npu::compiler {
namespace {

using tflite_import::Builder;
using tflite_import::TensorInfo;

// Subgraphs nest this deep at most (an IF in a WHILE body in ...); deeper is a subgraph that calls
// itself. Each IF translates both branches, so nesting multiplies the work: the operators of all
// translated subgraphs together are bounded too.
constexpr int kMaxNesting = 8;
constexpr std::size_t kMaxSubgraphOperators = 100000;

std::string op_name(int code, const std::string& custom) {
  if (code == tflite::BuiltinOperator_CUSTOM) return "CUSTOM '" + custom + "'";
  if (code < tflite::BuiltinOperator_MIN || code > tflite::BuiltinOperator_MAX) return "builtin " + std::to_string(code);
  const char* name = tflite::EnumNameBuiltinOperator(static_cast<tflite::BuiltinOperator>(code));
  return name && *name ? name : "builtin " + std::to_string(code);
}

// A 16x8 model's int16 graph input or output (int16 activations, as the AI Edge quantiser and
// TFLite's converter write them): Quantize/DequantizeLinear of ONNX Runtime's domain, which takes
// 16-bit integers at our opset, so ONNX models with int16 sides and these are one graph form
// (backend/integer_boundary.h runs both on the NPU).
bool int16_activation(const TensorInfo& info) { return !info.constant && !info.scales.empty() && info.elem_type == kInt16; }
std::string requantisation_domain(const TensorInfo& info) { return info.elem_type == kInt16 ? "com.microsoft" : ""; }

std::vector<int> indices(const flatbuffers::Vector<std::int32_t>* v) {
  return v ? std::vector<int>(v->begin(), v->end()) : std::vector<int>{};
}

struct Pending {
  const tflite::Operator* op;
  int code;
  std::string custom;
  int index;
};

// One file being imported: its subgraphs decoded once each, translated on demand.
class FileImport {
 public:
  FileImport(const std::vector<std::uint8_t>& bytes, const tflite::Model& model, const std::string& origin,
             std::uint64_t max_tensor_bytes, std::int64_t dynamic_size)
      : bytes_(bytes), model_(model), origin_(origin), max_tensor_bytes_(max_tensor_bytes), dynamic_size_(dynamic_size) {
    subgraphs_.translate = [this](int index, const std::vector<tflite_import::BoundInput>& inputs, const std::string& where) {
      return translate_subgraph(index, inputs, where);
    };
    subgraphs_.tensors = [this](int index, const std::string& where) -> const std::vector<TensorInfo>& {
      return decoded(index, where).tensors;
    };
  }

  struct Decoded {
    const tflite::SubGraph* subgraph = nullptr;
    std::vector<TensorInfo> tensors;  // DEQUANTIZE/DENSIFY of constants folded
    std::vector<Pending> ops;         // code -1: folded
  };

  Decoded& decoded(int index, const std::string& where);
  std::string where(int index) const { return index == 0 ? origin_ : origin_ + ": subgraph " + std::to_string(index); }
  void check_index(const Decoded& d, int t, const std::string& where) const {
    if (t < -1 || t >= static_cast<int>(d.tensors.size()))
      throw CompileError(where + ": tensor index " + std::to_string(t) + " is out of range (" + std::to_string(d.tensors.size()) +
                         " tensors)");
  }
  // Every operator of subgraph `index` through `b`.
  void translate_operators(int index, Builder& b, tflite_import::Variables& variables);
  // What CALL_ONCE's init subgraph assigns each resource variable (constants only): the value of
  // state/<name> before the first call, where LiteRT starts.
  std::map<std::string, TensorInfo> initial_state();
  Graph translate_subgraph(int index, const std::vector<tflite_import::BoundInput>& inputs, const std::string& where);

  const std::vector<std::uint8_t>& bytes_;
  const tflite::Model& model_;
  std::string origin_;
  std::uint64_t max_tensor_bytes_;
  std::int64_t dynamic_size_;
  std::map<int, Decoded> decoded_;
  tflite_import::Subgraphs subgraphs_;
  int depth_ = 0;
  std::size_t subgraph_operators_ = 0;  // operators translated for IF and WHILE subgraphs
};

FileImport::Decoded& FileImport::decoded(int index, const std::string& where_from) {
  if (const auto found = decoded_.find(index); found != decoded_.end()) return found->second;
  if (index < 0 || static_cast<flatbuffers::uoffset_t>(index) >= model_.subgraphs()->size())
    throw CompileError(where_from + ": subgraph " + std::to_string(index) + " does not exist (the model has " +
                       std::to_string(model_.subgraphs()->size()) + ")");
  Decoded d;
  d.subgraph = model_.subgraphs()->Get(static_cast<flatbuffers::uoffset_t>(index));
  const std::string origin = where(index);
  d.tensors = tflite_import::read_tensors(bytes_, model_, *d.subgraph, origin, max_tensor_bytes_, dynamic_size_);
  const auto* codes = model_.operator_codes();
  if (d.subgraph->operators())
    for (flatbuffers::uoffset_t i = 0; i < d.subgraph->operators()->size(); ++i) {
      const tflite::Operator* op = d.subgraph->operators()->Get(i);
      if (!codes || op->opcode_index() >= codes->size())
        throw CompileError(origin + ": operator " + std::to_string(i) + ": opcode_index " + std::to_string(op->opcode_index()) +
                           " has no operator code");
      const tflite::OperatorCode* code = codes->Get(op->opcode_index());
      d.ops.push_back({op, tflite_import::builtin_code(*code), code->custom_code() ? code->custom_code()->str() : "",
                       static_cast<int>(i)});
    }
  // Weights stored FP16, int8 or sparse behind DEQUANTIZE/DENSIFY are dense float constants from
  // here on: the op that reads them sees a constant it can lay out.
  auto& tensors = d.tensors;
  for (auto& p : d.ops) {
    if (p.code != tflite::BuiltinOperator_DEQUANTIZE && p.code != tflite::BuiltinOperator_DENSIFY) continue;
    const auto in = indices(p.op->inputs()), out = indices(p.op->outputs());
    if (in.size() != 1 || out.size() != 1) continue;
    check_index(d, in[0], origin);
    check_index(d, out[0], origin);
    if (in[0] < 0 || out[0] < 0 || !tensors[static_cast<std::size_t>(in[0])].constant) continue;
    TensorInfo folded = tensors[static_cast<std::size_t>(out[0])];
    folded.constant = true;
    folded.floats = tflite_import::dequantized(tensors[static_cast<std::size_t>(in[0])]);
    folded.ints.clear();
    folded.scales.clear();
    folded.zero_points.clear();
    folded.elem_type = kFloat;
    std::int64_t elements = 1;
    for (auto dim : folded.shape) elements *= dim;
    if (static_cast<std::size_t>(elements) != folded.floats.size())
      throw CompileError(origin + ": operator " + std::to_string(p.index) + ": its output " + shape_string(folded.shape) +
                         " does not hold its constant input's " + std::to_string(folded.floats.size()) + " values");
    tensors[static_cast<std::size_t>(out[0])] = std::move(folded);
    p.code = -1;  // done
  }
  return decoded_.emplace(index, std::move(d)).first->second;
}

std::map<std::string, TensorInfo> FileImport::initial_state() {
  std::map<std::string, TensorInfo> state;
  const int subgraphs = model_.subgraphs() ? static_cast<int>(model_.subgraphs()->size()) : 0;
  for (const auto& p : decoded(0, origin_).ops) {
    const auto* once = p.code == tflite::BuiltinOperator_CALL_ONCE ? p.op->builtin_options_as_CallOnceOptions() : nullptr;
    if (!once || once->init_subgraph_index() <= 0 || once->init_subgraph_index() >= subgraphs) continue;
    const Decoded& init = decoded(once->init_subgraph_index(), origin_);
    std::map<int, std::string> handles;
    for (const auto& q : init.ops) {
      const auto ins = indices(q.op->inputs()), outs = indices(q.op->outputs());
      auto tensor = [&](int t) -> const TensorInfo* {
        return t >= 0 && t < static_cast<int>(init.tensors.size()) ? &init.tensors[static_cast<std::size_t>(t)] : nullptr;
      };
      if (q.code == tflite::BuiltinOperator_VAR_HANDLE && !outs.empty() && tensor(outs[0])) {
        const auto* o = q.op->builtin_options_as_VarHandleOptions();
        std::string name = o && o->shared_name() ? o->shared_name()->str() : "";
        handles[outs[0]] = name.empty() ? tensor(outs[0])->name : name;
      } else if (q.code == tflite::BuiltinOperator_ASSIGN_VARIABLE && ins.size() == 2 && handles.count(ins[0]) &&
                 tensor(ins[1]) && tensor(ins[1])->constant) {
        state[handles[ins[0]]] = *tensor(ins[1]);
      }
    }
  }
  return state;
}

void FileImport::translate_operators(int index, Builder& b, tflite_import::Variables& variables) {
  const Decoded& d = decoded(index, origin_);
  const std::string origin = where(index);
  for (const auto& p : d.ops) {
    if (p.code < 0) continue;
    tflite_import::Operator op{*p.op, model_, bytes_, p.code, p.custom, indices(p.op->inputs()), indices(p.op->outputs()), "",
                               index, &subgraphs_};
    const std::string first_output = !op.outputs.empty() && op.outputs[0] >= 0 && op.outputs[0] < static_cast<int>(d.tensors.size())
                                         ? d.tensors[static_cast<std::size_t>(op.outputs[0])].name
                                         : "";
    op.where = origin + ": operator " + std::to_string(p.index) + " (" + op_name(p.code, p.custom) +
               (first_output.empty() ? "" : ", output '" + first_output + "'") + ")";
    for (int t : op.inputs) check_index(d, t, op.where);
    for (int t : op.outputs) check_index(d, t, op.where);
    b.set_origin(first_output.empty() ? op_name(p.code, p.custom) + "_" + std::to_string(p.index) : first_output);
    // LSTM/RNN state tensors start at zero each call; the translations read them as constants.
    try {
      tflite_import::translate_operator(b, op, variables);
    } catch (const CompileError& e) {  // helpers that do not know the operator: name it here
      if (std::string(e.what()).rfind(origin_, 0) == 0) throw;
      throw CompileError(op.where + ": " + e.what());
    } catch (const std::out_of_range&) {  // a shape with fewer axes than the op reads
      throw CompileError(op.where + ": an input or output has fewer dimensions than the operator needs");
    }
  }
}

Graph FileImport::translate_subgraph(int index, const std::vector<tflite_import::BoundInput>& bound, const std::string& where_from) {
  if (depth_ >= kMaxNesting)
    throw CompileError(where_from + ": subgraphs nest more than " + std::to_string(kMaxNesting) +
                       " deep (a subgraph that calls itself?)");
  const Decoded& d = decoded(index, where_from);
  const std::string origin = where(index);
  subgraph_operators_ += d.ops.size();
  if (subgraph_operators_ > kMaxSubgraphOperators)
    throw CompileError(where_from + ": IF and WHILE subgraphs expand to over " + std::to_string(kMaxSubgraphOperators) +
                       " operators");
  const auto inputs = indices(d.subgraph->inputs()), outputs = indices(d.subgraph->outputs());
  if (!bound.empty() && bound.size() != inputs.size())
    throw CompileError(where_from + ": subgraph " + std::to_string(index) + " has " + std::to_string(inputs.size()) +
                       " inputs, the operator passes " + std::to_string(bound.size()));
  for (int t : inputs) {
    check_index(d, t, origin + ": input");
    if (t < 0) throw CompileError(origin + ": an input is absent");
  }
  // A constant the caller passes is the subgraph's own constant: the ops that need one see it.
  std::vector<TensorInfo> tensors = d.tensors;
  for (std::size_t k = 0; k < bound.size(); ++k) {
    if (!bound[k].constant) continue;
    TensorInfo& t = tensors[static_cast<std::size_t>(inputs[k])];
    if (bound[k].constant->shape != t.shape)
      throw CompileError(where_from + ": argument " + std::to_string(k) + " of shape " + shape_string(bound[k].constant->shape) +
                         " is input '" + t.name + "' of shape " + shape_string(t.shape) + " in subgraph " + std::to_string(index));
    const std::string name = t.name;
    t = *bound[k].constant;
    t.name = name;
  }
  Graph g;
  g.source = origin_;
  g.name = d.subgraph->name() ? d.subgraph->name()->str() : "subgraph_" + std::to_string(index);
  g.opset = kCanonicalOpset;
  Builder b(g, std::move(tensors));
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!bound.empty() && bound[k].constant) continue;
    const TensorInfo& info = b.info(inputs[k]);
    if (info.elem_type < 0) throw CompileError(origin + ": input '" + info.name + "' is a resource handle");
    if (!bound.empty() && g.tensors.count(bound[k].name)) {  // the same value passed again
      b.define_raw(inputs[k], bound[k].name);
      continue;
    }
    const std::string name = b.fresh_name(bound.empty() ? info.name : bound[k].name);
    Tensor& in = g.tensors[name];
    in.name = name;
    in.elem_type = !info.scales.empty() && !info.constant ? kFloat : info.elem_type;  // the caller passes float values
    in.shape = info.shape;
    in.shape_known = true;
    g.inputs.push_back(name);
    b.define_raw(inputs[k], name);
  }
  tflite_import::Variables variables;
  ++depth_;
  try {
    translate_operators(index, b, variables);
  } catch (...) {
    --depth_;
    throw;
  }
  --depth_;
  if (!variables.read_first.empty() || !variables.assigned.empty())
    throw CompileError(origin + ": resource variables inside an IF or WHILE subgraph are not supported");
  for (int t : outputs) {
    check_index(d, t, origin + ": output");
    if (t < 0 || (!b.defined(t) && !b.info(t).constant))
      throw CompileError(origin + ": an output is not written by any operator");
    g.outputs.push_back(b.value(t));
  }
  g.sort_topologically();
  return g;
}

// --input-shape for a TFLite file: each named input's dims, checked against its shape_signature
// (-1 where the file leaves a dim dynamic). TFLite does not say which -1 dims of other tensors
// are the same, so every dynamic dim takes one size: the size the specs give it.
std::int64_t dynamic_size(const tflite::SubGraph& sg, const std::vector<std::string>& specs, const std::string& origin) {
  std::int64_t size = -1;
  for (const auto& spec : specs) {
    const auto [name, dims] = parse_input_shape(spec, origin);
    const tflite::Tensor* input = nullptr;
    std::string names;
    for (int t : indices(sg.inputs())) {
      if (t < 0 || !sg.tensors() || static_cast<flatbuffers::uoffset_t>(t) >= sg.tensors()->size()) continue;
      const tflite::Tensor* candidate = sg.tensors()->Get(static_cast<flatbuffers::uoffset_t>(t));
      const std::string n = candidate->name() ? candidate->name()->str() : "";
      names += (names.empty() ? "" : ", ") + n;
      if (n == name) input = candidate;
    }
    const std::string where = origin + ": --input-shape '" + spec + "'";
    if (!input) throw CompileError(where + ": the model has no input '" + name + "' (its inputs: " + names + ")");
    const auto shape = indices(input->shape());
    const auto signature = input->shape_signature() && input->shape_signature()->size() == shape.size()
                               ? indices(input->shape_signature())
                               : shape;
    if (dims.size() != shape.size())
      throw CompileError(where + ": input '" + name + "' has rank " + std::to_string(shape.size()) + " (shape_signature " +
                         shape_string({signature.begin(), signature.end()}) + "), not " + std::to_string(dims.size()));
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (signature[i] >= 0) {
        if (dims[i] != signature[i])
          throw CompileError(where + ": dim " + std::to_string(i) + " of input '" + name + "' is fixed at " +
                             std::to_string(signature[i]) + " in the file (shape_signature " +
                             shape_string({signature.begin(), signature.end()}) + "), not " + std::to_string(dims[i]));
        continue;
      }
      if (size >= 0 && dims[i] != size)
        throw CompileError(where + ": dynamic dim " + std::to_string(i) + " of input '" + name + "' is given " +
                           std::to_string(dims[i]) + ", another dynamic dim " + std::to_string(size) +
                           "; a TFLite file does not say which dynamic dims are the same, so npusim gives them all one size");
      size = dims[i];
    }
  }
  return size;
}

}  // namespace

Graph import_tflite_bytes(const std::vector<std::uint8_t>& bytes, const std::string& origin,
                          const std::vector<std::string>& input_shapes, std::uint64_t max_tensor_bytes) {
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), flatbuffers::Verifier::Options{});
  if (bytes.size() < 8 || !tflite::VerifyModelBuffer(verifier))
    throw CompileError(origin + ": not a valid TFLite model (the flatbuffer fails verification: truncated or corrupt)");
  const tflite::Model* model = tflite::GetModel(bytes.data());
  if (model->version() != 3)
    throw CompileError(origin + ": TFLite schema version " + std::to_string(model->version()) + "; npusim reads version 3");
  if (!model->subgraphs() || model->subgraphs()->size() == 0) throw CompileError(origin + ": the model has no subgraph");
  const tflite::SubGraph& subgraph = *model->subgraphs()->Get(0);
  FileImport file(bytes, *model, origin, max_tensor_bytes, dynamic_size(subgraph, input_shapes, origin));
  const auto& decoded = file.decoded(0, origin);
  const std::vector<TensorInfo>& tensors = decoded.tensors;
  auto check_index = [&](int t, const std::string& where) { file.check_index(decoded, t, where); };

  Graph g;
  g.source = origin;
  g.name = subgraph.name() ? subgraph.name()->str() : "tflite";
  g.opset = kCanonicalOpset;
  Builder b(g, tensors);
  const auto graph_inputs = indices(subgraph.inputs());
  const auto graph_outputs = indices(subgraph.outputs());
  for (int t : graph_inputs) check_index(t, origin + ": subgraph input");
  for (int t : graph_outputs) check_index(t, origin + ": subgraph output");
  for (int t : graph_outputs)
    if (t >= 0) b.fresh_name(b.info(t).name);  // reserved for the graph output itself
  for (int t : graph_inputs) {
    if (t < 0) continue;
    const TensorInfo& info = b.info(t);
    if (info.elem_type < 0) throw CompileError(origin + ": input '" + info.name + "' is a resource handle");
    const std::string name = b.fresh_name(info.name);
    Tensor& in = g.tensors[name];
    in.name = name;
    in.elem_type = info.elem_type;
    in.shape = info.shape;
    in.shape_known = true;
    g.inputs.push_back(name);
    if (info.quantized_activation() || int16_activation(info)) {
      const std::string dq = b.fresh_name(info.name + "/dq");
      b.add("DequantizeLinear",
            {name, b.float_constant(info.name + "/scale", {}, {info.scales.front()}),
             b.int_constant(info.name + "/zero_point", {}, {info.zero_points.empty() ? 0 : info.zero_points.front()}, info.elem_type)},
            {dq}, dq).domain = requantisation_domain(info);
      g.tensors[dq].shape = info.shape;
      g.tensors[dq].shape_known = true;
      b.define_raw(t, dq);
    } else if (!info.scales.empty() && info.elem_type != kFloat) {  // uint16: (x - zp) * s in float
      const std::string f = b.fresh_name(info.name + "/float");
      b.add("Cast", {name}, {f}, f).set_int("to", kFloat);
      const std::string centred = b.fresh_name(info.name + "/centred");
      b.add("Sub", {f, b.float_constant(info.name + "/zero_point", {}, {static_cast<float>(info.zero_points.empty() ? 0 : info.zero_points.front())})},
            {centred}, centred);
      const std::string dq = b.fresh_name(info.name + "/dq");
      b.add("Mul", {centred, b.float_constant(info.name + "/scale", {}, {info.scales.front()})}, {dq}, dq);
      for (const auto& v : {f, centred, dq}) {
        g.tensors[v].shape = info.shape;
        g.tensors[v].shape_known = true;
      }
      b.define_raw(t, dq);
    } else {
      b.define_raw(t, name);
    }
  }

  tflite_import::Variables variables;
  file.translate_operators(0, b, variables);

  for (int t : graph_outputs) {
    if (t < 0) continue;
    const TensorInfo& info = b.info(t);
    if (!b.defined(t) && !info.constant)
      throw CompileError(origin + ": output '" + info.name + "' is not written by any operator");
    const std::string v = b.value(t);
    if (info.quantized_activation() || int16_activation(info)) {
      b.add("QuantizeLinear",
            {v, b.float_constant(info.name + "/out_scale", {}, {info.scales.front()}),
             b.int_constant(info.name + "/out_zero_point", {}, {info.zero_points.empty() ? 0 : info.zero_points.front()},
                            info.elem_type)},
            {info.name}, info.name + "/quantize")
          .domain = requantisation_domain(info);
      g.tensors[info.name].elem_type = info.elem_type;
    } else if (!info.scales.empty() && info.elem_type != kFloat && info.elem_type != g.tensor(v).elem_type) {
      // uint16: round(x / s) + zp, saturated, as the integer type
      const float zp = static_cast<float>(info.zero_points.empty() ? 0 : info.zero_points.front());
      const float lo = info.elem_type == 5 ? -32768.0f : 0.0f, hi = info.elem_type == 5 ? 32767.0f : 65535.0f;
      std::string x = v;
      for (const auto& [op, operand] : std::vector<std::pair<std::string, float>>{{"Div", info.scales.front()}, {"Round", 0.0f}, {"Add", zp}}) {
        const std::string y = b.fresh_name(info.name + "/" + op);
        std::vector<std::string> ins{x};
        if (op != "Round") ins.push_back(b.float_constant(y + "_c", {}, {operand}));
        b.add(op, ins, {y}, y);
        g.tensors[y].shape = info.shape;
        g.tensors[y].shape_known = true;
        x = y;
      }
      const std::string c = b.fresh_name(info.name + "/saturate");
      b.add("Clip", {x, b.float_constant(c + "_min", {}, {lo}), b.float_constant(c + "_max", {}, {hi})}, {c}, c);
      g.tensors[c].shape = info.shape;
      g.tensors[c].shape_known = true;
      b.add("Cast", {c}, {info.name}, info.name + "/output").set_int("to", info.elem_type);
      g.tensors[info.name].elem_type = info.elem_type;
    } else {
      b.add("Identity", {v}, {info.name}, info.name + "/output");
      g.tensors[info.name].elem_type = g.tensor(v).elem_type;
    }
    g.tensors[info.name].shape = info.shape;
    g.tensors[info.name].shape_known = true;
    g.outputs.push_back(info.name);
  }
  // Each state input's value before the first call, as the constant "state/<name>/initial" (the
  // runtime's model info offers it as the input's initial value; nothing in the graph reads it).
  for (const auto& [name, value] : file.initial_state()) {
    const std::string input = "state/" + name, initial = input + "/initial";
    if (!g.tensors.count(input) || g.tensors.count(initial) || value.shape != g.tensor(input).shape) continue;
    Tensor& t = g.tensors[initial];
    t.name = initial;
    t.elem_type = value.elem_type;
    t.shape = value.shape;
    t.shape_known = t.is_constant = true;
    t.floats = value.floats;
    t.ints = value.ints;
  }
  for (const auto& name : variables.assigned) {
    const std::string out = "state/" + name + "/next";
    if (g.tensors.count(out)) throw CompileError(origin + ": state output '" + out + "' clashes with a tensor of that name");
    if (const auto q = variables.quantized.find(name); q != variables.quantized.end()) {
      const TensorInfo& info = q->second;
      b.add("QuantizeLinear",
            {variables.current.at(name), b.float_constant(out + "/scale", {}, {info.scales.front()}),
             b.int_constant(out + "/zero_point", {}, {info.zero_points.empty() ? 0 : info.zero_points.front()}, info.elem_type)},
            {out}, out + "/quantize");
      g.tensors[out].elem_type = info.elem_type;
    } else {
      b.add("Identity", {variables.current.at(name)}, {out}, out);
      g.tensors[out].elem_type = g.tensor(variables.current.at(name)).elem_type;
    }
    g.tensors[out].shape = g.tensor(variables.current.at(name)).shape;
    g.tensors[out].shape_known = g.tensor(variables.current.at(name)).shape_known;
    g.outputs.push_back(out);
  }
  if (g.outputs.empty()) throw CompileError(origin + ": the model has no outputs");
  check_tensor_sizes(g, max_tensor_bytes);
  try {
    g.sort_topologically();
    infer_shapes(g);
  } catch (const CompileError& e) {
    if (std::string(e.what()).rfind(origin, 0) == 0) throw;
    throw CompileError(origin + ": " + e.what());
  }
  return g;
}

}  // namespace npu::compiler
