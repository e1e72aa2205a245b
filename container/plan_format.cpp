// The execution plan as program.extra section kPlanSectionKind: a little-endian, length-
// prefixed binary format (container/byte_io.h).
#include <algorithm>

#include <fmt/format.h>

#include "container/byte_io.h"

namespace npu::container {
namespace {

constexpr std::uint32_t kPlanMagic = 0x4e4c5050;  // "PPLN"
// Version 2 added each layer's instruction runs (interleaved layers), version 3 each NPU step's
// engine streams, version 4 the int8 model inputs and outputs; earlier versions still read.
constexpr std::uint32_t kPlanVersion = 4;

}  // namespace

void attach_plan(CompiledModel& m) {
  ByteWriter w;
  w.u32(kPlanMagic);
  w.u32(kPlanVersion);
  w.u8(m.precision == Precision::Int8 ? 0 : 1);
  w.u32(m.npu_cpu_transitions);
  w.strs(m.model_inputs);
  w.strs(m.model_outputs);
  w.strs(m.warnings);
  w.u32(static_cast<std::uint32_t>(m.steps.size()));
  for (const auto& s : m.steps) {
    w.u8(s.kind == Step::Kind::Npu ? 0 : 1);
    w.u32(s.npu.first_instruction);
    w.u32(s.npu.end_instruction);
    w.strs(s.npu.inputs);
    w.strs(s.npu.outputs);
    w.blob(s.cpu.onnx_model);
    w.strs(s.cpu.inputs);
    w.strs(s.cpu.outputs);
    w.strs(s.cpu.node_names);
    w.u64(s.cpu.flops);
  }
  w.u32(static_cast<std::uint32_t>(m.layers.size()));
  for (const auto& l : m.layers) {
    w.str(l.name);
    w.str(l.op);
    w.str(l.device);
    w.u64(l.macs);
    w.u32(l.first_instruction);
    w.u32(l.end_instruction);
    w.u32(static_cast<std::uint32_t>(l.runs.size()));
    for (const auto& run : l.runs) {
      w.u32(run.first);
      w.u32(run.end);
    }
    w.u64(l.planned_ddr_bytes);
    w.strs(l.fused_nodes);
  }
  w.u32(static_cast<std::uint32_t>(m.fallbacks.size()));
  for (const auto& f : m.fallbacks) {
    w.str(f.node);
    w.str(f.op);
    w.str(f.reason);
  }
  w.u32(static_cast<std::uint32_t>(m.passes.size()));
  for (const auto& p : m.passes) {
    w.str(p.pass);
    w.u64(p.nodes_before);
    w.u64(p.nodes_after);
    w.str(p.detail);
  }
  for (const auto& s : m.steps) {
    w.u32(static_cast<std::uint32_t>(s.npu.engine_starts.size()));
    for (std::uint32_t start : s.npu.engine_starts) w.u32(start);
  }
  w.strs(m.integer_io);
  auto& extra = m.program.extra;
  extra.erase(std::remove_if(extra.begin(), extra.end(), [](const isa::OpaqueSection& s) { return s.kind == kPlanSectionKind; }),
              extra.end());
  extra.push_back({kPlanSectionKind, std::move(w.bytes)});
  attach_quant_record(m);
}

std::vector<std::uint32_t> owned_instructions(const LayerRecord& layer, std::size_t code_size) {
  std::vector<std::uint32_t> out;
  auto add = [&](std::uint32_t first, std::uint32_t end) {
    for (std::uint32_t i = first; i < end && i < code_size; ++i) out.push_back(i);
  };
  if (layer.runs.empty()) add(layer.first_instruction, layer.end_instruction);
  for (const auto& run : layer.runs) add(run.first, run.end);
  return out;
}

CompiledModel plan_from_program(isa::Program program, const std::string& origin) {
  const isa::OpaqueSection* section = nullptr;
  for (const auto& s : program.extra)
    if (s.kind == kPlanSectionKind) section = &s;
  if (!section) throw ModelFileError(origin + ": program has no execution plan (not produced by the compiler)");
  CompiledModel m;
  ByteReader r(section->bytes, origin, "execution plan");
  if (r.u32() != kPlanMagic) throw ModelFileError(origin + ": execution plan has a bad magic number");
  std::uint32_t version = r.u32();
  if (version < 1 || version > kPlanVersion)
    throw ModelFileError(origin + ": execution plan version " + std::to_string(version) + " is not supported");
  m.precision = r.u8() == 0 ? Precision::Int8 : Precision::Fp16;
  m.npu_cpu_transitions = r.u32();
  m.model_inputs = r.strs();
  m.model_outputs = r.strs();
  m.warnings = r.strs();
  for (std::uint32_t i = 0, n = r.count(); i < n; ++i) {
    Step s;
    s.kind = r.u8() == 0 ? Step::Kind::Npu : Step::Kind::Cpu;
    s.npu.first_instruction = r.u32();
    s.npu.end_instruction = r.u32();
    if (s.npu.first_instruction > s.npu.end_instruction || s.npu.end_instruction > program.code.size())
      throw ModelFileError(origin + ": execution plan step " + std::to_string(i) + " points outside the code");
    s.npu.inputs = r.strs();
    s.npu.outputs = r.strs();
    s.cpu.onnx_model = r.blob();
    s.cpu.inputs = r.strs();
    s.cpu.outputs = r.strs();
    s.cpu.node_names = r.strs();
    s.cpu.flops = r.u64();
    m.steps.push_back(std::move(s));
  }
  for (std::uint32_t i = 0, n = r.count(); i < n; ++i) {
    LayerRecord l;
    l.name = r.str();
    l.op = r.str();
    l.device = r.str();
    l.macs = r.u64();
    l.first_instruction = r.u32();
    l.end_instruction = r.u32();
    if (version >= 2)
      for (std::uint32_t k = 0, runs = r.count(); k < runs; ++k) {
        InstructionRun run;
        run.first = r.u32();
        run.end = r.u32();
        if (run.first > run.end || run.first < l.first_instruction || run.end > l.end_instruction)
          throw ModelFileError(origin + ": execution plan layer '" + l.name + "' has an instruction run outside its span");
        l.runs.push_back(run);
      }
    l.planned_ddr_bytes = r.u64();
    l.fused_nodes = r.strs();
    m.layers.push_back(std::move(l));
  }
  for (std::uint32_t i = 0, n = r.count(); i < n; ++i) {
    Fallback f;
    f.node = r.str();
    f.op = r.str();
    f.reason = r.str();
    m.fallbacks.push_back(std::move(f));
  }
  for (std::uint32_t i = 0, n = r.count(); i < n; ++i) {
    PassSummary p;
    p.pass = r.str();
    p.nodes_before = r.u64();
    p.nodes_after = r.u64();
    p.detail = r.str();
    m.passes.push_back(std::move(p));
  }
  if (version >= 3)
    for (std::size_t i = 0; i < m.steps.size(); ++i) {
      NpuStep& npu = m.steps[i].npu;
      for (std::uint32_t k = 0, n = r.count(); k < n; ++k) npu.engine_starts.push_back(r.u32());
      const bool ok = npu.engine_starts.empty() ||
                      (npu.engine_starts.front() == npu.first_instruction &&
                       std::is_sorted(npu.engine_starts.begin(), npu.engine_starts.end()) &&
                       npu.engine_starts.back() < npu.end_instruction);
      if (!ok) throw ModelFileError(origin + ": execution plan step " + std::to_string(i) + "'s engine streams lie outside it");
    }
  if (version >= 4) m.integer_io = r.strs();
  if (!r.done()) throw ModelFileError(origin + ": execution plan has trailing bytes");
  m.program = std::move(program);
  read_quant_record(m, origin);
  return m;
}

isa::Program step_program(const isa::Program& program, std::uint32_t first, std::uint32_t end,
                          const std::vector<std::uint32_t>& engine_starts) {
  isa::Program step;
  step.code.assign(program.code.begin() + first, program.code.begin() + end);
  step.tensors = program.tensors;
  for (std::uint32_t start : engine_starts) step.engine_starts.push_back(start - first);
  return step;
}

const char* precision_name(Precision p) { return p == Precision::Int8 ? "int8" : "fp16"; }

Precision parse_precision(const std::string& text) {
  if (text == "int8") return Precision::Int8;
  if (text == "fp16") return Precision::Fp16;
  throw ModelFileError(fmt::format("--precision '{}': expected int8 or fp16", text));
}

CompiledModel load_compiled(const std::string& path) {
  isa::Program program;
  try {
    program = isa::load_program(path);
  } catch (const isa::IsaError& e) {
    throw ModelFileError(e.what());
  }
  return plan_from_program(std::move(program), path);
}

}  // namespace npu::container
