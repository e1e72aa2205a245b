// OpenVINO's per-layer performance counters (PERF_COUNT) turned into per-node times that
// `npusim compare --per-layer` can set against the simulated layers. Pure bookkeeping, no
// OpenVINO calls: openvino_backend.cpp reads the counters, this decides what they mean.
//
// Two properties of the counters shape it (OpenVINO 2026.4, CPU plugin; the GPU and NPU
// plugins are read the same way, unchecked: this machine has neither):
// * real_time is a running mean over every inference since the model was compiled, each run
//   truncated to whole microseconds; no per-inference value is exposed. The time of a window
//   of runs is the difference of two running totals (mean x runs), which is why a layer's time
//   is a mean over the profiled runs, not a median, and good to about 1 us.
// * The list is the execution graph in order. A node the plugin fused into the one before it
//   follows it with status NOT_RUN and no implementation ("undef"); in-place nodes (Reshape,
//   Parameter, Result) are NOT_RUN with one ("unknown_f32"). Executed layers are named after
//   an ONNX node ("pool"), a sub-op of one ("/conv1/Conv/WithoutBiases"), a tensor ("logits"),
//   or an op OpenVINO's own passes made ("Multiply_3717", the Conv with its BatchNorm folded
//   in). The Reorders it inserts for layouts and precisions are named after their neighbours
//   ("conv2/WithoutBiases_acdb_abcd_relu2_out/sink_port_0"), so only a Reorder's whole name
//   is taken as an ONNX name (a Transpose it turned into a Reorder keeps the node's name).
#pragma once
#include <string>
#include <vector>

#include "backends/inference_backend.h"
#include "backends/onnx_graph_names.h"

namespace npu::backends {

// One entry of ov_profiling_info_list_t, copied out.
struct OpenVinoCounter {
  std::string node, node_type, exec_type;
  bool executed = false;
  double mean_us = 0;  // real_time: running mean since compile
};

// Each executed layer's time per inference over the runs between two readings of the counters
// (`before` after `before_runs` inferences since compile, `after` after `after_runs`), traced
// to an ONNX node: its own name, else the first node fused into it that traces. Layers with no
// time in the window are left out; layers that trace nowhere come back `internal`.
std::vector<LayerTime> openvino_layer_times(const std::vector<OpenVinoCounter>& before, int before_runs,
                                            const std::vector<OpenVinoCounter>& after, int after_runs,
                                            const OnnxGraphNames& onnx);

}  // namespace npu::backends
