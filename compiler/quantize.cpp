#include "compiler/quantize.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <random>
#include <regex>
#include <set>
#include <thread>

#include "compiler/int8_layer_params.h"
#include "compiler/npu_ops.h"
#include "compiler/npy_float.h"

namespace npu::compiler {
namespace fs = std::filesystem;

namespace {

constexpr int kGeneratedSamples = 2;
constexpr int kMaxSamples = 16;

FloatTensor fit_input(FloatTensor t, const Tensor& input, const std::string& file) {
  if (t.elements() != input.elements())
    throw CompileError(file + ": shape " + shape_string(t.shape) + " does not fit input '" + input.name +
                       "' of shape " + shape_string(input.shape));
  t.shape = input.shape;
  return t;
}

}  // namespace

std::vector<TensorMap> calibration_inputs(const Graph& g, const CompileOptions& options,
                                          std::vector<std::string>& warnings) {
  std::vector<TensorMap> samples;
  if (!options.calibration_dir.empty()) {
    if (!fs::is_directory(options.calibration_dir))
      throw CompileError(options.calibration_dir + ": calibration directory does not exist");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(options.calibration_dir))
      if (e.path().extension() == ".npy") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::map<std::string, TensorMap> by_index;
    for (const auto& in : g.inputs) {
      std::regex pattern(std::regex_replace(in, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") + R"((_(\d+))?\.npy)");
      for (const auto& f : files) {
        std::smatch m;
        std::string name = f.filename().string();
        if (std::regex_match(name, m, pattern))
          by_index[m[2].str()][in] = fit_input(read_npy_as_float(f.string()), g.tensor(in), f.string());
      }
    }
    if (by_index.empty() && g.inputs.size() == 1)
      for (const auto& f : files)
        by_index[f.filename().string()][g.inputs[0]] = fit_input(read_npy_as_float(f.string()), g.tensor(g.inputs[0]), f.string());
    for (auto& [index, sample] : by_index) {
      for (const auto& in : g.inputs)
        if (!sample.count(in))
          throw CompileError(options.calibration_dir + ": sample '" + index + "' has no file for input '" + in + "'");
      samples.push_back(std::move(sample));
      if (static_cast<int>(samples.size()) == kMaxSamples) break;
    }
    if (samples.empty())
      throw CompileError(options.calibration_dir + ": no .npy calibration files (expected <input>.npy or <input>_N.npy)");
    return samples;
  }
  warnings.push_back("INT8 calibrated on " + std::to_string(kGeneratedSamples) +
                     " generated N(0,1) inputs, not real data: pass --calib DIR of .npy files for "
                     "representative activation ranges");
  std::mt19937 rng(12345);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (int s = 0; s < kGeneratedSamples; ++s) {
    TensorMap sample;
    for (const auto& in : g.inputs) {
      FloatTensor t;
      t.shape = g.tensor(in).shape;
      t.data.resize(static_cast<std::size_t>(t.elements()));
      for (auto& v : t.data) v = dist(rng);
      sample[in] = std::move(t);
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Two ranges of one value as one; NaN stays NaN.
std::pair<float, float> merge_range(std::pair<float, float> a, std::pair<float, float> b) {
  if (std::isnan(a.first) || std::isnan(b.first)) return {kNaN, kNaN};
  return {std::min(a.first, b.first), std::max(a.second, b.second)};
}

ValueRanges measure_ranges(const Graph& g, const std::vector<TensorMap>& inputs) {
  const TensorMap constants = graph_constants(g);
  // Samples are independent: up to one thread per core, each with its own ranges, merged after.
  const std::size_t threads =
      std::max<std::size_t>(1, std::min<std::size_t>(inputs.size(), std::thread::hardware_concurrency()));
  std::vector<ValueRanges> partial(threads);
  std::vector<std::exception_ptr> errors(threads);
  auto work = [&](std::size_t t) {
    try {
      for (std::size_t s = t; s < inputs.size(); s += threads)
        evaluate_graph_visiting(g, inputs[s], constants, [&](const std::string& name, const FloatTensor& v) {
          if (v.data.empty()) return;
          auto [lo, hi] = value_range(v.data);
          // A NaN anywhere makes the range NaN (min/max would skip it): assign_quantization then
          // leaves the value to the CPU.
          if (std::any_of(v.data.begin(), v.data.end(), [](float x) { return std::isnan(x); })) lo = hi = kNaN;
          auto [it, fresh] = partial[t].try_emplace(name, lo, hi);
          if (!fresh) it->second = merge_range(it->second, {lo, hi});
        });
    } catch (...) {
      errors[t] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  ValueRanges ranges = std::move(partial[0]);
  for (std::size_t t = 1; t < threads; ++t)
    for (const auto& [name, r] : partial[t]) {
      auto [it, fresh] = ranges.try_emplace(name, r);
      if (!fresh) it->second = merge_range(it->second, r);
    }
  return ranges;
}

QuantParams activation_params(float lo, float hi) {
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  if (hi - lo < 1e-6f) hi = lo + 1e-6f;
  QuantParams q;
  q.scale = (hi - lo) / 255.0f;
  q.zero_point = static_cast<std::int32_t>(std::clamp<long>(std::lround(-128.0 - lo / q.scale), -128, 127));
  return q;
}

std::vector<std::string> assign_quantization(Graph& g, const ValueRanges& ranges) {
  // NPU nodes touching a value calibration could not measure (downstream of an op the
  // FP32 evaluator lacks) go to the CPU instead.
  std::vector<std::string> unmeasured;
  for (auto& n : g.nodes) {
    if (n.device != Node::Device::Npu) continue;
    std::vector<std::string> values;
    for (const auto& v : n.inputs) if (!v.empty() && !g.is_constant(v)) values.push_back(v);
    for (const auto& v : n.outputs) if (!v.empty()) values.push_back(v);
    for (const char* key : {"acc_value", "act_value"}) if (n.has(key)) values.push_back(n.get_string(key, ""));
    auto finite = [](float x) { return std::isfinite(x); };
    for (const auto& v : values) {
      const auto r = ranges.find(v);
      if (r != ranges.end() && finite(r->second.first) && finite(r->second.second)) continue;
      n.device = Node::Device::Cpu;
      n.fallback_reason = r == ranges.end()
                              ? "int8 calibration has no range for '" + v + "' (an upstream op has no reference kernel)"
                              : "int8 calibration saw NaN or infinity in '" + v + "': no int8 scale represents it";
      unmeasured.push_back(n.name);
      break;
    }
    if (n.device != Node::Device::Npu) continue;
    for (const auto& c : n.inputs)  // weights and biases: quantised per channel
      if (!c.empty() && g.is_constant(c) && !std::all_of(g.tensor(c).floats.begin(), g.tensor(c).floats.end(), finite)) {
        n.device = Node::Device::Cpu;
        n.fallback_reason = "constant '" + c + "' holds NaN or infinity: not quantisable to int8";
        unmeasured.push_back(n.name);
        break;
      }
  }
  // Union-find over value names that must share parameters.
  std::map<std::string, std::string> parent;
  std::function<std::string(const std::string&)> find = [&](const std::string& x) {
    auto it = parent.find(x);
    if (it == parent.end() || it->second == x) return x;
    return it->second = find(it->second);
  };
  auto unite = [&](const std::string& a, const std::string& b) { parent[find(a)] = find(b); };
  std::set<std::string> activations;
  for (const auto& n : g.nodes) {
    if (n.device != Node::Device::Npu) continue;
    for (const auto& v : n.inputs)
      if (!v.empty() && !g.is_constant(v)) activations.insert(v);
    for (const auto& v : n.outputs)
      if (!v.empty()) activations.insert(v);
    // Data movement passes its parameters through unchanged (the bytes are the values), as do
    // pooling and the clamps that run in the integer domain.
    static const std::set<std::string> kSameParams = {"MaxPool", "AveragePool", "Resize",
                                                      "Upsample", "Relu", "Clip", "GlobalMaxPool",
                                                      "ReduceMax", "ReduceMin"};
    const bool moves = move_ops().count(n.op_type) != 0;
    if (kSameParams.count(n.op_type) || moves) {
      // Gather and Pad: only the data operand; Concat: every operand.
      const std::size_t operands = n.op_type == "Concat" || n.op_type == "Where" ? n.inputs.size() : 1;
      for (std::size_t i = 0; i < operands && i < n.inputs.size(); ++i)
        for (const auto& o : n.outputs)
          if (!n.inputs[i].empty() && !g.is_constant(n.inputs[i]) && !o.empty()) unite(n.inputs[i], o);
    }
  }
  std::map<std::string, std::pair<float, float>> group_range;
  for (const auto& v : activations) {
    auto it = ranges.find(v);
    if (it == ranges.end()) throw CompileError(g.source + ": calibration produced no range for '" + v + "'");
    auto root = find(v);
    auto gr = group_range.find(root);
    if (gr == group_range.end()) group_range[root] = it->second;
    else gr->second = {std::min(gr->second.first, it->second.first), std::max(gr->second.second, it->second.second)};
  }
  for (const auto& v : activations) {
    auto [lo, hi] = group_range[find(v)];
    g.tensor(v).quant = activation_params(lo, hi);
  }
  // A masked Where's output stays fp16 (no scale): -inf where masked has no int8 code.
  for (const auto& n : g.nodes)
    if (n.device == Node::Device::Npu && masked_where(g, n)) g.tensor(n.outputs[0]).quant = QuantParams{};
  for (auto& n : g.nodes) {
    if (n.device != Node::Device::Npu || n.domain != "npusim") continue;
    for (const char* key : {"acc_value", "act_value"}) {
      std::string value = n.get_string(key, "");
      if (value.empty() || value == n.outputs[0]) continue;
      auto it = ranges.find(value);
      if (it == ranges.end()) throw CompileError(g.source + ": calibration produced no range for '" + value + "'");
      QuantParams q = activation_params(it->second.first, it->second.second);
      std::string prefix = std::string(key).substr(0, 3);
      n.set_float(prefix + "_scale", q.scale);
      n.set_int(prefix + "_zero_point", q.zero_point);
    }
  }
  return unmeasured;
}

QuantizedWeights quantize_weights(const std::vector<float>& w, std::int64_t channels, std::int64_t inner) {
  QuantizedWeights q;
  q.channel_scales.assign(static_cast<std::size_t>(channels), 0.0f);
  for (std::size_t i = 0; i < w.size(); ++i) {
    auto c = static_cast<std::size_t>((static_cast<std::int64_t>(i) / inner) % channels);
    q.channel_scales[c] = std::max(q.channel_scales[c], std::abs(w[i]));
  }
  for (auto& s : q.channel_scales) s = s > 0 ? s / 127.0f : 1.0f;
  q.values.resize(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) {
    auto c = static_cast<std::size_t>((static_cast<std::int64_t>(i) / inner) % channels);
    q.values[i] = static_cast<std::int8_t>(std::clamp<long>(std::lround(w[i] / q.channel_scales[c]), -127, 127));
  }
  return q;
}

}  // namespace npu::compiler
