// TFLite IF and WHILE as ONNX If and Loop nodes whose branches and body are the TFLite subgraphs
// translated like the main one (graph attributes, onnx_io.h graph_attribute): the front end's
// passes then fold an If whose condition is known at compile time (a constant, an input fixed
// by --input-value, a value folding computes; if_folding.cpp) and unroll a Loop with a static
// trip count (loop_unrolling.cpp), exactly as for ONNX models. A WHILE becomes a Loop only when
// its trip count is known here: its cond subgraph compares one loop variable against a constant
// (or against a variable the body passes through unchanged, with a constant initial value), and
// its body steps that variable by a constant (ADD or SUB), from a constant initial value: the
// `for i in range(N)` / tf.while_loop form. Each node keeps the operator as a model of its own
// (tflite_single_op.h); one the passes leave is put back as that operator, which LiteRT runs
// (restore_tflite_control_flow).
#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "compiler/frontend/onnx_io.h"
#include "compiler/frontend/tflite/tflite_import.h"
#include "compiler/frontend/tflite/tflite_ops.h"
#include "compiler/frontend/tflite/tflite_single_op.h"

namespace npu::compiler::tflite_import {
namespace {

using T = tflite::BuiltinOperator;

// More trips than this and the counter is not followed further (the unroller takes 256).
constexpr std::int64_t kMaxTrips = 1 << 20;

std::vector<int> indices(const flatbuffers::Vector<std::int32_t>* v) {
  return v ? std::vector<int>(v->begin(), v->end()) : std::vector<int>{};
}

bool fed(const Builder& b, int t) { return t >= 0 && !b.is_constant(t) && !b.info(t).variable; }

// The attributes that let restore_tflite_control_flow put the operator back: its model for
// LiteRT, the node inputs it takes (the operator's non-constant inputs, node input `first` + k
// for operator input k) and its name.
void keep_operator(Builder& b, const Operator& op, Node& n, std::int64_t first, const std::string& name) {
  std::vector<int> inputs;
  std::vector<std::int64_t> taken;
  for (std::size_t k = 0; k < op.inputs.size(); ++k)
    if (fed(b, op.inputs[k])) {
      inputs.push_back(op.inputs[k]);
      taken.push_back(first + static_cast<std::int64_t>(k));
    }
  const auto model = single_operator_model(op.file, op.model, op.subgraph, op.op, inputs, op.where);
  n.set_string("tflite_model", std::string(model.begin(), model.end()));
  n.set_ints("tflite_inputs", taken);
  n.set_string("tflite_op", name);
}

// Every input a value the translation can pass (no resource or variant handles, none absent).
bool plain_inputs(const Builder& b, const Operator& op) {
  return std::all_of(op.inputs.begin(), op.inputs.end(), [&](int t) { return t >= 0 && b.info(t).elem_type >= 0; });
}

const tflite::Operator* producer(const tflite::Model& model, const tflite::SubGraph& sg, int tensor, int& code) {
  if (!sg.operators()) return nullptr;
  for (const auto* o : *sg.operators()) {
    const auto outs = indices(o->outputs());
    if (std::find(outs.begin(), outs.end(), tensor) == outs.end()) continue;
    if (!model.operator_codes() || o->opcode_index() >= model.operator_codes()->size()) return nullptr;
    code = builtin_code(*model.operator_codes()->Get(o->opcode_index()));
    return o;
  }
  return nullptr;
}

std::optional<double> scalar(const TensorInfo& t) {
  if (!t.constant) return std::nullopt;
  const auto values = t.ints.empty() ? dequantized(t) : std::vector<float>{};
  if (t.ints.size() == 1) return static_cast<double>(t.ints[0]);
  if (values.size() == 1) return values[0];
  return std::nullopt;
}

bool comparison(int code) {
  return code == T::BuiltinOperator_LESS || code == T::BuiltinOperator_LESS_EQUAL || code == T::BuiltinOperator_GREATER ||
         code == T::BuiltinOperator_GREATER_EQUAL || code == T::BuiltinOperator_NOT_EQUAL;
}

bool holds(int code, double x, double y) {
  switch (code) {
    case T::BuiltinOperator_LESS: return x < y;
    case T::BuiltinOperator_LESS_EQUAL: return x <= y;
    case T::BuiltinOperator_GREATER: return x > y;
    case T::BuiltinOperator_GREATER_EQUAL: return x >= y;
    default: return x != y;
  }
}

// The number of times a WHILE runs its body, when its cond is a comparison of a counter with a
// limit, or a LOGICAL_AND of such (TensorFlow's loop counter against maximum_iterations beside
// the loop's own test): each counter a loop variable the body steps by a constant from a constant
// initial value, each limit a constant or a loop variable the body passes through unchanged.
std::optional<std::int64_t> static_trip_count(Builder& b, const Operator& op, int cond_index, int body_index) {
  const auto& subgraphs = *op.model.subgraphs();
  const auto n = op.inputs.size();
  const tflite::SubGraph& cs = *subgraphs.Get(static_cast<flatbuffers::uoffset_t>(cond_index));
  const tflite::SubGraph& bs = *subgraphs.Get(static_cast<flatbuffers::uoffset_t>(body_index));
  const auto cin = indices(cs.inputs()), cout = indices(cs.outputs()), bin = indices(bs.inputs()), bout = indices(bs.outputs());
  if (cin.size() != n || bin.size() != n || bout.size() != n || cout.size() != 1) return std::nullopt;
  const auto& ct = op.subgraphs->tensors(cond_index, op.where);
  const auto& bt = op.subgraphs->tensors(body_index, op.where);
  auto initial = [&](std::size_t k) { return scalar(b.info(op.inputs[k])); };
  // The step the body adds to loop variable k each trip.
  auto step = [&](int k) -> std::optional<double> {
    int code = -1;
    const tflite::Operator* o = producer(op.model, bs, bout[static_cast<std::size_t>(k)], code);
    if (!o || (code != T::BuiltinOperator_ADD && code != T::BuiltinOperator_SUB)) return std::nullopt;
    const auto* add = o->builtin_options_as_AddOptions();
    const auto* sub = o->builtin_options_as_SubOptions();
    if ((add && add->fused_activation_function()) || (sub && sub->fused_activation_function())) return std::nullopt;
    const auto in = indices(o->inputs());
    if (in.size() != 2) return std::nullopt;
    const int var = bin[static_cast<std::size_t>(k)];
    for (int j = 0; j < 2; ++j) {
      const int other = in[static_cast<std::size_t>(1 - j)];
      if (in[static_cast<std::size_t>(j)] != var || other < 0 || static_cast<std::size_t>(other) >= bt.size()) continue;
      if (code == T::BuiltinOperator_SUB && j == 1) return std::nullopt;  // c - i does not count
      const auto c = scalar(bt[static_cast<std::size_t>(other)]);
      if (c) return code == T::BuiltinOperator_SUB ? -*c : *c;
    }
    return std::nullopt;
  };
  struct Counter {
    double value, delta;
    bool integer;
  };
  std::map<int, Counter> counters;  // loop variable -> its value as the trips go by
  struct Test {
    int code;
    int counter;       // the loop variable counted
    double limit;
    bool counter_left;  // counter < limit, or limit < counter
  };
  std::vector<Test> tests;
  // One side of a comparison: a counter (its loop variable), or a limit's value.
  auto counter_of = [&](int t) -> int {
    const auto at = std::find(cin.begin(), cin.end(), t);
    if (at == cin.end()) return -1;
    const int k = static_cast<int>(at - cin.begin());
    if (counters.count(k)) return k;
    const auto delta = step(k);
    const auto start = initial(static_cast<std::size_t>(k));
    if (!delta || !start) return -1;
    counters[k] = {*start, *delta, b.info(op.inputs[static_cast<std::size_t>(k)]).elem_type != kFloat};
    return k;
  };
  auto limit_of = [&](int t) -> std::optional<double> {
    if (t < 0 || static_cast<std::size_t>(t) >= ct.size()) return std::nullopt;
    const auto at = std::find(cin.begin(), cin.end(), t);
    if (at == cin.end()) return scalar(ct[static_cast<std::size_t>(t)]);
    const auto k = static_cast<std::size_t>(at - cin.begin());
    return bout[k] == bin[k] ? initial(k) : std::nullopt;
  };
  std::function<bool(int, int)> collect = [&](int t, int depth) {
    int code = -1;
    const tflite::Operator* o = depth < 8 ? producer(op.model, cs, t, code) : nullptr;
    const auto in = o ? indices(o->inputs()) : std::vector<int>{};
    if (in.size() != 2) return false;
    if (code == T::BuiltinOperator_LOGICAL_AND) return collect(in[0], depth + 1) && collect(in[1], depth + 1);
    if (!comparison(code)) return false;
    for (int j = 0; j < 2; ++j) {
      const auto limit = limit_of(in[static_cast<std::size_t>(1 - j)]);
      if (!limit) continue;
      const int k = counter_of(in[static_cast<std::size_t>(j)]);
      if (k < 0) continue;
      tests.push_back({code, k, *limit, j == 0});
      return true;
    }
    return false;
  };
  if (!collect(cout[0], 0)) return std::nullopt;
  std::int64_t trips = 0;
  for (;; ++trips) {
    for (const auto& test : tests) {
      const double i = counters.at(test.counter).value;
      if (!holds(test.code, test.counter_left ? i : test.limit, test.counter_left ? test.limit : i)) return trips;
    }
    if (trips >= kMaxTrips) return std::nullopt;
    for (auto& [k, c] : counters)
      c.value = c.integer ? c.value + c.delta : static_cast<double>(static_cast<float>(c.value) + static_cast<float>(c.delta));
  }
}

}  // namespace

void translate_if(Builder& b, const Operator& op) {
  const auto* o = op.op.builtin_options_as_IfOptions();
  if (!o || !op.subgraphs || op.inputs.empty() || op.outputs.empty() || !plain_inputs(b, op)) return opaque_operator(b, op);
  std::vector<std::string> args;
  std::vector<BoundInput> bound;
  for (std::size_t k = 1; k < op.inputs.size(); ++k) {
    args.push_back(b.value(op.inputs[k]));
    bound.push_back({args.back(), b.is_constant(op.inputs[k]) ? &b.info(op.inputs[k]) : nullptr});
  }
  std::vector<std::string> outputs;
  for (int t : op.outputs) {
    if (t < 0) fail(op, "an output index is negative");
    outputs.push_back(b.fresh_value(t, {}, "/if"));
  }
  std::vector<std::string> inputs{b.value(op.inputs[0])};
  inputs.insert(inputs.end(), args.begin(), args.end());
  Node n;
  for (const auto& [attribute, index] :
       {std::pair<std::string, int>{"then_branch", o->then_subgraph_index()}, {"else_branch", o->else_subgraph_index()}}) {
    const Graph branch = op.subgraphs->translate(index, bound, op.where);
    if (branch.outputs.size() != op.outputs.size())
      fail(op, "subgraph " + std::to_string(index) + " has " + std::to_string(branch.outputs.size()) + " outputs, the IF " +
                   std::to_string(op.outputs.size()));
    n.attributes[attribute] = graph_attribute(attribute, branch, false);
  }
  Node& node = b.add("If", inputs, outputs, outputs[0]);
  node.attributes.insert(n.attributes.begin(), n.attributes.end());
  keep_operator(b, op, node, 0, "IF");
  for (std::size_t k = 0; k < outputs.size(); ++k) b.define(op.outputs[k], outputs[k]);
}

void translate_while(Builder& b, const Operator& op) {
  const auto* o = op.op.builtin_options_as_WhileOptions();
  if (!o || !op.subgraphs || op.inputs.size() != op.outputs.size() || op.inputs.empty() || !plain_inputs(b, op))
    return opaque_operator(b, op);
  const int body_index = o->body_subgraph_index();
  op.subgraphs->tensors(o->cond_subgraph_index(), op.where);  // checks both indices
  op.subgraphs->tensors(body_index, op.where);
  const auto trips = static_trip_count(b, op, o->cond_subgraph_index(), body_index);
  if (!trips) return opaque_operator(b, op);
  std::vector<std::string> values;
  for (int t : op.inputs) values.push_back(b.value(t));
  if (*trips == 0) {  // the body never runs: the outputs are the inputs
    for (std::size_t k = 0; k < values.size(); ++k) b.define(op.outputs[k], values[k]);
    return;
  }
  // ONNX Loop: inputs (trip count, condition, carried values...), body (iteration, condition,
  // carried values...) -> (condition, carried values...). The condition stays true: the trip
  // count alone ends the loop.
  Graph body = op.subgraphs->translate(body_index, {}, op.where);
  if (body.outputs.size() != op.outputs.size())
    fail(op, "body subgraph " + std::to_string(body_index) + " has " + std::to_string(body.outputs.size()) + " outputs, the WHILE " +
                 std::to_string(op.outputs.size()));
  std::vector<std::string> leading;
  for (const auto& [base, type] : {std::pair<std::string, int>{"iteration", kInt64}, {"condition", kBool}}) {
    std::string name = base;
    for (int k = 1; body.tensors.count(name); ++k) name = base + "_" + std::to_string(k);
    Tensor& t = body.tensors[name];
    t.name = name;
    t.elem_type = type;
    t.shape_known = true;
    leading.push_back(name);
  }
  body.inputs.insert(body.inputs.begin(), leading.begin(), leading.end());
  body.outputs.insert(body.outputs.begin(), leading[1]);
  std::vector<std::string> outputs;
  for (int t : op.outputs) {
    if (t < 0) fail(op, "an output index is negative");
    outputs.push_back(b.fresh_value(t, {}, "/while"));
  }
  std::vector<std::string> inputs{b.int_constant(outputs[0] + "/trip_count", {}, {*trips}), ""};
  inputs.insert(inputs.end(), values.begin(), values.end());
  Node& node = b.add("Loop", inputs, outputs, outputs[0]);
  node.attributes["body"] = graph_attribute("body", body, true);
  keep_operator(b, op, node, 2, "WHILE");
  for (std::size_t k = 0; k < outputs.size(); ++k) b.define(op.outputs[k], outputs[k]);
}

}  // namespace npu::compiler::tflite_import

namespace npu::compiler {

std::string restore_tflite_control_flow(Graph& g) {
  std::string restored;
  for (auto& n : g.nodes) {
    if (!n.domain.empty() || (n.op_type != "If" && n.op_type != "Loop") || !n.has("tflite_model")) continue;
    std::vector<std::string> inputs;
    for (auto k : n.get_ints("tflite_inputs")) {
      if (k < 0 || static_cast<std::size_t>(k) >= n.inputs.size())
        throw CompileError(g.source + ": node '" + n.name + "': tflite_inputs names input " + std::to_string(k) + " of " +
                           std::to_string(n.inputs.size()));
      inputs.push_back(n.inputs[static_cast<std::size_t>(k)]);
    }
    n.inputs = std::move(inputs);
    n.op_type = n.get_string("tflite_op", n.op_type == "If" ? "IF" : "WHILE");
    n.domain = kTfliteOnlyDomain;
    for (const char* a : {"then_branch", "else_branch", "body", "tflite_inputs", "tflite_op"}) n.attributes.erase(a);
    restored += (restored.empty() ? "" : ", ") + n.name + " (" + n.op_type + ")";
  }
  return restored.empty() ? "" : "left to LiteRT: " + restored;
}

}  // namespace npu::compiler
