// What every stage of the compiler reads: the options of one compile and the error it throws.
// compile.h (the entry point) and each stage include this, never the entry point itself.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/core/quant_options.h"
#include "compiler/core/tensor_data.h"
#include "container/compiled_model.h"
#include "hwconfig/hardware_config.h"

namespace npu::compiler {

// The container types the compiler fills, by their plain names inside the compiler.
using container::CompiledModel;
using container::CpuStep;
using container::Fallback;
using container::LayerRecord;
using container::NpuStep;
using container::PassSummary;
using container::QuantizationRecord;
using container::Precision;
using container::Step;

// One input of a CPU step run on the host: its values as floats (integers exactly up to 2^24)
// and the ONNX element type the step declares for it.
struct HostStepInput {
  int elem_type = 1;  // onnx::TensorProto::FLOAT
  const FloatTensor* value = nullptr;
};
// Runs a CPU step (a self-contained ONNX model, like the program's CPU steps) on the host outside
// the compiler and returns its outputs as floats, in step.outputs order; throws (any
// std::exception, one line) when it cannot. Calibration runs the nodes the FP32 evaluator has
// no kernel for through it, so that one such op costs only itself. The runtime installs ONNX
// Runtime here (runtime/compiled_model_io.h): the compiler never reaches Python itself.
using HostStepRunner = std::function<std::vector<FloatTensor>(const CpuStep& step, const std::vector<HostStepInput>& inputs)>;

constexpr std::uint64_t kDefaultMaxTensorBytes = std::uint64_t{4} << 30;  // 4 GiB

// How the layers of a multi-engine NPU (engines.count > 1) share the engines
// (compiler/backend/engine_split.h): Auto, the fastest program of LayerPrice (row parts priced
// with and without their multicast weights), Traffic and None as the timing core finds; LayerPrice, each layer the way its own parts are timed fastest (or
// whole); Traffic, each layer the way that adds the fewest DDR bytes; Rows (Channels), every
// layer that can be split by output rows (output channels) split so; None, engine 0 runs all.
enum class EngineSplitMode : std::uint8_t { Auto, Rows, Channels, None, LayerPrice, Traffic };

struct CompileOptions {
  Precision precision = Precision::Int8;
  std::string calibration_dir;                // .npy files named <input>.npy or <input>_N.npy
  std::vector<std::string> input_shapes;      // "name=1x3x224x224" fixes dynamic dims
  std::vector<std::string> input_values;      // "name=16000": a one-element input becomes that constant
  bool strict = false;                        // any CPU fallback is an error naming the node
  std::string dump_dir;                       // when set, each pass writes <NN>-<pass>.onnx here
  bool explain = false;                       // collect PassSummary lines
  QuantOptions quant;                         // calibration, mixed precision, weight-only (quant_options.h)
  // Every NPU value is also stored to DDR (tests read intermediates back); values the step
  // scheduler keeps in the scratchpad are still read from there.
  bool store_all_values = false;
  // Layers' code moves into their predecessors' where the cost model says it is faster
  // (layer_interleave.h); false: each layer's code after the one before.
  bool interleave_layers = true;
  // Checks that interleaving kept every pair of conflicting instructions in order (an internal
  // compile error names them). On by default: it costs no measurable compile time.
  bool check_interleave = true;
  // Debugging the back end (compiler/README.md, Debugging): prints to stderr each layer's region
  // and estimate, why each value stays in DDR, each interleaving decision and each step's estimate.
  bool debug_schedule = false;
  // With debug_schedule: writes each instruction's estimated start and end cycle to this file.
  std::string debug_estimate_file;
  // A tensor larger than this (counted as FP32, the compiler's working type) is an error: a
  // model must never make the compiler allocate what no NPU's DDR could hold.
  std::uint64_t max_tensor_bytes = kDefaultMaxTensorBytes;
  EngineSplitMode engine_split = EngineSplitMode::Auto;
  // With multicast loads (engines.shared_loads), price a row part's weights as read once for all
  // engines (engine_split.h row_part_bandwidth_share); false: at its engine's share of the
  // bandwidth like its other bytes. Auto tries both with LayerPrice.
  bool multicast_row_prices = true;
  // The Traffic rule splits a layer by rows only with at least this many per engine; with
  // multicast loads Auto also tries 1 (MobileNetV2's 7x7 tail as 1+2+2+2 rows on 4 engines).
  int traffic_min_rows_per_engine = 2;
  // Runs what the FP32 evaluator cannot during calibration (HostStepRunner above); empty: such a
  // node, and what needs its values, fall back to the CPU with a line naming it.
  HostStepRunner host_runner;
};

// Throws CompileError: one line naming the file, node or tensor and what is wrong.
struct CompileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace npu::compiler
