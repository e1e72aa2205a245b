// Small graphs built in code for pass and partition tests.
#pragma once
#include <random>
#include <string>
#include <vector>

#include "compiler/core/graph.h"
#include "compiler/frontend/shape_inference.h"
#include "compiler/reference/float_evaluator.h"

namespace npu::compiler::testing {

class GraphBuilder {
 public:
  explicit GraphBuilder(unsigned seed = 1) : rng_(seed) { g_.source = "test"; }

  std::string input(const std::string& name, std::vector<std::int64_t> shape) {
    Tensor& t = g_.tensors[name];
    t.name = name;
    t.shape = std::move(shape);
    t.shape_known = true;
    g_.inputs.push_back(name);
    return name;
  }
  std::string random_constant(const std::string& name, std::vector<std::int64_t> shape,
                              float lo = -1.0f, float hi = 1.0f) {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = dist(rng_);
    g_.add_constant(name, std::move(shape), std::move(v));
    return name;
  }
  std::string constant(const std::string& name, std::vector<std::int64_t> shape, std::vector<float> v) {
    g_.add_constant(name, std::move(shape), std::move(v));
    return name;
  }
  std::string int_constant(const std::string& name, std::vector<std::int64_t> shape, std::vector<std::int64_t> v) {
    Tensor& t = g_.add_constant(name, std::move(shape), {});
    t.elem_type = kInt64;
    t.ints = std::move(v);
    return name;
  }
  Node& node(const std::string& op, std::vector<std::string> inputs, const std::string& name) {
    Node n;
    n.name = name;
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = {name + "_out"};
    n.fused_nodes = {name};
    g_.tensors[name + "_out"].name = name + "_out";
    g_.nodes.push_back(n);
    return g_.nodes.back();
  }
  std::string out(const std::string& node_name) const { return node_name + "_out"; }
  // A k x k Conv with random weights and bias, padded to keep the size.
  Node& same_conv(const std::string& x, std::int64_t cin, std::int64_t cout, const std::string& name, std::int64_t k) {
    const std::string w = random_constant(name + "_w", {cout, cin, k, k}), bias = random_constant(name + "_b", {cout});
    Node& n = node("Conv", {x, w, bias}, name);
    n.set_ints("pads", {k / 2, k / 2, k / 2, k / 2});
    return n;
  }
  Graph& graph() { return g_; }
  Graph finish(std::vector<std::string> outputs) {
    g_.outputs = std::move(outputs);
    infer_shapes(g_);
    return g_;
  }
  std::mt19937& rng() { return rng_; }

 private:
  Graph g_;
  std::mt19937 rng_;
};

inline FloatTensor random_tensor(std::vector<std::int64_t> shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  FloatTensor t;
  t.shape = std::move(shape);
  t.data.resize(static_cast<std::size_t>(t.elements()));
  for (auto& v : t.data) v = dist(rng);
  return t;
}

inline float max_abs_diff(const FloatTensor& a, const FloatTensor& b) {
  float m = 0;
  for (std::size_t i = 0; i < a.data.size() && i < b.data.size(); ++i) m = std::max(m, std::abs(a.data[i] - b.data[i]));
  return a.data.size() == b.data.size() ? m : 1e30f;
}

}  // namespace npu::compiler::testing
