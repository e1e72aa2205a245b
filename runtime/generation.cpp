#include "runtime/generation.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/engine.h"

namespace npu::runtime {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_integer(ElementType t) { return t == ElementType::Int64 || t == ElementType::Int32; }

std::string dims_text(const std::vector<std::int64_t>& shape) {
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

// The roles of one graph's inputs and outputs (generation.h).
struct Roles {
  std::string path;
  TensorDesc ids;
  std::optional<TensorDesc> positions, mask;
  std::vector<TensorDesc> past;  // float inputs, in order
  TensorDesc logits;
  std::vector<TensorDesc> present;  // outputs after the logits
};

Roles roles_of(const std::string& path, const std::string& what) {
  const OnnxModelInfo info = read_onnx_model_file_info(path);
  Roles r;
  r.path = path;
  std::vector<TensorDesc> ids;
  for (const auto& in : info.inputs) {
    if (!is_integer(in.dtype)) {
      r.past.push_back(in);
      continue;
    }
    const std::string name = lower(in.name);
    if (name.find("mask") != std::string::npos) r.mask = in;
    else if (name.find("position") != std::string::npos || name.find("pos_id") != std::string::npos) r.positions = in;
    else ids.push_back(in);
  }
  if (ids.size() != 1)
    throw std::runtime_error(fmt::format("{} graph {}: {} integer inputs that are not masks or positions; expected one, "
                                         "the token ids",
                                         what, path, ids.size()));
  r.ids = ids[0];
  if (r.ids.shape.size() != 2)
    throw std::runtime_error(fmt::format("{} graph {}: token ids '{}' are {}-D; expected [batch, tokens]", what, path,
                                         r.ids.name, r.ids.shape.size()));
  if (info.outputs.empty()) throw std::runtime_error(fmt::format("{} graph {}: no outputs", what, path));
  r.logits = info.outputs[0];
  r.present.assign(info.outputs.begin() + 1, info.outputs.end());
  return r;
}

// The cache axis of a past input: its dynamic axis, else the one its present output is one longer on.
std::size_t cache_axis(const Roles& decode, std::size_t i) {
  const TensorDesc& past = decode.past[i];
  for (std::size_t a = past.shape.size(); a-- > 1;)
    if (past.shape[a] < 0) return a;
  const TensorDesc& present = decode.present[i];
  if (present.shape.size() == past.shape.size())
    for (std::size_t a = 1; a < past.shape.size(); ++a)
      if (present.shape[a] == past.shape[a] + 1) return a;
  throw std::runtime_error(fmt::format("decode graph {}: cannot tell the cache axis of past input '{}' ({}): no "
                                       "dynamic axis, and its present output '{}' is not one longer on any axis",
                                       decode.path, past.name, dims_text(past.shape), present.name));
}

std::vector<std::int64_t> with_axis(std::vector<std::int64_t> shape, std::size_t axis, std::int64_t value) {
  shape[axis] = value;
  for (auto& d : shape)
    if (d < 0) d = 1;  // a dynamic batch
  return shape;
}

std::string shape_arg(const std::string& name, const std::vector<std::int64_t>& shape) {
  return name + "=" + dims_text(shape);
}

HostTensor integer_tensor(ElementType dtype, std::vector<std::int64_t> shape, const std::vector<std::int64_t>& values) {
  HostTensor t = make_host_tensor(dtype, std::move(shape));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (dtype == ElementType::Int64) {
      std::memcpy(t.bytes.data() + 8 * i, &values[i], 8);
    } else {
      const auto v = static_cast<std::int32_t>(values[i]);
      std::memcpy(t.bytes.data() + 4 * i, &v, 4);
    }
  }
  return t;
}

std::vector<std::int64_t> iota(std::int64_t first, std::int64_t count) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) v[static_cast<std::size_t>(i)] = first + i;
  return v;
}

// The k largest values of the last row of float32 logits, largest first (ties: the lower token).
std::vector<std::pair<std::int64_t, float>> last_row_top(const HostTensor& logits, std::int64_t vocabulary, std::size_t k) {
  if (logits.dtype != ElementType::Float32 || vocabulary <= 0 ||
      logits.bytes.size() < static_cast<std::size_t>(vocabulary) * 4)
    throw std::runtime_error("generation: the logits are not float32 rows of the vocabulary");
  const std::size_t n = logits.bytes.size() / 4, first = n - static_cast<std::size_t>(vocabulary);
  std::vector<std::pair<std::int64_t, float>> row;
  for (std::size_t i = first; i < n; ++i) {
    float v;
    std::memcpy(&v, logits.bytes.data() + 4 * i, 4);
    row.emplace_back(static_cast<std::int64_t>(i - first), v);
  }
  k = std::min(k, row.size());
  std::partial_sort(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(k), row.end(), [](const auto& a, const auto& b) {
    return a.second > b.second || (a.second == b.second && a.first < b.first);
  });
  row.resize(k);
  return row;
}

