#include "runtime/stream.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "compiler/host_flops.h"
#include "runtime/host_time_model.h"

namespace npu::runtime {

HostStage host_stage_from_model(const std::string& name, const std::string& onnx_path, const HardwareConfig& config,
                                const compiler::CompileOptions& options) {
  HostStage stage;
  stage.name = name;
  stage.model = onnx_path;
  stage.flops = compiler::model_host_flops(onnx_path, options);
  stage.us = cpu_compute_us(stage.flops, config.host);
  return stage;
}

std::vector<FrameTimes> schedule_frames(double pre_us, double infer_us, double post_us, int frames, int depth,
                                        bool serial) {
  if (frames < 1) throw std::invalid_argument(fmt::format("frames: must be at least 1 (got {})", frames));
  if (depth < 1) throw std::invalid_argument(fmt::format("depth: must be at least 1 buffer (got {})", depth));
  if (pre_us < 0 || infer_us < 0 || post_us < 0)
    throw std::invalid_argument(fmt::format("stage times must not be negative (pre {} us, inference {} us, post {} us)",
                                            pre_us, infer_us, post_us));
  std::vector<FrameTimes> f(static_cast<std::size_t>(frames));
  for (std::size_t i = 0; i < f.size(); ++i) {
    FrameTimes& t = f[i];
    const FrameTimes* prev = i > 0 ? &f[i - 1] : nullptr;
    // The frame whose buffers this one reuses (none while the first `depth` frames fill them).
    const FrameTimes* reused = i >= static_cast<std::size_t>(depth) ? &f[i - depth] : nullptr;
    if (serial) {
      t.pre_start_us = prev ? prev->post_end_us : 0.0;
    } else {
      t.pre_start_us = std::max(prev ? prev->pre_end_us : 0.0, reused ? reused->infer_end_us : 0.0);
    }
    t.pre_end_us = t.pre_start_us + pre_us;
    t.infer_start_us = t.pre_end_us;
    if (!serial)
      t.infer_start_us = std::max({t.infer_start_us, prev ? prev->infer_end_us : 0.0,
                                   reused ? reused->post_end_us : 0.0});
    t.infer_end_us = t.infer_start_us + infer_us;
    t.post_start_us = std::max(t.infer_end_us, prev ? prev->post_end_us : 0.0);
    t.post_end_us = t.post_start_us + post_us;
  }
  return f;
}

StreamMetrics stream_metrics(const std::vector<FrameTimes>& frames, double npu_us_per_frame) {
  StreamMetrics m;
  if (frames.empty()) return m;
  m.makespan_us = frames.back().post_end_us - frames.front().pre_start_us;
  const std::size_t last = frames.size() - 1;
  if (last == 0) {
    m.frame_interval_us = m.makespan_us;
  } else {
    // The second half of the stream: the pipeline has filled, every completion is one interval apart.
    const std::size_t first = std::min(frames.size() / 2, last - 1);
    m.frame_interval_us = (frames[last].post_end_us - frames[first].post_end_us) / static_cast<double>(last - first);
  }
  m.throughput_fps = m.frame_interval_us > 0 ? 1e6 / m.frame_interval_us : 0.0;
  m.first_latency_us = frames.front().latency_us();
  double sum = 0;
  for (const auto& f : frames) {
    sum += f.latency_us();
    m.max_latency_us = std::max(m.max_latency_us, f.latency_us());
  }
  m.mean_latency_us = sum / static_cast<double>(frames.size());
  m.npu_busy_us = npu_us_per_frame * static_cast<double>(frames.size());
  m.npu_idle_us = std::max(0.0, m.makespan_us - m.npu_busy_us);
  m.npu_idle_per_frame_us = std::max(0.0, m.frame_interval_us - npu_us_per_frame);
  return m;
}

StreamResult run_stream(Session& session, const std::map<std::string, HostTensor>& inputs,
                        const StreamOptions& options) {
  StreamResult r;
  r.options = options;
  // Checked before the (possibly long) simulation.
  schedule_frames(options.pre.us, 0.0, options.post.us, options.frames, options.depth, false);
  auto run = session.run(inputs);
  r.inference = std::move(run.record);
  r.infer_us = r.inference.latency_us();
  r.npu_us = r.inference.npu.latency_us;
  r.pipelined = schedule_frames(options.pre.us, r.infer_us, options.post.us, options.frames, options.depth, false);
  r.serial = schedule_frames(options.pre.us, r.infer_us, options.post.us, options.frames, options.depth, true);
  r.pipelined_metrics = stream_metrics(r.pipelined, r.npu_us);
  r.serial_metrics = stream_metrics(r.serial, r.npu_us);
  return r;
}

}  // namespace npu::runtime
