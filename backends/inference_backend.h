// One interface for running a WHOLE ONNX model on something that executes it: a real stack
// (OpenVINO on an Intel NPU/CPU/GPU, ONNX Runtime with its CPU, QNN or OpenVINO execution
// provider) or npusim's own compiler + simulator. runtime/npu_step_executor.h is a different, lower
// level: it runs ranges of NPU instructions. Real stacks take the model itself and decide
// placement on their own, so the questions here are "what came out, how long did it take, and
// where did each node actually run".
//
// A back end that cannot run here says why in availability() (library not found, plugin
// missing, no device node, version mismatch with the versions) — it never fails the build and
// never falls back to another device silently: placement() shows every node that ran
// somewhere else than asked, and BackendOptions::strict turns that into an error.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hwconfig/hardware_config.h"
#include "runtime/tensor.h"

namespace npu::backends {

struct BackendAvailability {
  bool available = false;
  std::string reason;                 // why not, when not available
  std::vector<std::string> versions;  // runtime/plugin versions found, e.g. "openvino 2026.4.1"
};

struct BackendOptions {
  bool strict = false;          // anything placed off the requested device is an error naming the nodes
  bool timing_only = false;     // simulator only: cycles without arithmetic (no outputs)
  std::string sim_precision = "int8";  // simulator only: what the compiler quantises to
  // Simulator only: compiled in (compiler::CompileOptions); an input fixed to a value is then
  // no input of the program, and run() ignores what it is fed for it.
  std::vector<std::string> input_shapes, input_values;
};

// Where one node (or runtime layer) of the model ran, in the stack's own words.
struct NodePlacement {
  std::string node;        // node or runtime-layer name
  std::string op_type;     // ONNX op or the runtime's layer type
  std::string device;      // e.g. "NPU", "CPU", "QNNExecutionProvider", "sim"
  std::string exec_type;   // implementation the runtime chose (OpenVINO execType), if known
  std::string precision;   // runtime precision (OpenVINO), if known
  bool fallback = false;   // ran on the CPU although another device was asked for
};

// One node's (or runtime layer's) measured time per inference, from the runtime's profiler.
struct LayerTime {
  std::string node;     // node or runtime-layer name as the runtime reports it
  std::string op_type;  // ONNX op or the runtime's layer type
  double time_us = 0;   // mean over the profiled runs
  // The ONNX node a renamed runtime layer stands for, when the back end traced it (OpenVINO
  // names a convolution "/conv1/Conv/WithoutBiases" or after the ReLU fused into it); empty:
  // `node` is matched as it is.
  std::string onnx_node;
  bool internal = false;  // no ONNX origin: the runtime inserted or synthesised it (layout reorders)
};

struct BackendRun {
  std::vector<std::pair<std::string, runtime::HostTensor>> outputs;  // model outputs in order
  double latency_us = 0;   // this one run: measured wall time, or simulated latency for the sim
};

class InferenceBackend {
 public:
  virtual ~InferenceBackend() = default;
  virtual std::string name() const = 0;  // "openvino:NPU", "ort:qnn", "sim", ...
  // Cheap and side-effect free apart from loading the vendor library.
  virtual BackendAvailability availability() = 0;
  // Prepares the model (compile, create the session). Throws one line on failure; in strict
  // mode a fallback is such a failure and names the nodes.
  virtual void load(const std::string& onnx_path, const BackendOptions& options) = 0;
  // Inputs by ONNX input name, in the model's declared dtypes.
  virtual BackendRun run(const std::vector<std::pair<std::string, runtime::HostTensor>>& inputs) = 0;
  // After load() and at least one run(): where each node ran.
  virtual std::vector<NodePlacement> placement() = 0;
  // After load() and at least one run() (whose inputs it reuses): `runs` profiled inferences,
  // each node's mean time. Empty when the stack has no per-node profiler (`npusim compare
  // --per-layer` says so).
  virtual std::vector<LayerTime> layer_times(int runs) { return {}; }
  // True for the simulator: latency_us is simulated, not measured.
  virtual bool simulated() const { return false; }
};

// Every name make_backend accepts, in a stable order.
std::vector<std::string> backend_names();
// Unknown names throw listing the known ones. The backend is returned even when it is not
// available here: callers ask availability() and decide.
std::unique_ptr<InferenceBackend> make_backend(const std::string& name, const HardwareConfig& config);

}  // namespace npu::backends
