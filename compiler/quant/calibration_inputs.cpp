// Calibration samples from --calib DIR, checked against the model's inputs (name, shape, element
// type) with one line naming the file when they do not fit; generated samples without it: N(0,1)
// for float inputs, valid values for integer ones (integer_input_values).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <regex>
#include <set>

#include "compiler/quant/quantize.h"
#include "container/npy_file.h"
#include "isa/fp16.h"

namespace npu::compiler {
namespace fs = std::filesystem;

namespace {

constexpr int kGeneratedSamples = 2;
constexpr std::size_t kMaxSamples = 256;

bool float_elem(int t) { return t == kFloat || t == kFloat16 || t == kDouble; }

std::string dtype_kind(const std::string& d) {
  if (d == "f2" || d == "f4" || d == "f8") return "float";
  if (d == "i1" || d == "i2" || d == "i4" || d == "i8" || d == "u1" || d == "u2" || d == "u4" || d == "u8" || d == "b1")
    return "integer";
  return "";
}

std::vector<float> as_floats(const container::NpyArray& a, const std::string& path) {
  const std::size_t n = a.element_count();
  std::vector<float> out(n);
  auto load = [&](auto sample) {
    using T = decltype(sample);
    for (std::size_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, a.data.data() + i * sizeof(T), sizeof(T));
      out[i] = static_cast<float>(v);
    }
  };
  const std::string& d = a.dtype;
  if (d == "f4") load(float{});
  else if (d == "f8") load(double{});
  else if (d == "i8") load(std::int64_t{});
  else if (d == "i4") load(std::int32_t{});
  else if (d == "i2") load(std::int16_t{});
  else if (d == "i1") load(std::int8_t{});
  else if (d == "u1" || d == "b1") load(std::uint8_t{});
  else if (d == "u2") load(std::uint16_t{});
  else if (d == "u4") load(std::uint32_t{});
  else if (d == "u8") load(std::uint64_t{});
  else if (d == "f2")
    for (std::size_t i = 0; i < n; ++i) {
      std::uint16_t h;
      std::memcpy(&h, a.data.data() + i * 2, 2);
      out[i] = isa::half_to_float(h);
    }
  else
    throw CompileError(path + ": dtype '" + d + "' is not supported");
  return out;
}

// One file as samples of `input`: its exact shape, the shape without the leading batch 1, or
// [N, ...] with N samples of a batch-1 input.
// integer_valued: an integer input the front end made float (Graph::integer_valued_inputs, an
// attention mask): the user's files hold it as integers, as the model declares it.
std::vector<FloatTensor> read_samples(const fs::path& file, const Tensor& input, bool integer_valued) {
  const std::string path = file.string();
  container::NpyArray a;
  try {
    a = container::read_npy(path);
  } catch (const std::exception& e) {
    throw CompileError(e.what());
  }
  const std::string kind = dtype_kind(a.dtype);
  const std::string want = float_elem(input.elem_type) && !integer_valued ? "float" : "integer";
  if (kind != want && !(integer_valued && kind == "float"))
    throw CompileError(path + ": dtype '" + a.dtype + "' does not fit input '" + input.name + "' (" +
                       elem_type_name(input.elem_type) + "; expected " + want + " data)");
  const auto& shape = input.shape;
  std::vector<std::int64_t> inner(shape.begin() + (shape.empty() ? 0 : 1), shape.end());
  std::size_t samples = 0;
  if (a.shape == shape) {
    samples = 1;
  } else if (!shape.empty() && shape[0] == 1 && a.shape == inner) {
    samples = 1;
  } else if (!shape.empty() && shape[0] == 1 && a.shape.size() == shape.size() && a.shape[0] > 1 &&
             std::equal(a.shape.begin() + 1, a.shape.end(), shape.begin() + 1)) {
    samples = static_cast<std::size_t>(a.shape[0]);
  } else {
    throw CompileError(path + ": shape " + shape_string(a.shape) + " does not fit input '" + input.name + "' of shape " +
                       shape_string(shape));
  }
  std::vector<float> all = as_floats(a, path);
  std::vector<FloatTensor> out(samples);
  const std::size_t per = all.size() / samples;
  for (std::size_t s = 0; s < samples; ++s) {
    out[s].shape = shape;
    out[s].data.assign(all.begin() + static_cast<long>(s * per), all.begin() + static_cast<long>((s + 1) * per));
  }
  return out;
}

// Ops that hand an integer value's elements on unchanged (some of them, rearranged): token ids
// reach their Gather through these (a Reshape, a Cast to int32, a slice of the last token).
// (A Clip passes ids on too: one clipping ids into a table, frontend/one_hot_gather.cpp, sends
// the others to a row every id in the table's range reaches as well.)
bool passes_values_on(const Node& n, std::size_t input) {
  static const std::set<std::string> kMoves = {"Cast", "Reshape", "Unsqueeze", "Squeeze", "Flatten", "Identity",
                                               "Expand", "Slice", "Transpose", "Tile", "Concat", "Clip"};
  return (kMoves.count(n.op_type) && (input == 0 || n.op_type == "Concat")) || (n.op_type == "Gather" && input == 0);
}

// An integer scalar constant, if `name` is one.
bool integer_scalar(const Graph& g, const std::string& name, std::int64_t& value) {
  if (name.empty() || !g.is_constant(name)) return false;
  const Tensor& t = g.tensor(name);
  if (t.elements() != 1 || t.ints.size() != 1) return false;
  value = t.ints[0];
  return true;
}

std::string input_list(const Graph& g) {
  std::string s;
  for (const auto& in : g.inputs) s += (s.empty() ? "'" : ", '") + in + "'";
  return s;
}

}  // namespace