std::uint64_t constant_bytes(const isa::Program& program) {
  std::uint64_t bytes = 0;
  for (const auto& d : program.data) bytes += d.bytes.size();
  return bytes;
}

// The past K/V as the NPU stores it (int8 or fp16); as the host holds it when a CPU step reads it.
std::uint64_t stored_bytes(const isa::Program& program, const TensorDesc& past, const std::vector<std::int64_t>& shape) {
  std::uint64_t elements = 1;
  for (auto d : shape) elements *= static_cast<std::uint64_t>(d);
  for (const auto& t : program.tensors)
    if (t.name == past.name) return t.size_bytes;
  return elements * element_bytes(past.dtype);
}

}  // namespace

double GenerationResult::time_to_first_token_us() const { return steps.empty() ? 0.0 : steps.front().latency_us; }

double GenerationResult::decode_us() const {
  double us = 0;
  for (const auto& s : steps)
    if (s.phase == "decode") us += s.latency_us;
  return us;
}

double GenerationResult::tokens_per_second() const {
  const auto decode_steps = std::count_if(steps.begin(), steps.end(), [](const GenerationStep& s) { return s.phase == "decode"; });
  return decode_us() > 0 ? static_cast<double>(decode_steps) * 1e6 / decode_us() : 0.0;
}

double GenerationResult::energy_per_token_uj() const {
  double uj = 0;
  int n = 0;
  for (const auto& s : steps) {
    if (s.phase != "decode") continue;
    if (s.energy_uj < 0) return -1;
    uj += s.energy_uj;
    ++n;
  }
  return n ? uj / n : -1;
}

