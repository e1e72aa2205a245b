#include "runtime/concurrent.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "container/compiled_model.h"
#include "costmodel/footprint.h"
#include "runtime/engine.h"

namespace npu::runtime {
namespace {

constexpr std::uint64_t kPlacementAlign = 4096;

std::string short_name(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// One past the highest DDR byte the program's tensors, data and transfers touch.
std::uint64_t ddr_end(const isa::Program& p) {
  std::uint64_t end = 0;
  for (const auto& t : p.tensors) end = std::max(end, t.ddr_addr + t.size_bytes);
  for (const auto& d : p.data) end = std::max(end, d.ddr_addr + d.bytes.size());
  for (const auto& in : p.code) {
    const cost::Footprint f = cost::footprint(in);
    for (const auto* ranges : {&f.ddr_read, &f.ddr_write})
      for (const auto& r : *ranges) end = std::max(end, r.end);
  }
  return end;
}

// Moves every DDR address of `p` up by `offset`.
void relocate_ddr(isa::Program& p, std::uint64_t offset) {
  for (auto& t : p.tensors) t.ddr_addr += offset;
  for (auto& d : p.data) d.ddr_addr += offset;
  for (auto& in : p.code)
    if (in.unit() == isa::Unit::Load || in.unit() == isa::Unit::Store)
      in.set(isa::Field::ddr_addr, in.get(isa::Field::ddr_addr) + static_cast<std::int64_t>(offset));
}

// Appends `p`'s engine streams as engines [first, first + count) of `out` (streams the model
// does not use: a halt each); its syncs' groups move with it.
void append_streams(isa::Program& out, const isa::Program& p, int first, int count) {
  const std::size_t streams = p.engine_count();
  for (int e = 0; e < count; ++e) {
    out.engine_starts.push_back(static_cast<std::uint32_t>(out.code.size()));
    if (static_cast<std::size_t>(e) >= streams) {
      out.code.push_back(isa::make_instruction(isa::Opcode::Halt));
      continue;
    }
    const auto [begin, end] = p.engine_range(static_cast<std::size_t>(e));
    for (std::size_t i = begin; i < end; ++i) {
      isa::Instruction in = p.code[i];
      if (in.opcode == isa::Opcode::Sync || in.opcode == isa::Opcode::MulticastLoad) {
        const bool all = in.get(isa::Field::group_count) == 0;
        in.set(isa::Field::group_first, first + (all ? 0 : in.get(isa::Field::group_first)));
        in.set(isa::Field::group_count, all ? static_cast<std::int64_t>(streams) : in.get(isa::Field::group_count));
      }
      out.code.push_back(in);
    }
  }
}

}  // namespace

std::vector<ConcurrentModel> assign_engines(const std::vector<std::string>& paths, const std::string& spec, int engines) {
  if (paths.empty()) throw std::invalid_argument("give at least one model");
  std::vector<ConcurrentModel> out;
  if (spec.empty()) {
    if (static_cast<int>(paths.size()) > engines)
      throw std::invalid_argument(fmt::format("{} models but {} engine(s): give each model at least one", paths.size(), engines));
    const int share = engines / static_cast<int>(paths.size());
    for (std::size_t i = 0; i < paths.size(); ++i) out.push_back({paths[i], static_cast<int>(i) * share, share});
    return out;
  }
  std::vector<int> owner(static_cast<std::size_t>(engines), -1);
  out.resize(paths.size());
  std::vector<bool> given(paths.size(), false);
  std::size_t begin = 0;
  while (begin <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', begin), spec.size());
    const std::string item = spec.substr(begin, comma - begin);
    begin = comma + 1;
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument(fmt::format("--engines '{}': expected NAME=FIRST-LAST", item));
    const std::string name = item.substr(0, eq), range = item.substr(eq + 1);
    std::size_t k = 0;
    while (k < paths.size() && short_name(paths[k]) != name && paths[k] != name) ++k;
    if (k == paths.size()) throw std::invalid_argument(fmt::format("--engines '{}': no model named {}", item, name));
    int first = 0, last = 0;
    char dash = 0;
    int used = 0;
    const int fields = std::sscanf(range.c_str(), "%d%c%d%n", &first, &dash, &last, &used);
    if (fields == 1) last = first;
    else if (fields != 3 || dash != '-' || static_cast<std::size_t>(used) != range.size())
      throw std::invalid_argument(fmt::format("--engines '{}': expected NAME=FIRST-LAST or NAME=N", item));
    if (first < 0 || last < first || last >= engines)
      throw std::invalid_argument(fmt::format("--engines '{}': engines {}-{} are not within the config's 0-{}", item, first,
                                              last, engines - 1));
    for (int e = first; e <= last; ++e) {
      if (owner[static_cast<std::size_t>(e)] >= 0)
        throw std::invalid_argument(fmt::format("--engines '{}': engine {} is already {}'s", item, e,
                                                short_name(paths[static_cast<std::size_t>(owner[static_cast<std::size_t>(e)])])));
      owner[static_cast<std::size_t>(e)] = static_cast<int>(k);
    }
    out[k] = {paths[k], first, last - first + 1};
    given[k] = true;
    if (comma == spec.size()) break;
  }
  for (std::size_t k = 0; k < paths.size(); ++k)
    if (!given[k]) throw std::invalid_argument(fmt::format("--engines gives {} no engines", short_name(paths[k])));
  return out;
}

ConcurrentResult run_concurrent(const std::vector<ConcurrentModel>& models, const HardwareConfig& config,
                                const compiler::CompileOptions& options, bool record_trace) {
  ConcurrentResult result;
  // Streams go in engine order: the models by their first engine, halts for engines nobody has.
  std::vector<std::size_t> order(models.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return models[a].first_engine < models[b].first_engine; });
  result.models.resize(models.size());
  isa::Program together;
  std::uint64_t next_ddr = 0;
  int engines_placed = 0;
  for (const std::size_t k : order) {
    const ConcurrentModel& m = models[k];
    HardwareConfig share = config;
    share.engines.count = m.engine_count;
    // Each model's program places its values from the start of the shared SRAM window, and the
    // programs are only relocated in DDR: they keep to DDR here rather than share those bytes.
    share.engines.shared_sram_bytes = 0;
    const LoadedModel loaded = compile_model(m.path, share, options);
    const container::CompiledModel& compiled = *loaded.compiled;
    std::vector<const container::NpuStep*> npu;
    std::size_t cpu_steps = 0;
    for (const auto& s : compiled.steps) {
      if (s.kind == container::Step::Kind::Npu) npu.push_back(&s.npu);
      else ++cpu_steps;
    }
    if (npu.size() != 1 || cpu_steps != 0)
      throw std::runtime_error(fmt::format("{}: runs as {} NPU and {} CPU step(s); concurrent runs take models that run "
                                           "whole on the NPU, in one step",
                                           m.path, npu.size(), cpu_steps));
    isa::Program program = container::step_program(compiled.program, *npu.front());
    program.data = compiled.program.data;
    const std::uint64_t offset = (next_ddr + kPlacementAlign - 1) / kPlacementAlign * kPlacementAlign;
    const std::uint64_t limit = std::min<std::uint64_t>(config.ddr.capacity_bytes, std::uint64_t{1} << 32);
    next_ddr = offset + ddr_end(program);
    if (next_ddr > limit)
      throw std::runtime_error(fmt::format("{}: the models need {} bytes of DDR together, more than the {} there are", m.path,
                                           next_ddr, limit));
    relocate_ddr(program, offset);
    for (; engines_placed < m.first_engine; ++engines_placed) {
      together.engine_starts.push_back(static_cast<std::uint32_t>(together.code.size()));
      together.code.push_back(isa::make_instruction(isa::Opcode::Halt));
    }
    append_streams(together, program, m.first_engine, m.engine_count);
    engines_placed += m.engine_count;
    together.data.insert(together.data.end(), program.data.begin(), program.data.end());
    for (auto t : program.tensors) {
      t.name = short_name(m.path) + "/" + t.name;
      together.tensors.push_back(std::move(t));
    }
    result.models[k] = {m.path, m.first_engine, m.engine_count, npu.front()->estimated_cycles, 0};
  }
  sim::DdrImage ddr;
  ddr.place(together);
  sim::SimOptions sim_options;
  sim_options.timing_only = true;
  sim_options.record_trace = record_trace;
  result.combined = sim::simulate(together, config, ddr, sim_options);
  result.makespan_cycles = result.combined.cycles;
  for (auto& m : result.models)
    for (int e = m.first_engine; e < m.first_engine + m.engine_count; ++e)
      m.together_cycles = std::max(m.together_cycles, result.combined.engines.at(static_cast<std::size_t>(e)).end_cycle);
  return result;
}

}  // namespace npu::runtime
