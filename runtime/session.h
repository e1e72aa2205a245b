// A loaded model ready to run: NPU steps on a device, CPU steps on the fallback executor,
// host tensors kept by ONNX name in between, and a record of where the time went.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "container/compiled_model.h"
#include "hwconfig/hardware_config.h"
#include "runtime/cpu_executor.h"
#include "runtime/model_boundary.h"
#include "runtime/npu_step_executor.h"
#include "runtime/run_record.h"
#include "runtime/tensor.h"

namespace npu::runtime {

struct SessionOptions {
  std::string device = "sim";
  bool timing_only = false;   // cycles only: no arithmetic, no data moved, no outputs
  bool record_trace = false;  // fill report.npu.trace (Chrome/Perfetto)
  // Non-zero: every model input the NPU reads sits this many bytes past a 4 KiB boundary
  // instead of where the compiler put it (runtime/input_placement.h), as a buffer handed
  // over by pre-processing might; reads below dma.min_alignment_bytes then bounce.
  std::uint64_t input_misalignment_bytes = 0;
};

struct RunResult {
  std::vector<std::pair<std::string, HostTensor>> outputs;  // model outputs in order (empty when timing only)
  RunRecord record;  // report::build_model_report adds the per-layer table
};

class Session {
 public:
  Session(container::CompiledModel model, HardwareConfig config, SessionOptions options = {},
          std::string model_path = "");
  ~Session();

  const container::CompiledModel& model() const { return model_; }
  const HardwareConfig& config() const { return config_; }
  const std::vector<TensorDesc>& inputs() const { return boundary_.inputs; }
  const std::vector<TensorDesc>& outputs() const { return boundary_.outputs; }

  // Checks every input against inputs() (throws one line naming the input), then runs.
  // `origins` (name → file) lets error messages name the file an input came from.
  RunResult run(const std::map<std::string, HostTensor>& inputs, const std::map<std::string, std::string>& origins = {});

  // The original ONNX file's input/output declarations (exact dtypes and ranks), when the
  // model was compiled from one; see apply_declared_boundary.
  void declare_boundary(const OnnxModelInfo& declared) { apply_declared_boundary(boundary_, declared); }

  // Replaces the CPU executors (integer kernels, FP32 evaluator, ONNX Runtime), e.g. with a
  // test double.
  void set_cpu_executor(std::unique_ptr<CpuExecutor> executor) { cpu_ = std::move(executor); }

 private:
  container::CompiledModel model_;
  HardwareConfig config_;
  SessionOptions options_;
  std::string model_path_;
  ModelBoundary boundary_;
  std::unique_ptr<NpuStepExecutor> device_;
  std::unique_ptr<CpuExecutor> cpu_;
  std::vector<std::string> placement_notes_;  // where misalign_inputs put the inputs
};

}  // namespace npu::runtime
