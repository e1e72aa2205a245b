#include "compiler/core/node_parameters.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace npu::compiler {
namespace {

enum class Kind { Ints, Int, Floats, Float };

struct Slot {
  const char* name;
  int input;                   // index in the input form
  Kind kind;
  std::int64_t input_since;    // first opset that takes it as an input
};

const std::map<std::string, std::vector<Slot>>& slot_table() {
  static const std::map<std::string, std::vector<Slot>> table = [] {
    std::map<std::string, std::vector<Slot>> t = {
        {"Split", {{"split", 1, Kind::Ints, 13}}},
        {"Slice", {{"starts", 1, Kind::Ints, 10}, {"ends", 2, Kind::Ints, 10}, {"axes", 3, Kind::Ints, 10},
                   {"steps", 4, Kind::Ints, 10}}},
        {"Pad", {{"pads", 1, Kind::Ints, 11}, {"value", 2, Kind::Float, 11}}},
        {"Resize", {{"roi", 1, Kind::Floats, 11}, {"scales", 2, Kind::Floats, 11}, {"sizes", 3, Kind::Ints, 11}}},
        {"Upsample", {{"scales", 1, Kind::Floats, 9}}},
        {"Reshape", {{"shape", 1, Kind::Ints, 5}}},
        {"Expand", {{"shape", 1, Kind::Ints, 8}}},
        {"Tile", {{"repeats", 1, Kind::Ints, 6}}},
        {"Clip", {{"min", 1, Kind::Float, 11}, {"max", 2, Kind::Float, 11}}},
        {"TopK", {{"k", 1, Kind::Int, 10}}},
        {"ReduceSum", {{"axes", 1, Kind::Ints, 13}}},
        {"Squeeze", {{"axes", 1, Kind::Ints, 13}}},
        {"Unsqueeze", {{"axes", 1, Kind::Ints, 13}}},
    };
    for (const char* op : {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                           "ReduceLogSumExp", "ReduceSumSquare"})
      t[op] = {{"axes", 1, Kind::Ints, 18}};
    return t;
  }();
  return table;
}

const Slot* find_slot(const std::string& op, const std::string& name) {
  auto it = slot_table().find(op);
  if (it == slot_table().end()) return nullptr;
  for (const auto& s : it->second)
    if (name == s.name) return &s;
  return nullptr;
}

int slot_input(const std::string& op, const Slot& s, std::int64_t opset) {
  if (opset < s.input_since) return -1;
  if (op == "Resize" && opset < 11) return std::string(s.name) == "scales" ? 1 : -1;  // Resize-10: X, scales
  return s.input;
}

std::int64_t saturate(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2233720368547758e18) return std::numeric_limits<std::int64_t>::max();
  if (v <= -9.2233720368547758e18) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(v);
}

std::vector<std::int64_t> tensor_ints(const Tensor& t) {
  if (!t.ints.empty() || t.floats.empty()) return t.ints;
  std::vector<std::int64_t> v;
  for (float f : t.floats) v.push_back(saturate(f));
  return v;
}

std::vector<float> tensor_floats(const Tensor& t) {
  if (!t.floats.empty() || t.ints.empty()) return t.floats;
  std::vector<float> v;
  for (auto i : t.ints) v.push_back(static_cast<float>(i));
  return v;
}

void set_attribute(Node& n, const Slot& s, const Tensor& t) {
  Attribute a;
  switch (s.kind) {
    case Kind::Ints: a.kind = Attribute::Kind::Ints; a.ints = tensor_ints(t); break;
    case Kind::Int: a.kind = Attribute::Kind::Int; a.i = tensor_ints(t).at(0); break;
    case Kind::Floats: a.kind = Attribute::Kind::Floats; a.floats = tensor_floats(t); break;
    case Kind::Float: a.kind = Attribute::Kind::Float; a.f = tensor_floats(t).at(0); break;
  }
  n.attributes[s.name] = a;
}

}  // namespace

int parameter_input(const std::string& op_type, const std::string& name, std::int64_t opset) {
  const Slot* s = find_slot(op_type, name);
  return s ? slot_input(op_type, *s, opset) : -1;
}

int parameters_to_attributes(Graph& g, Node& n) {
  if (!n.domain.empty()) return 0;
  auto it = slot_table().find(n.op_type);
  if (it == slot_table().end()) return 0;
  int moved = 0;
  const bool resize = n.op_type == "Resize" || n.op_type == "Upsample";
  // Pad-18's axes: the canonical pads cover every dim, so they need the data rank.
  if (n.op_type == "Pad" && n.inputs.size() > 3 && !n.inputs[3].empty()) {
    const Tensor& x = g.tensor(n.inputs[0]);
    if (!g.is_constant(n.inputs[3]) || !g.is_constant(n.inputs[1]) || !x.shape_known) return 0;
    auto axes = tensor_ints(g.tensor(n.inputs[3]));
    auto pads = tensor_ints(g.tensor(n.inputs[1]));
    const auto r = static_cast<std::int64_t>(x.shape.size());
    std::vector<std::int64_t> full(static_cast<std::size_t>(2 * r), 0);
    for (std::size_t i = 0; i < axes.size(); ++i) {
      std::int64_t a = axes[i] < 0 ? axes[i] + r : axes[i];
      full[a] = pads[i];
      full[a + r] = pads[i + axes.size()];
    }
    n.set_ints("pads", full);
    n.inputs[1] = n.inputs[3] = "";
    moved += 2;
  }
  for (const auto& s : it->second) {
    int idx = slot_input(n.op_type, s, g.opset);
    if (idx < 0 || idx >= static_cast<int>(n.inputs.size()) || n.inputs[idx].empty()) continue;
    if (!g.is_constant(n.inputs[idx])) continue;
    const Tensor& t = g.tensor(n.inputs[idx]);
    const std::string name = s.name;
    bool drop_only = false;
    if (resize && t.elements() == 0) drop_only = true;  // an empty scales/roi means "not given"
    if (name == "roi" && n.get_string("coordinate_transformation_mode", "half_pixel") != "tf_crop_and_resize")
      drop_only = true;
    if ((s.kind == Kind::Int || s.kind == Kind::Float) && t.elements() != 1) continue;
    if (!drop_only) set_attribute(n, s, t);
    n.inputs[idx] = "";
    ++moved;
  }
  while (n.inputs.size() > 1 && n.inputs.back().empty()) n.inputs.pop_back();
  return moved;
}

