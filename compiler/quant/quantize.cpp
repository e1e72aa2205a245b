#include "compiler/quant/quantize.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <set>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "compiler/core/npu_ops.h"
#include "compiler/quant/calibration_statistics.h"
#include "compiler/quant/int8_layer_params.h"

namespace npu::compiler {

ValueRanges measure_ranges(const Graph& g, const std::vector<TensorMap>& inputs) {
  ValueRanges ranges;
  for (const auto& [name, h] : collect_statistics(g, inputs, false)) ranges[name] = {h.min(), h.max()};
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

namespace {

// Whether no value is infinite or NaN. x * 0 is 0 for every finite x and NaN otherwise; summed
// over eight lanes with no early exit, the check vectorises (std::isfinite per weight was a
// branch per weight over all of a model's weights).
bool all_finite(const std::vector<float>& v) {
  constexpr std::size_t kLanes = 8;
  float lanes[kLanes] = {};
  const float* d = v.data();
  const std::size_t n = v.size();
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (std::size_t k = 0; k < kLanes; ++k) lanes[k] += d[i + k] * 0.0f;
  for (; i < n; ++i) lanes[0] += d[i] * 0.0f;
  for (float l : lanes)
    if (l != 0.0f) return false;
  return true;
}

// The smallest and largest values of a constant, or nullopt for a value that is not one (or holds none).
std::optional<std::pair<float, float>> constant_range(const Graph& g, const std::string& v) {
  if (!g.is_constant(v)) return std::nullopt;
  const auto data = constant_as_float(g.tensor(v)).data;
  if (data.empty()) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(data.begin(), data.end());
  return std::make_pair(*lo, *hi);
}

// Interval ranges of the values computed only from integer-valued mask inputs (taken as [0, 1])
// and constants, through the ops a mask's path uses; a node reading any other computed value
// ends the path (its output keeps its calibrated range).
std::map<std::string, std::pair<float, float>> mask_path_ranges(const Graph& g) {
  std::map<std::string, std::pair<float, float>> r;
  for (const auto& v : g.integer_valued_inputs) r[v] = {0.0f, 1.0f};
  if (r.empty()) return r;
  auto range_of = [&](const std::string& v) -> std::optional<std::pair<float, float>> {
    if (g.is_constant(v)) return constant_range(g, v);
    const auto it = r.find(v);
    if (it == r.end()) return std::nullopt;
    return it->second;
  };
  for (const auto& n : g.nodes) {
    if (n.inputs.empty() || n.outputs.empty() || !n.domain.empty()) continue;
    std::vector<std::pair<float, float>> in;
    bool on_path = false, other = false;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      const std::string& v = n.inputs[i];
      if (v.empty()) continue;
      if (rearranges_values(n.op_type) && i > 0) continue;  // shapes
      const auto x = range_of(v);
      if (!x) { other = true; break; }
      on_path |= !g.is_constant(v);
      in.push_back(*x);
    }
    if (other || !on_path) continue;
    std::pair<float, float> y;
    const std::string& op = n.op_type;
    if (rearranges_values(op)) {
      y = in[0];
    } else if (op == "Sign") {
      y = {in[0].first < 0 ? -1.0f : in[0].first > 0 ? 1.0f : 0.0f, in[0].second < 0 ? -1.0f : in[0].second > 0 ? 1.0f : 0.0f};
    } else if (op == "Abs") {
      const float a = std::fabs(in[0].first), b = std::fabs(in[0].second);
      y = {in[0].first <= 0 && in[0].second >= 0 ? 0.0f : std::min(a, b), std::max(a, b)};
    } else if (op == "Neg") {
      y = {-in[0].second, -in[0].first};
    } else if ((op == "Add" || op == "Sub" || op == "Mul") && in.size() == 2) {
      const auto [a, b] = in[0];
      const auto [c, d] = in[1];
      if (op == "Add") y = {a + c, b + d};
      else if (op == "Sub") y = {a - d, b - c};
      else {
        const float p[] = {a * c, a * d, b * c, b * d};
        y = {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
      }
    } else {
      continue;
    }
    if (!std::isfinite(y.first) || !std::isfinite(y.second)) continue;
    r[n.outputs[0]] = y;
  }
  return r;
}

}  // namespace

std::vector<std::string> assign_quantization(Graph& g, const ValueRanges& ranges,
                                             const std::map<std::string, std::string>* why_unmeasured,
                                             const std::function<bool(const Node&)>& fp16_capable,
                                             std::vector<std::string>* in_fp16) {
  auto fp16 = [](const Node& n) { return n.get_string("precision", "") == "fp16"; };
  // NPU nodes touching a value calibration could not measure (after a node neither the FP32
  // evaluator nor the host runner could run) go to the CPU instead.
  auto no_range = [&](const std::string& v) {
    const std::string head = "int8 calibration has no range for '" + v + "': ";
    if (why_unmeasured) {
      const auto why = why_unmeasured->find(v);
      if (why != why_unmeasured->end()) return head + why->second;
    }
    return head + "no calibration run computed it";
  };
  // Integer values on the NPU (a gather's run-time indices) are not quantised.
  auto quantised = [&](const std::string& v) {
    return !v.empty() && !g.is_constant(v) && g.tensor(v).elem_type != kInt32 && g.tensor(v).elem_type != kInt64;
  };
  std::vector<std::string> unmeasured;
  for (auto& n : g.nodes) {
    if (n.device != Node::Device::Npu || fp16(n)) continue;
    std::vector<std::string> values;
    for (const auto& v : n.inputs) if (quantised(v)) values.push_back(v);
    for (const auto& v : n.outputs) if (!v.empty()) values.push_back(v);
    for (const char* key : {"acc_value", "act_value"}) if (n.has(key)) values.push_back(n.get_string(key, ""));
    auto finite = [](float x) { return std::isfinite(x); };
    for (const auto& v : values) {
      const auto r = ranges.find(v);
      if (r != ranges.end() && finite(r->second.first) && finite(r->second.second)) continue;
      if (r == ranges.end() && fp16_capable && fp16_capable(n)) {  // fp16 needs no range
        n.set_string("precision", "fp16");
        if (in_fp16) in_fp16->push_back(n.name);
        break;
      }
      n.device = Node::Device::Cpu;
      n.fallback_reason = r == ranges.end()
                              ? no_range(v)
                              : "int8 calibration saw NaN or infinity in '" + v + "': no int8 scale represents it";
      unmeasured.push_back(n.name);
      break;
    }
    if (n.device != Node::Device::Npu || fp16(n)) continue;
    for (const auto& c : n.inputs)  // weights and biases: quantised per channel
      if (!c.empty() && g.is_constant(c) && !all_finite(g.tensor(c).floats)) {
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
    if (n.device != Node::Device::Npu || fp16(n)) continue;
    for (const auto& v : n.inputs)
      if (quantised(v)) activations.insert(v);
    for (const auto& v : n.outputs)
      if (!v.empty()) activations.insert(v);
    // Data movement passes its parameters through unchanged (the bytes are the values), as do
    // pooling and the clamps that run in the integer domain.
    static const std::set<std::string> kSameParams = {"MaxPool", "AveragePool", "Resize",
                                                      "Upsample", "Relu", "Clip", "GlobalMaxPool",
                                                      "ReduceMax", "ReduceMin"};
    const bool moves = move_ops().count(n.op_type) != 0;
    if (kSameParams.count(n.op_type) || moves) {
      // Gather and Pad: only the data operand; Concat and ScatterElements (data and updates; its
      // constant indices are skipped): every operand.
      const std::size_t operands =
          n.op_type == "Concat" || n.op_type == "Where" || n.op_type == "ScatterElements" ? n.inputs.size() : 1;
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
  // A table's rows picked by run-time indices (token embeddings) may be any of its rows, not
  // only those the calibration inputs picked: its output covers the whole table.
  for (const auto& n : g.nodes)
    if (n.device == Node::Device::Npu && !fp16(n) && n.op_type == "Gather" && n.inputs.size() > 1 && g.is_constant(n.inputs[0]) &&
        !g.is_constant(n.inputs[1]) && !g.tensor(n.inputs[0]).floats.empty()) {
      const auto& table = g.tensor(n.inputs[0]).floats;
      const auto [lo, hi] = std::minmax_element(table.begin(), table.end());
      auto& r = group_range[find(n.outputs[0])];
      r = {std::min(r.first, *lo), std::max(r.second, *hi)};
    }
  // An attention mask the front end made float (integer_masks.cpp) is calibrated all ones, so
  // its path (1 - m, the masked fill) measures all zeros and int8 would mask no padded position.
  // Its values get the range interval arithmetic gives them from a mask in [0, 1], up to the
  // first layer that also reads another computed value (the scores, calibrated as they are).
  for (const auto& [v, r] : mask_path_ranges(g)) {
    if (!activations.count(v)) continue;
    auto& gr = group_range[find(v)];
    gr = {std::min(gr.first, r.first), std::max(gr.second, r.second)};
  }
  // Scores plus a mask read only by a softmax (or by another such sum: GPT-2 adds its causal
  // mask, then the padding mask): a mask value beyond -1e4 (a fill: float32's lowest, BERT's
  // -10000) has no place on the sum's int8 grid, which would otherwise step by 1.3e36 and flatten
  // every row of the softmax to uniform. The grid spans the scores' range above the masks' top
  // (at least 20 wide, so a fill saturating to its bottom weighs e^-20 against the row's largest
  // score).
  auto range_of = [&](const std::string& v) -> std::optional<std::pair<float, float>> {
    if (g.is_constant(v)) return constant_range(g, v);
    if (!activations.count(v)) return std::nullopt;
    return group_range[find(v)];
  };
  auto mask_like = [&](const std::string& v) {
    const auto r = range_of(v);
    return r && r->first <= -kMaskFillMagnitude && std::abs(r->second) < kMaskFillMagnitude;
  };
  auto masked_add = [&](const Node& n) {
    return n.device == Node::Device::Npu && !fp16(n) && n.op_type == "Add" && n.inputs.size() == 2 &&
           activations.count(n.outputs[0]) && !g.is_graph_output(n.outputs[0]) &&
           (mask_like(n.inputs[0]) || mask_like(n.inputs[1]));
  };
  for (const auto& n : g.nodes) {
    if (!masked_add(n)) continue;
    const auto readers = g.consumers(n.outputs[0]);
    if (readers.empty() || !std::all_of(readers.begin(), readers.end(), [&](int r) {
          const Node& reader = g.nodes[static_cast<std::size_t>(r)];
          return reader.op_type == "Softmax" || reader.op_type == "LogSoftmax" || masked_add(reader);
        }))
      continue;
    for (std::size_t k = 0; k < 2; ++k) {
      // The scores are computed (a sum before this one already has their range here); a constant
      // plus a mask (T5's zero position bias plus the encoder's mask) is a mask, and stays one.
      if (!mask_like(n.inputs[k]) || g.is_constant(n.inputs[1 - k])) continue;
      const auto mask = range_of(n.inputs[k]), scores = range_of(n.inputs[1 - k]);
      if (!scores || scores->first <= -kMaskFillMagnitude) continue;
      const float hi = scores->second + mask->second;
      group_range[find(n.outputs[0])] = {std::min(scores->first + mask->second, hi - 20.0f), hi};
      break;
    }
  }
  for (const auto& v : activations) {
    auto [lo, hi] = group_range[find(v)];
    g.tensor(v).quant = activation_params(lo, hi);
  }
  // A masked Where's output stays fp16 (no scale): -inf where masked has no int8 code.
  for (const auto& n : g.nodes)
    if (n.device == Node::Device::Npu && !fp16(n) && masked_where(g, n)) g.tensor(n.outputs[0]).quant = QuantParams{};
  for (auto& n : g.nodes) {
    if (n.device != Node::Device::Npu || fp16(n) || n.domain != "npusim") continue;
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

namespace {

// Channel maxima of |w| over runs of `inner` elements. Eight independent lanes per run (one
// running max is a serial chain of dependent compares); NaNs lose every comparison and are
// ignored, as std::max(m, NaN) ignores them. inner == 1 (a gemm's [K, N] weights, channel =
// column): row by row, each channel its own lane.
void channel_max_abs(const std::vector<float>& w, std::size_t inner, std::vector<float>& max_abs) {
  const std::size_t channels = max_abs.size(), n = w.size();
  float* m = max_abs.data();
  const float* d = w.data();
  if (inner == 1) {
    // Eight channels at a time in registers: updated in place through `m`, the loop would be a
    // load and a store per weight (the compiler cannot rule out `m` aliasing the weights).
    constexpr std::size_t kLanes = 8;
    std::size_t c0 = 0;
    for (; c0 + kLanes <= channels; c0 += kLanes) {
      float lanes[kLanes];
      for (std::size_t k = 0; k < kLanes; ++k) lanes[k] = m[c0 + k];
      for (std::size_t begin = c0; begin + kLanes <= n; begin += channels)
        for (std::size_t k = 0; k < kLanes; ++k) {
          const float a = std::fabs(d[begin + k]);
          lanes[k] = lanes[k] < a ? a : lanes[k];
        }
      for (std::size_t k = 0; k < kLanes; ++k) m[c0 + k] = lanes[k];
    }
    for (std::size_t begin = 0; begin < n; begin += channels)  // the last channels, a short last row
      for (std::size_t c = begin == n - n % channels ? 0 : c0; c < channels && begin + c < n; ++c) {
        const float a = std::fabs(d[begin + c]);
        m[c] = m[c] < a ? a : m[c];
      }
    return;
  }
  constexpr std::size_t kLanes = 8;
  std::size_t c = 0;
  for (std::size_t begin = 0; begin < n; begin += inner) {
    const std::size_t end = std::min(begin + inner, n);
    float lanes[kLanes] = {};
    std::size_t i = begin;
    for (; i + kLanes <= end; i += kLanes)
      for (std::size_t k = 0; k < kLanes; ++k) {
        const float a = std::fabs(d[i + k]);
        lanes[k] = lanes[k] < a ? a : lanes[k];
      }
    for (; i < end; ++i) {
      const float a = std::fabs(d[i]);
      lanes[0] = lanes[0] < a ? a : lanes[0];
    }
    for (float l : lanes) m[c] = m[c] < l ? l : m[c];
    if (++c == channels) c = 0;
  }
}

// clamp(lround(q), -127, 127) for q = w / scale with a normal scale of at least max|w| / 127,
// so |q| stays below 128 or q is NaN. std::lround is a library call per weight; this is the
// same rounding (half away from zero) without it: the fraction q - trunc(q) is exact, so
// comparing it with 0.5 decides exactly as lround does. NaN becomes -128 first, which clamps to
// -127 as lround's result for NaN does.
inline std::int8_t round_to_int8(float q) {
  q = q > -128.0f ? q : -128.0f;
  q = q < 128.0f ? q : 128.0f;
  const auto t = static_cast<std::int32_t>(q);
  const float frac = q - static_cast<float>(t);
  std::int32_t r = t + (frac >= 0.5f ? 1 : 0) - (frac <= -0.5f ? 1 : 0);
  r = r < -127 ? -127 : r;
  r = r > 127 ? 127 : r;
  return static_cast<std::int8_t>(r);
}

#if defined(__SSE2__)
// round_to_int8 on four quotients, before the final clamp. Written with SSE2 (every x86-64 has
// it) because GCC compiles the scalar selects to branches, which the fractions of real weights
// mispredict half the time: a quarter of the time per weight.
inline __m128i round4(__m128 q) {
  q = _mm_max_ps(q, _mm_set1_ps(-128.0f));  // maxps returns its second operand for NaN: -128
  q = _mm_min_ps(q, _mm_set1_ps(128.0f));
  const __m128i t = _mm_cvttps_epi32(q);
  const __m128 frac = _mm_sub_ps(q, _mm_cvtepi32_ps(t));
  const __m128i up = _mm_castps_si128(_mm_cmpge_ps(frac, _mm_set1_ps(0.5f)));     // -1 where true
  const __m128i down = _mm_castps_si128(_mm_cmple_ps(frac, _mm_set1_ps(-0.5f)));
  return _mm_add_epi32(_mm_sub_epi32(t, up), down);
}
#endif

// out[i] = round_to_int8(w[i] / scale[i * scale_step]) for i in [0, n): one scale (step 0) or
// one per element (step 1, a row of a gemm's [K, N] weights).
void round_run(const float* w, std::size_t n, const float* scale, std::size_t scale_step, std::int8_t* out) {
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i hi = _mm_set1_epi16(127), lo = _mm_set1_epi16(-127);
  const auto quotient = [&](std::size_t at) {
    return _mm_div_ps(_mm_loadu_ps(w + at), scale_step ? _mm_loadu_ps(scale + at) : _mm_set1_ps(*scale));
  };
  for (; i + 16 <= n; i += 16) {
    // Values in [-129, 129]: exact in int16, clamped there, then exact in int8.
    __m128i a = _mm_packs_epi32(round4(quotient(i)), round4(quotient(i + 4)));
    __m128i b = _mm_packs_epi32(round4(quotient(i + 8)), round4(quotient(i + 12)));
    a = _mm_min_epi16(_mm_max_epi16(a, lo), hi);
    b = _mm_min_epi16(_mm_max_epi16(b, lo), hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_packs_epi16(a, b));
  }
#endif
  for (; i < n; ++i) out[i] = round_to_int8(w[i] / scale[i * scale_step]);
}

// Scales round_to_int8 does not cover (0, subnormal, infinite: a channel of tiny or infinite
// weights) take lround itself, whatever it makes of the infinities they produce.
std::int8_t round_to_int8_any_scale(float w, float scale) {
  if (std::isnormal(scale)) return round_to_int8(w / scale);
  return static_cast<std::int8_t>(std::clamp<long>(std::lround(w / scale), -127, 127));
}

}  // namespace

QuantizedWeights quantize_weights(const std::vector<float>& w, std::int64_t channels, std::int64_t inner, int bits) {
  QuantizedWeights q;
  q.channel_scales.assign(static_cast<std::size_t>(channels), 0.0f);
  // Element i belongs to channel (i / inner) % channels: walked as runs of `inner` elements
  // with the channel counting round, so no division per element; until `body` says stop.
  const auto run = static_cast<std::size_t>(inner);
  const auto for_each_run = [&](auto&& body) {
    std::size_t c = 0;
    for (std::size_t begin = 0; begin < w.size(); begin += run) {
      if (!body(c, begin, std::min(begin + run, w.size()))) return;
      if (++c == q.channel_scales.size()) c = 0;
    }
  };
  channel_max_abs(w, run, q.channel_scales);
  // Weights already on an int8 grid (a QDQ model's, qdq_import.h) keep it: the integers the file
  // gives, where fresh scales would round them anew. The grid is max / k for k the largest
  // integer magnitude: 127, or 64 or 63 for ONNX Runtime's reduce_range (7-bit weights in
  // [-64, 63], its advice for x86 without VNNI); per tensor or per channel.
  auto on_grid = [](float v, float scale) {
    const float k = v / scale;
    return std::fabs(k - std::nearbyint(k)) < 1e-3f;
  };
  const std::vector<float> max_abs = q.channel_scales;
  const float tensor_max = *std::max_element(max_abs.begin(), max_abs.end());
  const float levels = bits == 4 ? 7.0f : 127.0f;
  for (auto& s : q.channel_scales) s = s > 0 ? s / levels : 1.0f;
  const bool keep_int8_grid = bits == 8;  // int4 weights are rounded afresh
  bool per_tensor_grid = false;
  constexpr float kGrids[] = {127.0f, 64.0f, 63.0f};
  for (float steps : kGrids) {
    if (!keep_int8_grid || per_tensor_grid || tensor_max <= 0 || channels <= 1) break;
    per_tensor_grid = std::all_of(w.begin(), w.end(), [&](float v) { return on_grid(v, tensor_max / steps); });
    if (per_tensor_grid) q.channel_scales.assign(q.channel_scales.size(), tensor_max / steps);
  }
  if (keep_int8_grid && !per_tensor_grid) {
    for (float steps : {kGrids[1], kGrids[2]}) {  // max / 127 is the default anyway
      std::vector<char> grid(max_abs.size(), 1);    // the channel is on its max / steps grid
      // Float weights leave every channel's grid within the first few weights of each: the scan
      // ends there instead of visiting every weight (a gemm's runs are single weights).
      std::size_t on_grid_channels = grid.size();
      for_each_run([&](std::size_t c, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end && grid[c]; ++i) {
          grid[c] = max_abs[c] > 0 && on_grid(w[i], max_abs[c] / steps);
          if (!grid[c]) --on_grid_channels;
        }
        return on_grid_channels > 0;
      });
      for (std::size_t c = 0; c < max_abs.size(); ++c)
        if (grid[c]) q.channel_scales[c] = max_abs[c] / steps;
    }
  }
  q.values.resize(w.size());
  std::int8_t* out = q.values.data();
  const float* d = w.data();
  const auto& scales = q.channel_scales;
  if (run == 1) {  // row by row: w[r * channels + c] / scale[c]
    const bool normal = std::all_of(scales.begin(), scales.end(), [](float s) { return std::isnormal(s); });
    for (std::size_t begin = 0; begin < w.size(); begin += scales.size()) {
      const std::size_t len = std::min(scales.size(), w.size() - begin);
      if (normal)
        round_run(d + begin, len, scales.data(), 1, out + begin);
      else
        for (std::size_t c = 0; c < len; ++c) out[begin + c] = round_to_int8_any_scale(d[begin + c], scales[c]);
    }
    return q;
  }
  for_each_run([&](std::size_t c, std::size_t begin, std::size_t end) {
    const float scale = scales[c];
    if (std::isnormal(scale))
      round_run(d + begin, end - begin, &scale, 0, out + begin);
    else
      for (std::size_t i = begin; i < end; ++i) out[i] = round_to_int8_any_scale(d[i], scale);
    return true;
  });
  return q;
}

}  // namespace npu::compiler