IntegerInputValues integer_input_values(const Graph& g, const std::string& input) {
  IntegerInputValues values;
  // A quantised input (TFLite's full-integer models, QDQ models with int8 inputs): any value of
  // its type is an image or a feature the DequantizeLinear reading it scales.
  const int type = g.tensor(input).elem_type;
  if (type == kInt8 || type == kUint8 || type == kInt16)
    for (int c : g.consumers(input))
      if (g.nodes[static_cast<std::size_t>(c)].op_type == "DequantizeLinear" && g.nodes[static_cast<std::size_t>(c)].inputs[0] == input) {
        values.lo = type == kInt8 ? -128 : type == kInt16 ? -32768 : 0;
        values.hi = values.lo + (type == kInt16 ? 65536 : 256);
        values.why = std::string("uniform over ") + elem_type_name(type) + " (the DequantizeLinear '" +
                     g.nodes[static_cast<std::size_t>(c)].name + "' scales it)";
        return values;
      }
  // Follows the input's values forward, `offset` added on the way (OPT's positions + 2), to every
  // Gather that uses them as indices; the ids must then index each table: lo <= id < hi.
  std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  std::vector<std::pair<std::string, std::int64_t>> pending = {{input, 0}};
  std::set<std::string> seen;
  std::string first_table;
  while (!pending.empty()) {
    const auto [value, offset] = pending.back();
    pending.pop_back();
    if (!seen.insert(value).second) continue;
    for (int c : g.consumers(value)) {
      const Node& n = g.nodes[static_cast<std::size_t>(c)];
      for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        if (n.inputs[i] != value || n.outputs.empty()) continue;
        std::int64_t constant = 0;
        if (n.op_type == "Gather" && i == 1 && g.has_tensor(n.inputs[0]) && g.tensor(n.inputs[0]).shape_known) {
          const auto& table = g.tensor(n.inputs[0]).shape;
          std::int64_t axis = n.get_int("axis", 0);
          if (axis < 0) axis += static_cast<std::int64_t>(table.size());
          if (axis < 0 || axis >= static_cast<std::int64_t>(table.size())) continue;
          lo = std::max(lo, -offset);
          hi = std::min(hi, table[static_cast<std::size_t>(axis)] - offset);
          if (first_table.empty()) first_table = n.name;
        } else if (passes_values_on(n, i)) {
          pending.emplace_back(n.outputs[0], offset);
        } else if ((n.op_type == "Add" || n.op_type == "Sub") && n.inputs.size() == 2 && i == 0 &&
                   integer_scalar(g, n.inputs[1], constant)) {
          pending.emplace_back(n.outputs[0], n.op_type == "Add" ? offset + constant : offset - constant);
        } else if (n.op_type == "Add" && n.inputs.size() == 2 && i == 1 && integer_scalar(g, n.inputs[0], constant)) {
          pending.emplace_back(n.outputs[0], offset + constant);
        }
      }
    }
  }
  if (first_table.empty() || lo >= hi) {
    values.why = first_table.empty() ? "all ones (indexes no table: a mask or a flag)"
                                     : "all ones (the tables its values index leave no common range)";
    return values;
  }
  values.lo = lo;
  values.hi = hi;
  values.why = "uniform in [" + std::to_string(lo) + ", " + std::to_string(hi) + ") (the rows of the table '" +
               first_table + "' indexes)";
  return values;
}