Node parameters_to_inputs(const Graph& g, const Node& node, std::int64_t opset, std::vector<Tensor>& constants,
                          const std::function<std::string(const std::string&)>& unique_name) {
  Node n = node;
  if (!n.domain.empty()) return n;
  auto it = slot_table().find(n.op_type);
  if (it == slot_table().end()) return n;
  const int data_type = !n.inputs.empty() && !n.inputs[0].empty() && g.has_tensor(n.inputs[0])
                            ? g.tensor(n.inputs[0]).elem_type : kFloat;
  auto add_input = [&](int idx, Tensor t) {
    t.name = unique_name(n.name + "_" + t.name);
    t.shape_known = true;
    t.is_constant = true;
    if (static_cast<int>(n.inputs.size()) <= idx) n.inputs.resize(static_cast<std::size_t>(idx) + 1);
    n.inputs[idx] = t.name;
    constants.push_back(std::move(t));
  };
  for (const auto& s : it->second) {
    int idx = slot_input(n.op_type, s, opset);
    if (idx < 0 || !n.has(s.name)) continue;
    const Attribute& a = n.attributes.at(s.name);
    Tensor t;
    t.name = s.name;
    switch (s.kind) {
      case Kind::Ints: t.elem_type = kInt64; t.ints = a.ints; t.shape = {static_cast<std::int64_t>(a.ints.size())}; break;
      case Kind::Int: t.elem_type = kInt64; t.ints = {a.i}; t.shape = {1}; break;
      case Kind::Floats: t.elem_type = kFloat; t.floats = a.floats; t.shape = {static_cast<std::int64_t>(a.floats.size())}; break;
      case Kind::Float:
        // Clip's bounds and Pad's value have the data's type; a scalar.
        t.elem_type = data_type == kFloat16 || data_type == kDouble ? data_type : kFloat;
        if (data_type != kFloat && data_type != kFloat16 && data_type != kDouble) {
          t.elem_type = data_type;
          t.ints = {static_cast<std::int64_t>(a.f)};
        } else {
          t.floats = {a.f};
        }
        t.shape = {};
        break;
    }
    n.attributes.erase(s.name);
    add_input(idx, std::move(t));
  }
  if (n.op_type == "Resize" && opset >= 11 && opset < 13) {
    // Resize-11: roi and scales are required inputs; empty tensors when unused.
    for (int idx : {1, 2})
      if (static_cast<int>(n.inputs.size()) <= idx || n.inputs[idx].empty()) {
        Tensor t;
        t.name = idx == 1 ? "roi" : "scales";
        t.elem_type = kFloat;
        t.shape = {0};
        add_input(idx, std::move(t));
      }
  }
  return n;
}

bool parameter_ints(const Graph& g, const Node& n, const std::string& name, std::vector<std::int64_t>& out,
                    const std::vector<const FloatTensor*>* inputs) {
  auto a = n.attributes.find(name);
  if (a != n.attributes.end()) {
    if (a->second.kind == Attribute::Kind::Int) out = {a->second.i};
    else out = a->second.ints;
    return true;
  }
  int idx = parameter_input(n.op_type, name, g.opset);
  if (idx < 0 || idx >= static_cast<int>(n.inputs.size()) || n.inputs[idx].empty()) return false;
  if (g.is_constant(n.inputs[idx])) {
    out = tensor_ints(g.tensor(n.inputs[idx]));
    return true;
  }
  if (inputs && idx < static_cast<int>(inputs->size()) && (*inputs)[idx]) {
    out.clear();
    for (float f : (*inputs)[idx]->data) out.push_back(saturate(f));
    return true;
  }
  return false;
}

bool parameter_floats(const Graph& g, const Node& n, const std::string& name, std::vector<float>& out,
                      const std::vector<const FloatTensor*>* inputs) {
  auto a = n.attributes.find(name);
  if (a != n.attributes.end()) {
    if (a->second.kind == Attribute::Kind::Float) out = {a->second.f};
    else out = a->second.floats;
    return true;
  }
  int idx = parameter_input(n.op_type, name, g.opset);
  if (idx < 0 || idx >= static_cast<int>(n.inputs.size()) || n.inputs[idx].empty()) return false;
  if (g.is_constant(n.inputs[idx])) {
    out = tensor_floats(g.tensor(n.inputs[idx]));
    return true;
  }
  if (inputs && idx < static_cast<int>(inputs->size()) && (*inputs)[idx]) {
    out = (*inputs)[idx]->data;
    return true;
  }
  return false;
}

}  // namespace npu::compiler
