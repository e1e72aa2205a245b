// The one path from a model file to a run record: compile -> place -> run -> report.
//
//   compile  compile_model(): an ONNX file compiled for a config (its own input/output
//            declarations read once), or a .npuprog loaded. load_or_compile
//            (runtime/compiled_model_io.h) is the same step without the declarations, for a
//            caller that keeps them itself (the Python package caches them per file).
//   place    Engine: the compiled model on a config and an NPU device, with the ONNX file's
//            declarations applied to the boundary; a Session per kind of run, built on demand.
//   run      Engine::run() / stream(): given inputs, or inputs generated from a seed
//            (kDefaultInputSeed, runtime/input_check.h, unless the caller chooses another).
//   report   the RunRecord in RunResult; report::build_model_report turns it into what users
//            read (report/ formats, it runs nothing).
//
// The `npusim` command, the Python module (and the sweeps on it), calibrate and the sim back end
// of `npusim compare` all run models through here, so a model on a config gives the same
// latency whichever of them asks. What still differs between them is chosen by name below:
// timing-only or functional, trace or not, which seed, whether notes describe the inputs.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "container/compiled_model.h"
#include "hwconfig/hardware_config.h"
#include "runtime/compiled_model_io.h"
#include "runtime/input_check.h"
#include "runtime/onnx_model_info.h"
#include "runtime/session.h"
#include "runtime/stream.h"
#include "runtime/tensor.h"

namespace npu::runtime {

// What compile gives and place takes.
struct LoadedModel {
  std::string path;  // the model file, as run records name it
  std::shared_ptr<const container::CompiledModel> compiled;
  // The ONNX file's own input/output declarations (exact dtypes and ranks); they refine the
  // compiled boundary of every session placed from this model. Null for a .npuprog.
  std::shared_ptr<const OnnxModelInfo> declared;
};

// compile: `path` compiled for `config` with `options` when it is ONNX (its declarations read,
// or `declared` reused: reading them parses every weight of the file), loaded when it is a
// .npuprog (recognised by its magic).
LoadedModel compile_model(const std::string& path, const HardwareConfig& config, const compiler::CompileOptions& options,
                          std::shared_ptr<const OnnxModelInfo> declared = nullptr);

// place: which NPU device runs the NPU steps, and where the model's inputs sit in DDR.
struct PlaceOptions {
  std::string device = "sim";
  // Non-zero: every model input the NPU reads sits this many bytes past a 4 KiB boundary
  // (SessionOptions::input_misalignment_bytes).
  std::uint64_t input_misalignment_bytes = 0;
};

// Notes a run record starts with, saying where each input came from: "input x: from FILE" for
// a given input, "input x: random float32[1x3x224x224] NCHW (seed 1; <how_to_give(x)>)" for a
// generated one. The CLI's and Python's runs write them, each telling its own user how to give
// real data; the report commands, calibrate and compare leave their records without them.
struct InputNotes {
  std::function<std::string(const std::string& input)> how_to_give;  // unset: no notes
  std::string given_from;  // the source of a given input that has no file, e.g. "a numpy array"
};

// run: one inference.
struct RunRequest {
  bool timing_only = false;   // cycles only: no arithmetic, no outputs (same cycles)
  bool record_trace = false;  // fill record.npu.trace
  // The model's inputs by name; empty: every input generated from `seed`. Partial inputs are
  // an error naming the missing one.
  std::map<std::string, HostTensor> inputs;
  std::map<std::string, std::string> input_files;  // input name -> file it was read from (named in errors)
  std::uint64_t seed = kDefaultInputSeed;
  InputNotes notes;
};

class Engine {
 public:
  Engine(LoadedModel model, HardwareConfig config, PlaceOptions place = {});
  ~Engine();
  Engine(Engine&&) noexcept;
  Engine& operator=(Engine&&) noexcept;

  const LoadedModel& model() const { return model_; }
  const container::CompiledModel& compiled() const { return *model_.compiled; }
  const HardwareConfig& config() const { return config_; }

  // The boundary inputs must match (the declarations applied). Places the model if no run has
  // yet, so a bad device fails here.
  const std::vector<TensorDesc>& inputs();
  const std::vector<TensorDesc>& outputs();

  RunResult run(const RunRequest& request);

  // `options.frames` frames through host pre-processing, one timing-only inference on inputs
  // generated from `seed`, and host post-processing (runtime/stream.h).
  StreamResult stream(const StreamOptions& options, std::uint64_t seed = kDefaultInputSeed, bool record_trace = false);

 private:
  LoadedModel model_;
  HardwareConfig config_;
  PlaceOptions place_;
  // A session per kind of run, [timing_only][record_trace], built on first use: building one
  // copies the program and loads the device, so a timing-only sweep point builds only its own.
  std::unique_ptr<Session> sessions_[2][2];

  Session& session(bool timing_only, bool record_trace);
  Session& any_session();
};

// A timing-only run on generated inputs: what the report commands, calibrate and the precision
// comparison ask for (their reports count cycles, bytes and energy, the same in a functional run).
inline RunRequest timing_only_run() {
  RunRequest request;
  request.timing_only = true;
  return request;
}

// compile -> place -> run in one call, the compiled model kept for the report.
struct ModelRun {
  LoadedModel model;
  RunResult result;
};
ModelRun compile_and_run(const std::string& path, const HardwareConfig& config, const compiler::CompileOptions& options,
                         RunRequest request = timing_only_run());

}  // namespace npu::runtime
