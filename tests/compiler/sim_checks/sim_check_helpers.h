// What the compiler-on-simulator checks share: program tensors by name, preset paths, and host
// NCHW floats as the NHWC fp16 bytes an FP16 program reads.
#pragma once
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "compiler/pipeline.h"
#include "compiler/reference/float_evaluator.h"
#include "container/compiled_model.h"
#include "hwconfig/hardware_config.h"
#include "isa/fp16.h"
#include "isa/program.h"
#include "sim/simulator.h"
#include "tests/compiler/test_graphs.h"
#include "tests/support/integer_reference.h"

// A model the build generates (tests/compiler/CMakeLists.txt): missing is a failure, not a
// check skipped.
#define REQUIRE_MODEL(path)                                                                       \
  do {                                                                                            \
    if (!std::ifstream(path)) FAIL((path) << " missing: the build generates it with scripts/make_models.py"); \
  } while (0)

namespace npu::compiler::sim_checks {

inline const isa::TensorEntry& entry(const isa::Program& p, const std::string& name) {
  for (const auto& t : p.tensors)
    if (t.name == name) return t;
  throw std::runtime_error("no tensor " + name);
}

inline std::string config_path(const std::string& name) {
  return std::string(NPUSIM_SOURCE_DIR) + "/configs/" + name;
}

inline std::vector<std::uint8_t> nhwc_fp16(const FloatTensor& x) {
  const std::int64_t C = x.shape[1], H = x.shape[2], W = x.shape[3];
  std::vector<std::uint8_t> bytes;
  bytes.reserve(static_cast<std::size_t>(C * H * W * 2));
  for (std::int64_t h = 0; h < H; ++h)
    for (std::int64_t w = 0; w < W; ++w)
      for (std::int64_t c = 0; c < C; ++c) {
        const std::uint16_t v = isa::float_to_half(x.data[(c * H + h) * W + w]);
        bytes.push_back(static_cast<std::uint8_t>(v & 0xff));
        bytes.push_back(static_cast<std::uint8_t>(v >> 8));
      }
  return bytes;
}

inline const isa::TensorEntry* find_entry(const isa::Program& p, const std::string& name) {
  for (const auto& t : p.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

// Runs every NPU step of a compiled model on the simulator, each as the runtime runs it (its
// engine streams on their engines), over one DDR image; the cycles of all steps.
inline std::uint64_t simulate_steps(const CompiledModel& m, const HardwareConfig& config, sim::DdrImage& ddr,
                                    const sim::SimOptions& options = {}) {
  std::uint64_t cycles = 0;
  for (const auto& step : m.steps)
    if (step.kind == container::Step::Kind::Npu)
      cycles += sim::simulate(container::step_program(m.program, step.npu), config, ddr, options).cycles;
  return cycles;
}

// Runs an FP16 program's NPU steps on `x` (written to its first model input as NHWC fp16) and
// returns its first model output as floats, in the NPU's order (NHWC for 4-D outputs).
inline std::vector<float> simulate_fp16(const CompiledModel& m, const HardwareConfig& config, const FloatTensor& x) {
  sim::DdrImage ddr;
  ddr.place(m.program);
  const auto bytes = nhwc_fp16(x);
  const isa::TensorEntry& in = entry(m.program, m.model_inputs[0]);
  REQUIRE(bytes.size() == in.size_bytes);
  ddr.write(in.ddr_addr, bytes.data(), bytes.size());
  simulate_steps(m, config, ddr);
  const isa::TensorEntry& out = entry(m.program, m.model_outputs[0]);
  std::vector<std::uint8_t> raw(out.size_bytes);
  ddr.read(out.ddr_addr, raw.data(), raw.size());
  std::vector<float> values(raw.size() / 2);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = isa::half_to_float(static_cast<std::uint16_t>(raw[2 * i] | (raw[2 * i + 1] << 8)));
  return values;
}

// How check_bit_exact compiles: the preset's scratchpad replaced (sram_kib not 0), several
// engines (engines > 1) and how layers share them.
struct BitExactSetup {
  std::uint64_t sram_kib = 0;
  int engines = 0;  // 0: the preset's
  EngineSplitMode split = EngineSplitMode::Auto;
};

// Random INT8 inputs (seeded from `seed` up), quantised as the graph's inputs and written to
// where `m`'s program expects them in `ddr`; returns them for the integer reference.
inline Int8Values write_random_inputs(const Graph& g, const CompiledModel& m, sim::DdrImage& ddr, unsigned seed) {
  Int8Values inputs;
  for (const auto& name : g.inputs) {
    const isa::TensorEntry* e = find_entry(m.program, name);
    REQUIRE(e);
    const Tensor& t = g.tensor(name);
    auto bytes = quantize_in_order(testing::random_tensor(t.shape, seed++), t.quant, t.order);
    const auto strides = isa::strided_layout_strides(e->layout);
    if (strides.empty()) {
      REQUIRE(bytes.size() == e->size_bytes);
      ddr.write(e->ddr_addr, bytes.data(), bytes.size());
    } else {  // a view inside another value (a KV cache written in place): element by element
      REQUIRE(strides.size() == t.shape.size());
      std::vector<std::int64_t> index(t.shape.size(), 0);
      for (std::size_t i = 0; i < bytes.size(); ++i) {
        std::int64_t at = 0;
        for (std::size_t a = 0; a < index.size(); ++a) at += index[a] * strides[a];
        REQUIRE(static_cast<std::uint64_t>(at) < e->size_bytes);
        ddr.write(e->ddr_addr + static_cast<std::uint64_t>(at), &bytes[i], 1);
        for (std::size_t a = index.size(); a-- > 0;) {
          if (++index[a] < t.shape[a]) break;
          index[a] = 0;
        }
      }
    }
    inputs[name] = std::move(bytes);
  }
  return inputs;
}

// Every model output of `m` in `ddr` (after a simulation) equals the integer reference's bytes.
inline void check_outputs_equal(const CompiledModel& m, const sim::DdrImage& ddr, const Int8Values& expected) {
  for (const std::string& out : m.model_outputs) {
    INFO(out);
    const isa::TensorEntry& e = entry(m.program, out);
    const auto& want = expected.at(out);
    REQUIRE(want.size() == e.size_bytes);
    std::vector<std::int8_t> got(want.size());
    ddr.read(e.ddr_addr, got.data(), got.size());
    CHECK(std::equal(got.begin(), got.end(), want.begin()));
  }
}

// `model` lowered and compiled INT8 (options.precision is set) for `config`; every node must run
// on the NPU.
struct Int8Compiled {
  Graph graph;
  CompiledModel model;
};
inline Int8Compiled compile_int8(const std::string& model, const HardwareConfig& config, CompileOptions options = {}) {
  options.precision = Precision::Int8;
  Int8Compiled out;
  out.graph = lower_graph(model, options, out.model);
  generate_code(out.graph, config, options, out.model);
  REQUIRE(out.model.fallbacks.empty());
  return out;
}

// `compiled` simulated on `config` from random inputs (seeded from `seed`): its model outputs
// equal the integer reference's bytes.
inline void check_outputs_against_reference(const Int8Compiled& compiled, const HardwareConfig& config, unsigned seed) {
  const CompiledModel& m = compiled.model;
  sim::DdrImage ddr;
  ddr.place(m.program);
  const Int8Values inputs = write_random_inputs(compiled.graph, m, ddr, seed);
  const Int8Values expected = run_integer_reference(compiled.graph, inputs);
  CHECK(simulate_steps(m, config, ddr) > 0);
  check_outputs_equal(m, ddr, expected);
}

// Compiles `model` for INT8 on `config`, runs it on the simulator and on the integer reference
// from the same quantised input, and compares every NPU-computed value byte for byte.
// `sram_kib` (when not 0) replaces the preset's scratchpad capacity.
inline void check_bit_exact(const std::string& model, const std::string& config_name, BitExactSetup setup) {
  const std::uint64_t sram_kib = setup.sram_kib;
  INFO(model << " on " << config_name << (sram_kib ? " with " + std::to_string(sram_kib) + " KiB" : std::string())
             << (setup.engines ? " on " + std::to_string(setup.engines) + " engines, split mode " +
                                     std::to_string(static_cast<int>(setup.split))
                               : std::string()));
  HardwareConfig config = load_hardware_config(config_path(config_name));
  if (sram_kib) config.sram.capacity_bytes = sram_kib * 1024;
  if (setup.engines) config.engines.count = setup.engines;
  CompileOptions options;
  options.engine_split = setup.split;
  options.store_all_values = true;  // intermediates kept on chip are stored too, to compare them
  options.check_interleave = true;  // the default: no conflicting pair reordered (a compile error names it)
  Int8Compiled compiled = compile_int8(model, config, options);
  Graph& g = compiled.graph;
  CompiledModel& m = compiled.model;

  sim::DdrImage ddr;
  ddr.place(m.program);
  const Int8Values inputs = write_random_inputs(g, m, ddr, 11);
  Int8Values expected = run_integer_reference(g, inputs);
  CHECK(simulate_steps(m, config, ddr) > 0);

  // A channel concatenation whose readers take its parts in place is never written: its
  // readers' outputs check it.
  auto stored = [&](const isa::TensorEntry& e) {
    for (const auto& in : m.program.code)
      if (in.opcode == isa::Opcode::Store) {
        const auto a = static_cast<std::uint64_t>(in.get(isa::Field::ddr_addr));
        if (a >= e.ddr_addr && a < e.ddr_addr + e.size_bytes) return true;
      }
    return false;
  };
  std::size_t compared = 0, values = 0, virtual_concats = 0;
  for (const Node& n : g.nodes) {
    for (const std::string& value : n.outputs) {
      if (value.empty()) continue;
      ++values;
      const isa::TensorEntry* e = find_entry(m.program, value);
      REQUIRE(e);
      if (n.op_type == "Concat" && !stored(*e)) {
        ++virtual_concats;
        continue;
      }
      const auto& want = expected.at(value);
      REQUIRE(want.size() == e->size_bytes);
      std::vector<std::int8_t> got(want.size());
      ddr.read(e->ddr_addr, got.data(), got.size());
      std::size_t differ = 0, first = 0;
      for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i] && differ++ == 0) first = i;
      INFO("layer '" << n.name << "' (" << n.get_string("pattern", n.op_type) << ") value '" << value << "': " << differ
                     << " of " << got.size() << " bytes differ, first at " << first << " (sim "
                     << int{got[first]} << ", reference " << int{want[first]} << ")");
      REQUIRE(differ == 0);
      ++compared;
    }
  }
  CHECK(compared + virtual_concats == values);
}
inline void check_bit_exact(const std::string& model, const std::string& config_name, std::uint64_t sram_kib = 0) {
  check_bit_exact(model, config_name, BitExactSetup{sram_kib});
}


}  // namespace npu::compiler::sim_checks
