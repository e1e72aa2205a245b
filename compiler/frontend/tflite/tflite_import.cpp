#include "compiler/frontend/tflite/tflite_import.h"

#include <algorithm>
#include <stdexcept>

#include "compiler/frontend/opset_upgrade.h"
#include "compiler/frontend/shape_inference.h"
#include "compiler/frontend/tflite/tflite_ops.h"
#include "compiler/frontend/tflite/tflite_tensors.h"

namespace npu::compiler {
namespace {

using tflite_import::Builder;
using tflite_import::TensorInfo;

int builtin_code(const tflite::OperatorCode& code) {
  // Codes below 127 were once stored only in the deprecated int8 field; readers take the larger.
  return std::max<int>(code.builtin_code(), code.deprecated_builtin_code());
}

std::string op_name(int code, const std::string& custom) {
  if (code == tflite::BuiltinOperator_CUSTOM) return "CUSTOM '" + custom + "'";
  if (code < tflite::BuiltinOperator_MIN || code > tflite::BuiltinOperator_MAX) return "builtin " + std::to_string(code);
  const char* name = tflite::EnumNameBuiltinOperator(static_cast<tflite::BuiltinOperator>(code));
  return name && *name ? name : "builtin " + std::to_string(code);
}

std::vector<int> indices(const flatbuffers::Vector<std::int32_t>* v) {
  return v ? std::vector<int>(v->begin(), v->end()) : std::vector<int>{};
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
  if (!input_shapes.empty())
    throw CompileError(origin + ": --input-shape does not apply to TFLite models: their shapes are fixed in the file");
  const tflite::SubGraph& subgraph = *model->subgraphs()->Get(0);
  std::vector<TensorInfo> tensors = tflite_import::read_tensors(bytes, *model, subgraph, origin, max_tensor_bytes);

  struct Pending {
    const tflite::Operator* op;
    int code;
    std::string custom;
    int index;
  };
  std::vector<Pending> ops;
  const auto* codes = model->operator_codes();
  if (subgraph.operators())
    for (flatbuffers::uoffset_t i = 0; i < subgraph.operators()->size(); ++i) {
      const tflite::Operator* op = subgraph.operators()->Get(i);
      if (!codes || op->opcode_index() >= codes->size())
        throw CompileError(origin + ": operator " + std::to_string(i) + ": opcode_index " + std::to_string(op->opcode_index()) +
                           " has no operator code");
      const tflite::OperatorCode* code = codes->Get(op->opcode_index());
      ops.push_back({op, builtin_code(*code), code->custom_code() ? code->custom_code()->str() : "", static_cast<int>(i)});
    }
  auto check_index = [&](int t, const std::string& where) {
    if (t < -1 || t >= static_cast<int>(tensors.size()))
      throw CompileError(where + ": tensor index " + std::to_string(t) + " is out of range (" + std::to_string(tensors.size()) +
                         " tensors)");
  };
  // Weights stored FP16, int8 or sparse behind DEQUANTIZE/DENSIFY are dense float constants from
  // here on: the op that reads them sees a constant it can lay out.
  for (auto& p : ops) {
    if (p.code != tflite::BuiltinOperator_DEQUANTIZE && p.code != tflite::BuiltinOperator_DENSIFY) continue;
    const auto in = indices(p.op->inputs()), out = indices(p.op->outputs());
    if (in.size() != 1 || out.size() != 1) continue;
    check_index(in[0], origin);
    check_index(out[0], origin);
    if (in[0] < 0 || out[0] < 0 || !tensors[static_cast<std::size_t>(in[0])].constant) continue;
    TensorInfo folded = tensors[static_cast<std::size_t>(out[0])];
    folded.constant = true;
    folded.floats = tflite_import::dequantized(tensors[static_cast<std::size_t>(in[0])]);
    folded.ints.clear();
    folded.scales.clear();
    folded.zero_points.clear();
    folded.elem_type = kFloat;
    std::int64_t elements = 1;
    for (auto d : folded.shape) elements *= d;
    if (static_cast<std::size_t>(elements) != folded.floats.size())
      throw CompileError(origin + ": operator " + std::to_string(p.index) + ": its output " + shape_string(folded.shape) +
                         " does not hold its constant input's " + std::to_string(folded.floats.size()) + " values");
    tensors[static_cast<std::size_t>(out[0])] = std::move(folded);
    p.code = -1;  // done
  }

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
    if (info.quantized_activation()) {
      const std::string dq = b.fresh_name(info.name + "/dq");
      b.add("DequantizeLinear",
            {name, b.float_constant(info.name + "/scale", {}, {info.scales.front()}),
             b.int_constant(info.name + "/zero_point", {}, {info.zero_points.empty() ? 0 : info.zero_points.front()}, info.elem_type)},
            {dq}, dq);
      g.tensors[dq].shape = info.shape;
      g.tensors[dq].shape_known = true;
      b.define_raw(t, dq);
    } else if (!info.scales.empty() && info.elem_type != kFloat) {  // int16 (16x8 models): (x - zp) * s in float
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
  for (const auto& p : ops) {
    if (p.code < 0) continue;
    tflite_import::Operator op{*p.op, *model, bytes, p.code, p.custom, indices(p.op->inputs()), indices(p.op->outputs()), ""};
    const std::string first_output = !op.outputs.empty() && op.outputs[0] >= 0 && op.outputs[0] < static_cast<int>(tensors.size())
                                         ? tensors[static_cast<std::size_t>(op.outputs[0])].name
                                         : "";
    op.where = origin + ": operator " + std::to_string(p.index) + " (" + op_name(p.code, p.custom) +
               (first_output.empty() ? "" : ", output '" + first_output + "'") + ")";
    for (int t : op.inputs) check_index(t, op.where);
    for (int t : op.outputs) check_index(t, op.where);
    b.set_origin(first_output.empty() ? op_name(p.code, p.custom) + "_" + std::to_string(p.index) : first_output);
    // LSTM/RNN state tensors start at zero each call; the translations read them as constants.
    try {
      tflite_import::translate_operator(b, op, variables);
    } catch (const CompileError& e) {  // helpers that do not know the operator: name it here
      if (std::string(e.what()).rfind(origin, 0) == 0) throw;
      throw CompileError(op.where + ": " + e.what());
    } catch (const std::out_of_range&) {  // a shape with fewer axes than the op reads
      throw CompileError(op.where + ": an input or output has fewer dimensions than the operator needs");
    }
  }

  for (int t : graph_outputs) {
    if (t < 0) continue;
    const TensorInfo& info = b.info(t);
    if (!b.defined(t) && !info.constant)
      throw CompileError(origin + ": output '" + info.name + "' is not written by any operator");
    const std::string v = b.value(t);
    if (info.quantized_activation()) {
      Node& q = b.add("QuantizeLinear",
                      {v, b.float_constant(info.name + "/out_scale", {}, {info.scales.front()}),
                       b.int_constant(info.name + "/out_zero_point", {}, {info.zero_points.empty() ? 0 : info.zero_points.front()},
                                      info.elem_type)},
                      {info.name}, info.name + "/quantize");
      (void)q;
      g.tensors[info.name].elem_type = info.elem_type;
    } else if (!info.scales.empty() && info.elem_type != kFloat && info.elem_type != g.tensor(v).elem_type) {
      // int16: round(x / s) + zp, saturated, as the integer type
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
  for (const auto& name : variables.assigned) {
    const std::string out = "state/" + name + "/next";
    if (g.tensors.count(out)) throw CompileError(origin + ": state output '" + out + "' clashes with a tensor of that name");
    b.add("Identity", {variables.current.at(name)}, {out}, out);
    g.tensors[out].elem_type = g.tensor(variables.current.at(name)).elem_type;
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
