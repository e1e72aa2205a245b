// Streaming: a sequence of frames through three stages on the simulated timeline, host
// pre-processing -> the model's inference -> host post-processing, with `depth` buffers for
// the tensors handed between stages (2: double-buffered input and output tensors), so that
// pre-processing of frame i+1 and post-processing of frame i-1 run while the NPU works on
// frame i. report/stream_report.h formats the result; `npusim stream` runs it.
//
// What each stage costs:
//  - pre / post: a fixed time, or an ONNX model's flops at host.gflops (the host time model
//    that times CPU fallback steps). Each runs on a host thread of its own.
//  - inference: one Session::run of the model (NPU steps on the simulator, CPU fallback
//    steps, transitions and transfers), the same for every frame: the simulator is
//    deterministic and its timing does not depend on the data.
// Not modelled: pre/post-processing taking DDR bandwidth from the NPU, or the CPU fallback
// steps of the model competing with pre/post for the same cores.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hwconfig/hardware_config.h"
#include "runtime/run_record.h"
#include "runtime/session.h"

namespace npu::runtime {

// A host stage of the pipeline.
struct HostStage {
  std::string name;          // "pre" | "post"
  double us = 0;             // per frame
  std::string model;         // the ONNX model whose host time this is; empty: a fixed time
  std::uint64_t flops = 0;   // of that model
};

// The stage from an ONNX model run on the host: its flops (compiler/host_flops.h) at
// host.gflops. options.input_shapes fixes dynamic dims.
HostStage host_stage_from_model(const std::string& name, const std::string& onnx_path, const HardwareConfig& config,
                                const compiler::CompileOptions& options);

// When one frame passed through each stage, on the stream's timeline (0 = first pre start).
struct FrameTimes {
  double pre_start_us = 0, pre_end_us = 0;
  double infer_start_us = 0, infer_end_us = 0;
  double post_start_us = 0, post_end_us = 0;
  double latency_us() const { return post_end_us - pre_start_us; }
};

// Frame i's stage k starts when stage k is done with frame i-1, frame i left stage k-1, and
// one of the `depth` buffers stage k writes is free again: the consumer of frame i-depth
// finished with it (inference reads its input buffer until it ends; post-processing reads
// its output buffer until it ends). serial: frame i starts only after frame i-1 left post-
// processing (a plain loop of pre, infer, post; depth is then irrelevant). depth >= 1.
std::vector<FrameTimes> schedule_frames(double pre_us, double infer_us, double post_us, int frames, int depth,
                                        bool serial);

// What users read off a schedule.
struct StreamMetrics {
  double makespan_us = 0;          // first pre start to last post end
  double frame_interval_us = 0;    // steady state: between completions over the second half of the frames
  double throughput_fps = 0;       // 1e6 / frame_interval_us
  double first_latency_us = 0;     // frame 0, through an empty pipeline
  double mean_latency_us = 0;
  double max_latency_us = 0;
  double npu_busy_us = 0;          // frames x the NPU's share of one inference
  double npu_idle_us = 0;          // makespan - npu_busy_us
  double npu_idle_per_frame_us = 0;  // steady state: frame_interval_us - the NPU's share of one inference
};

StreamMetrics stream_metrics(const std::vector<FrameTimes>& frames, double npu_us_per_frame);

struct StreamOptions {
  int frames = 16;
  int depth = 2;
  HostStage pre = {"pre", 0.0, "", 0}, post = {"post", 0.0, "", 0};
};

struct StreamResult {
  StreamOptions options;
  RunRecord inference;   // the one simulated inference every frame takes (with its trace when recorded)
  double infer_us = 0;   // inference.latency_us(): NPU steps + CPU fallback + transitions + transfers
  double npu_us = 0;     // inference.npu.latency_us: the NPU's share
  std::vector<FrameTimes> pipelined, serial;
  StreamMetrics pipelined_metrics, serial_metrics;
};

// Runs the session once with `inputs` (the per-frame inference) and schedules `options.frames`
// frames both pipelined (options.depth buffers) and serially. Throws std::invalid_argument for
// frames < 1, depth < 1 or a negative stage time.
StreamResult run_stream(Session& session, const std::map<std::string, HostTensor>& inputs,
                        const StreamOptions& options);

}  // namespace npu::runtime