std::vector<TensorMap> calibration_inputs(const Graph& g, const CompileOptions& options,
                                          std::vector<std::string>& warnings) {
  std::vector<TensorMap> samples;
  const std::string& dir = options.calibration_dir;
  if (!dir.empty()) {
    if (!fs::is_directory(dir)) throw CompileError(dir + ": calibration directory does not exist");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".npy") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    if (files.empty())
      throw CompileError(dir + ": no .npy calibration files (expected <input>.npy or <input>_N.npy for input " +
                         input_list(g) + ")");
    // sample key -> input -> tensors (a file may hold several samples)
    std::map<std::string, std::map<std::string, std::vector<FloatTensor>>> by_key;
    std::vector<bool> used(files.size(), false);
    for (const auto& in : g.inputs) {
      std::regex pattern(std::regex_replace(in, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") + R"((_(\d+))?\.npy)");
      for (std::size_t f = 0; f < files.size(); ++f) {
        std::smatch m;
        const std::string name = files[f].filename().string();
        if (!std::regex_match(name, m, pattern)) continue;
        by_key[m[2].str()][in] = read_samples(files[f], g.tensor(in), g.integer_valued_inputs.count(in) != 0);
        used[f] = true;
      }
    }
    for (std::size_t f = 0; f < files.size(); ++f) {
      if (used[f]) continue;
      if (g.inputs.size() != 1)
        throw CompileError(files[f].string() + ": file name matches no model input (expected <input>.npy or <input>_N.npy for " +
                           input_list(g) + ")");
      by_key[files[f].filename().string()][g.inputs[0]] = read_samples(files[f], g.tensor(g.inputs[0]), g.integer_valued_inputs.count(g.inputs[0]) != 0);
    }
    for (auto& [key, per_input] : by_key) {
      std::size_t count = 0;
      for (const auto& in : g.inputs) {
        auto it = per_input.find(in);
        if (it == per_input.end())
          throw CompileError(dir + ": sample '" + key + "' has no file for input '" + in + "'");
        if (count && it->second.size() != count)
          throw CompileError(dir + ": sample '" + key + "' holds " + std::to_string(it->second.size()) + " samples for input '" +
                             in + "' but " + std::to_string(count) + " for another input");
        count = it->second.size();
      }
      for (std::size_t s = 0; s < count && samples.size() < kMaxSamples; ++s) {
        TensorMap sample;
        for (auto& [in, tensors] : per_input) sample[in] = std::move(tensors[s]);
        samples.push_back(std::move(sample));
      }
    }
    if (samples.size() == kMaxSamples)
      warnings.push_back(dir + ": calibrated on the first " + std::to_string(kMaxSamples) + " samples");
    return samples;
  }
  // Integer inputs need values the model accepts: an N(0,1) token id indexes no table row, and
  // calibration would measure nothing after the embedding.
  std::map<std::string, IntegerInputValues> integer_values;
  std::string integer_text;
  for (const auto& in : g.inputs) {
    if (float_elem(g.tensor(in).elem_type) && !g.integer_valued_inputs.count(in)) continue;
    integer_values[in] = integer_input_values(g, in);
    // An attention mask the front end made float (integer_masks.cpp): its path's int8 ranges
    // are a mask's in [0, 1] (quantize.cpp), not these samples'.
    if (g.integer_valued_inputs.count(in))
      integer_values[in].why += " (an attention mask on the NPU: its path quantised for values 0 and 1)";
    integer_text += "; integer input '" + in + "': " + integer_values[in].why;
  }
  warnings.push_back("INT8 calibrated on " + std::to_string(kGeneratedSamples) +
                     " generated N(0,1) inputs, not real data: pass --calib DIR of .npy files for "
                     "representative activation ranges" + integer_text);
  std::mt19937 rng(12345);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (int s = 0; s < kGeneratedSamples; ++s) {
    TensorMap sample;
    for (const auto& in : g.inputs) {
      FloatTensor t;
      t.shape = g.tensor(in).shape;
      t.data.resize(static_cast<std::size_t>(t.elements()));
      const auto integer = integer_values.find(in);
      if (integer == integer_values.end()) {
        for (auto& v : t.data) v = dist(rng);
      } else {
        std::uniform_int_distribution<std::int64_t> ids(integer->second.lo, integer->second.hi - 1);
        for (auto& v : t.data) v = static_cast<float>(ids(rng));
      }
      sample[in] = std::move(t);
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

}  // namespace npu::compiler