GenerationResult generate(const std::string& prefill_path, const std::string& decode_path, const HardwareConfig& config,
                          const compiler::CompileOptions& options, const GenerationOptions& generation) {
  if (generation.tokens < 1) throw std::runtime_error(fmt::format("--tokens: must be at least 1 (got {})", generation.tokens));
  if (generation.prompt < 0) throw std::runtime_error(fmt::format("--prompt: must be at least 1 (got {})", generation.prompt));
  const Roles prefill = roles_of(prefill_path, "prefill");
  const Roles decode = roles_of(decode_path, "decode");
  if (decode.past.empty())
    throw std::runtime_error(fmt::format("decode graph {}: no past K/V input (a float input), so it has no cache to extend",
                                         decode_path));
  if (decode.past.size() != decode.present.size())
    throw std::runtime_error(fmt::format("decode graph {}: {} past K/V inputs but {} present outputs after the logits",
                                         decode_path, decode.past.size(), decode.present.size()));
  if (decode.past.size() != prefill.present.size())
    throw std::runtime_error(fmt::format("decode graph {} has {} past K/V inputs; prefill graph {} gives {} present outputs",
                                         decode_path, decode.past.size(), prefill_path, prefill.present.size()));

  GenerationResult result;
  result.prefill_model = prefill_path;
  result.decode_model = decode_path;
  result.precision = container::precision_name(options.precision);
  result.timing_only = generation.timing_only;
  result.ddr_gbps = config.ddr.bandwidth_gbps;

  // The prompt length: the prefill graph's, or --prompt for a dynamic one.
  const std::int64_t fixed_prompt = prefill.ids.shape[1];
  if (fixed_prompt < 0 && generation.prompt == 0)
    throw std::runtime_error(fmt::format("prefill graph {}: its prompt length ('{}' axis 1) is dynamic: give --prompt N",
                                         prefill_path, prefill.ids.name));
  if (fixed_prompt > 0 && generation.prompt > 0 && generation.prompt != fixed_prompt)
    throw std::runtime_error(fmt::format("prefill graph {}: its prompt is fixed at {} tokens ('{}'), not --prompt {}",
                                         prefill_path, fixed_prompt, prefill.ids.name, generation.prompt));
  const std::int64_t prompt = fixed_prompt > 0 ? fixed_prompt : generation.prompt;
  result.prompt = static_cast<int>(prompt);
  const std::int64_t vocabulary = prefill.logits.shape.empty() ? -1 : prefill.logits.shape.back();
  result.vocabulary = static_cast<int>(vocabulary);
  if (vocabulary <= 0)
    throw std::runtime_error(fmt::format("prefill graph {}: the logits '{}' have no fixed vocabulary axis (last)",
                                         prefill_path, prefill.logits.name));

  // Every step's past length must be one the decode graph takes.
  std::vector<std::size_t> axes;
  for (std::size_t i = 0; i < decode.past.size(); ++i) axes.push_back(cache_axis(decode, i));
  for (int step = 0; step < generation.tokens; ++step) {
    const std::int64_t past = prompt + step;
    for (std::size_t i = 0; i < decode.past.size(); ++i) {
      const std::int64_t fixed = decode.past[i].shape[axes[i]];
      if (fixed >= 0 && fixed != past)
        throw std::runtime_error(fmt::format(
            "decode graph {}: its past length is fixed at {} ('{}' axis {}), but {}: export it with a dynamic past axis{}",
            decode_path, fixed, decode.past[i].name, axes[i],
            step == 0 ? fmt::format("after the {}-token prompt the cache holds {}", prompt, past)
                      : fmt::format("decode step {} reads a cache of {}", step + 1, past),
            step == 0 ? fmt::format(", or give a {}-token prompt", fixed) : std::string(", or generate one token (--tokens 1)")));
    }
  }

  PlaceOptions place;
  place.device = generation.device;
  auto compile_with = [&](const std::string& path, std::vector<std::string> shapes) {
    compiler::CompileOptions o = options;
    o.input_shapes.insert(o.input_shapes.end(), shapes.begin(), shapes.end());
    return Engine(compile_model(path, config, o), config, place);
  };
  auto dynamic_shape = [](const TensorDesc& d, std::vector<std::int64_t> shape, std::vector<std::string>& args) {
    if (std::any_of(d.shape.begin(), d.shape.end(), [](std::int64_t x) { return x < 0; })) args.push_back(shape_arg(d.name, shape));
  };

  std::mt19937_64 rng(generation.seed);
  std::uniform_int_distribution<std::int64_t> token_dist(0, vocabulary - 1);

  // Prefill.
  std::vector<std::string> prefill_shapes;
  dynamic_shape(prefill.ids, {1, prompt}, prefill_shapes);
  if (prefill.positions) dynamic_shape(*prefill.positions, {1, prompt}, prefill_shapes);
  if (prefill.mask) dynamic_shape(*prefill.mask, {1, prompt}, prefill_shapes);
  Engine prefill_engine = compile_with(prefill_path, prefill_shapes);
  RunRequest request;
  request.timing_only = generation.timing_only;
  request.seed = generation.seed;
  if (!generation.timing_only) {
    for (std::int64_t i = 0; i < prompt; ++i) result.prompt_ids.push_back(token_dist(rng));
    request.inputs[prefill.ids.name] = integer_tensor(prefill.ids.dtype, {1, prompt}, result.prompt_ids);
    if (prefill.positions) request.inputs[prefill.positions->name] = integer_tensor(prefill.positions->dtype, {1, prompt}, iota(0, prompt));
    if (prefill.mask) request.inputs[prefill.mask->name] = integer_tensor(prefill.mask->dtype, {1, prompt}, std::vector<std::int64_t>(static_cast<std::size_t>(prompt), 1));
  }
  auto record_step = [&](const std::string& phase, std::int64_t past, std::int64_t tokens, const Engine& engine,
                         const RunResult& run, std::uint64_t kv_bytes) {
    GenerationStep s;
    s.phase = phase;
    s.past = static_cast<int>(past);
    s.new_tokens = static_cast<int>(tokens);
    s.latency_us = run.record.latency_us();
    s.npu_us = run.record.npu.latency_us;
    s.cycles = run.record.npu.cycles;
    s.weight_bytes = constant_bytes(engine.compiled().program);
    s.kv_bytes = kv_bytes;
    s.bound_us = static_cast<double>(s.weight_bytes + s.kv_bytes) / (config.ddr.bandwidth_gbps * 1e3);
    s.energy_uj = run.record.npu.energy ? run.record.npu.energy->total_uj : -1.0;
    if (!run.outputs.empty()) {
      s.top = last_row_top(run.outputs.front().second, vocabulary, 5);
      s.token = s.top.front().first;
    }
    result.steps.push_back(s);
  };
  RunResult run = prefill_engine.run(request);
  record_step("prefill", 0, prompt, prefill_engine, run, 0);

  // Decode steps: the present K/V of each step is the next one's past.
  std::vector<HostTensor> cache;
  for (std::size_t i = 1; i < run.outputs.size(); ++i) cache.push_back(std::move(run.outputs[i].second));
  for (int step = 0; step < generation.tokens; ++step) {
    const std::int64_t past = prompt + step;
    std::vector<std::string> shapes;
    dynamic_shape(decode.ids, {1, 1}, shapes);
    if (decode.positions) dynamic_shape(*decode.positions, {1, 1}, shapes);
    if (decode.mask) dynamic_shape(*decode.mask, {1, past + 1}, shapes);
    std::vector<std::vector<std::int64_t>> past_shapes;
    for (std::size_t i = 0; i < decode.past.size(); ++i) {
      past_shapes.push_back(with_axis(decode.past[i].shape, axes[i], past));
      dynamic_shape(decode.past[i], past_shapes.back(), shapes);
    }
    Engine engine = [&] {
      try {
        return compile_with(decode_path, shapes);
      } catch (const std::exception& e) {  // e.g. a position table shorter than the cache
        throw std::runtime_error(fmt::format("decode step {} (a cache of {} entries): {}", step + 1, past, e.what()));
      }
    }();
    std::uint64_t kv_bytes = 0;
    for (std::size_t i = 0; i < decode.past.size(); ++i) kv_bytes += stored_bytes(engine.compiled().program, decode.past[i], past_shapes[i]);
    if (step == 0) {
      // The cache at its longest (past and present of the last step) beside the weights.
      const std::int64_t last = prompt + generation.tokens - 1;
      std::uint64_t longest = 0;
      for (std::size_t i = 0; i < decode.past.size(); ++i) {
        std::uint64_t per_entry = stored_bytes(engine.compiled().program, decode.past[i], past_shapes[i]) / static_cast<std::uint64_t>(std::max<std::int64_t>(past, 1));
        longest += per_entry * static_cast<std::uint64_t>(2 * last + 1);
      }
      const std::uint64_t weights = constant_bytes(engine.compiled().program);
      if (weights + longest > config.ddr.capacity_bytes)
        throw std::runtime_error(fmt::format(
            "decode graph {}: after {} tokens the K/V cache takes {} bytes (past and present) beside {} bytes of weights, "
            "more than the config's DDR ({} bytes): generate fewer tokens or give the config more DDR",
            decode_path, last + 1, longest, weights, config.ddr.capacity_bytes));
    }
    RunRequest step_request;
    step_request.timing_only = generation.timing_only;
    step_request.seed = generation.seed + static_cast<std::uint64_t>(step) + 1;
    if (!generation.timing_only) {
      const std::int64_t token = result.steps.back().token;
      step_request.inputs[decode.ids.name] = integer_tensor(decode.ids.dtype, {1, 1}, {token});
      if (decode.positions) step_request.inputs[decode.positions->name] = integer_tensor(decode.positions->dtype, {1, 1}, {past});
      if (decode.mask) step_request.inputs[decode.mask->name] = integer_tensor(decode.mask->dtype, {1, past + 1}, std::vector<std::int64_t>(static_cast<std::size_t>(past + 1), 1));
      for (std::size_t i = 0; i < decode.past.size(); ++i) {
        if (cache[i].shape != past_shapes[i])
          throw std::runtime_error(fmt::format("decode step {}: present output '{}' is {}, the decode graph's past input '{}' "
                                               "takes {}",
                                               step + 1, (step == 0 ? prefill.present : decode.present)[i].name,
                                               dims_text(cache[i].shape), decode.past[i].name, dims_text(past_shapes[i])));
        step_request.inputs[decode.past[i].name] = std::move(cache[i]);
      }
    }
    RunResult decoded = engine.run(step_request);
    record_step("decode", past, 1, engine, decoded, kv_bytes);
    cache.clear();
    for (std::size_t i = 1; i < decoded.outputs.size(); ++i) cache.push_back(std::move(decoded.outputs[i].second));
  }
  if (std::any_of(decode.past.begin(), decode.past.end(), [](const TensorDesc& d) {
        return std::any_of(d.shape.begin(), d.shape.end(), [](std::int64_t x) { return x < 0; });
      }))
    result.notes.push_back(fmt::format("the decode graph was compiled once per cache length ({} to {})", prompt,
                                       prompt + generation.tokens - 1));
  if (generation.timing_only)
    result.notes.push_back("timing only: the inputs are generated, no token is chosen (the cycles are a functional run's)");
  return result;
}

}  // namespace npu::runtime
