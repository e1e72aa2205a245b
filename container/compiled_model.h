// What the compiler hands the runtime: one isa::Program plus the execution plan that says
// which parts run on the NPU and which fall back to the CPU. Saved inside the .npuprog as an
// extra section, so a compiled program runs without the ONNX file.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "isa/program.h"

namespace npu::container {

constexpr std::uint32_t kPlanSectionKind = 100;

enum class Precision { Int8, Fp16 };
const char* precision_name(Precision p);         // "int8" | "fp16"
Precision parse_precision(const std::string& text);  // throws ModelFileError naming the text

// NPU tensors are described by program.tensors (dtype, layout, DDR address, quant params).
// Tensors the runtime exchanges with the host are named after the ONNX value they carry.
// Each tensor that crosses between the host and DDR records its host layout
// (TensorEntry.host_layout): a 4-D value stored NHWC whose host layout is NCHW is transposed
// by the runtime (the boundary conversions the layout pass counts); a value whose host layout
// equals its layout (an NHWC model input read as it is, a row-major value) is copied. Either
// way int8 values are quantised/dequantised with scale and zero_point (round half to even).
struct NpuStep {
  std::uint32_t first_instruction = 0;  // [first, end) of program.code; ends with halt
  std::uint32_t end_instruction = 0;
  std::vector<std::string> inputs;      // names in program.tensors, filled by the runtime
  std::vector<std::string> outputs;     // names in program.tensors, read back by the runtime
  // Several engines: engine e runs [engine_starts[e], engine_starts[e + 1]) (the last to
  // end_instruction), each stream ending with its halt; empty: one engine runs the step.
  std::vector<std::uint32_t> engine_starts;
  // The timing core's cycles for the step (cost::estimate_program, exact): what a timing-only
  // simulation of it gives. Set by compile(); not stored in .npuprog files (0 after loading).
  std::uint64_t estimated_cycles = 0;
};

// Nodes the NPU does not take, as a self-contained ONNX model (FP32, NCHW, ONNX semantics).
struct CpuStep {
  std::vector<std::uint8_t> onnx_model;  // serialized onnx::ModelProto
  std::vector<std::string> inputs;       // ONNX value names
  std::vector<std::string> outputs;
  std::vector<std::string> node_names;
  std::uint64_t flops = 0;               // for the host time model
};

struct Step {
  enum class Kind : std::uint8_t { Npu, Cpu } kind = Kind::Npu;
  NpuStep npu;
  CpuStep cpu;
};

// Instructions [first, end) of program.code.
struct InstructionRun {
  std::uint32_t first = 0, end = 0;
};

// One row of the per-layer report: a node after fusion.
struct LayerRecord {
  std::string name;
  std::string op;                        // e.g. "Conv+Relu"
  std::string device;                    // "npu" | "cpu"
  std::uint64_t macs = 0;
  std::uint32_t first_instruction = 0;   // NPU layers: the span of its instructions
  std::uint32_t end_instruction = 0;
  std::uint64_t planned_ddr_bytes = 0;   // what the tiler expects to move
  std::vector<std::string> fused_nodes;  // original ONNX node names
  // When the compiler interleaved its code with its neighbours' (compiler/backend/layer_interleave.h):
  // the runs of the span that are its own, in order. Empty: the whole span is.
  std::vector<InstructionRun> runs;
  // NPU layers, at compile time only (not stored in the plan): the mapping the compiler chose,
  // one line (compiler/backend/layer_mapping.h); `npusim compile --explain` prints it.
  std::string mapping = {};
};

// The indices of the instructions a layer owns, in order, below code_size.
// An NPU step's code [first, end) as a program of its own, as the simulator runs it: the tensor
// table and, for several engines, the engine starts (absolute indices) made relative.
isa::Program step_program(const isa::Program& program, std::uint32_t first, std::uint32_t end,
                          const std::vector<std::uint32_t>& engine_starts);
inline isa::Program step_program(const isa::Program& program, const NpuStep& step) {
  return step_program(program, step.first_instruction, step.end_instruction, step.engine_starts);
}

std::vector<std::uint32_t> owned_instructions(const LayerRecord& layer, std::size_t code_size);

struct Fallback {
  std::string node;
  std::string op;
  std::string reason;
};

struct PassSummary {
  std::string pass;
  std::size_t nodes_before = 0;
  std::size_t nodes_after = 0;
  std::string detail;
};

// How an int8 program was quantised (empty for a plain fp16 one): what `npusim compile` printed,
// kept in the program as section kQuantSectionKind (quant_record.cpp).
constexpr std::uint32_t kQuantSectionKind = 101;
struct QuantizationRecord {
  std::string scheme;                    // "entropy calibration, asymmetric per-tensor activations, ..."
  std::uint32_t calibration_samples = 0;
  std::vector<std::string> fp16_layers;  // layers run in fp16 in an int8 program, forced ones first
  std::uint32_t forced_fp16 = 0;         // how many of them --keep-fp16 named
  std::string accuracy_target;           // "cosine=0.99" when the mixed-precision search ran
  // The model outputs against FP32 on the calibration data (quantisation simulated), worst
  // output and sample: all int8, and with fp16_layers in fp16.
  double all_int8_cosine = 0, all_int8_sqnr_db = 0;
  double reached_cosine = 0, reached_sqnr_db = 0;
  std::string weights;                   // weight-only quantisation: "int4 per-group (128)", or ""
  bool present() const { return !scheme.empty() || !weights.empty(); }
};

struct CompiledModel {
  isa::Program program;
  std::vector<Step> steps;
  std::vector<LayerRecord> layers;
  std::vector<Fallback> fallbacks;
  std::vector<PassSummary> passes;
  std::vector<std::string> model_inputs;   // ONNX graph inputs, in order
  std::vector<std::string> model_outputs;
  // Model inputs and outputs the host exchanges as integers the NPU reads or writes as they
  // are (compiler/backend/integer_boundary.h): their host type is int8, not float; int16 where
  // the program's tensor is int32 (the int16 sides of 16x8 models, widened exactly).
  std::vector<std::string> integer_io;
  std::vector<std::string> warnings;        // e.g. calibrated on generated inputs
  Precision precision = Precision::Int8;
  std::uint32_t npu_cpu_transitions = 0;
  QuantizationRecord quantization;
};

// A container that cannot be read: one line naming the file and what is wrong.
struct ModelFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The plan travels in program.extra as section kPlanSectionKind.
void attach_plan(CompiledModel& model);
CompiledModel load_compiled(const std::string& npuprog_path);
// The quantisation record's section: written by attach_plan, read by plan_from_program.
void attach_quant_record(CompiledModel& model);
void read_quant_record(CompiledModel& model, const std::string& origin);
// The same from a program already in memory (e.g. isa::deserialize'd); `origin` names it in errors.
CompiledModel plan_from_program(isa::Program program, const std::string& origin);

}  // namespace npu::container
