#include "report/stream_report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/model_report.h"
#include "report/trace_labels.h"
#include "sim/trace_writer.h"

namespace npu::report {
namespace {

struct StageView {
  const char* name;
  double us;
  std::string source;
};

std::vector<StageView> stages(const runtime::StreamResult& r) {
  auto source = [](const runtime::HostStage& s) {
    return s.model.empty() ? std::string("fixed") : fmt::format("{}: {} flops on the host", s.model, s.flops);
  };
  const auto& in = r.inference;
  return {{"pre", r.options.pre.us, source(r.options.pre)},
          {"inference", r.infer_us,
           fmt::format("NPU {:.3f} us + CPU fallback {:.3f} us + transitions and transfers {:.3f} us", in.npu.latency_us,
                       in.host.compute_us, in.host.transition_us + in.host.transfer_us)},
          {"post", r.options.post.us, source(r.options.post)}};
}

std::string slowest_stage(const runtime::StreamResult& r) {
  const auto s = stages(r);
  return std::max_element(s.begin(), s.end(), [](const StageView& a, const StageView& b) { return a.us < b.us; })
      ->name;
}

nlohmann::json metrics_json(const runtime::StreamMetrics& m, const std::vector<runtime::FrameTimes>& frames) {
  nlohmann::json per_frame = nlohmann::json::array();
  for (const auto& f : frames)
    per_frame.push_back({{"pre_start_us", f.pre_start_us}, {"pre_end_us", f.pre_end_us},
                         {"infer_start_us", f.infer_start_us}, {"infer_end_us", f.infer_end_us},
                         {"post_start_us", f.post_start_us}, {"post_end_us", f.post_end_us},
                         {"latency_us", f.latency_us()}});
  return {{"makespan_us", m.makespan_us},
          {"frame_interval_us", m.frame_interval_us},
          {"throughput_fps", m.throughput_fps},
          {"first_latency_us", m.first_latency_us},
          {"mean_latency_us", m.mean_latency_us},
          {"max_latency_us", m.max_latency_us},
          {"npu_busy_us", m.npu_busy_us},
          {"npu_idle_us", m.npu_idle_us},
          {"npu_idle_per_frame_us", m.npu_idle_per_frame_us},
          {"frames", per_frame}};
}

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

}  // namespace

std::string format_stream_report(const runtime::StreamResult& r, const HardwareConfig& config) {
  std::string s;
  auto line = [&](auto&&... args) {
    s += fmt::format(std::forward<decltype(args)>(args)...);
    s += '\n';
  };
  for (const auto& w : r.inference.warnings) line("warning: {}", w);
  for (const auto& n : r.inference.notes) line("{}", n);
  line("model             {} ({}) on {}", r.inference.model, r.inference.precision, config.name);
  for (const auto& st : stages(r)) line("stage {:<11} {:12.3f} us  {}", st.name, st.us, st.source);
  line("stream            {} frames; pipelined with {} buffer(s) per tensor between stages{}", r.options.frames,
       r.options.depth, r.options.depth == 2 ? " (double-buffered)" : "");
  const auto& p = r.pipelined_metrics;
  const auto& q = r.serial_metrics;
  line("{:<26} {:>14} {:>14} {:>8}", "", "pipelined", "serial", "ratio");
  line("{:<26} {:>11.3f} us {:>11.3f} us {:>7.2f}x", "steady frame interval", p.frame_interval_us, q.frame_interval_us,
       ratio(q.frame_interval_us, p.frame_interval_us));
  line("{:<26} {:>10.1f} fps {:>10.1f} fps {:>7.2f}x", "throughput", p.throughput_fps, q.throughput_fps,
       ratio(p.throughput_fps, q.throughput_fps));
  line("{:<26} {:>11.3f} us {:>11.3f} us", "latency, first frame", p.first_latency_us, q.first_latency_us);
  line("{:<26} {:>11.3f} us {:>11.3f} us", "latency, mean", p.mean_latency_us, q.mean_latency_us);
  line("{:<26} {:>11.3f} us {:>11.3f} us", "latency, max", p.max_latency_us, q.max_latency_us);
  line("{:<26} {:>11.3f} us {:>11.3f} us", "makespan", p.makespan_us, q.makespan_us);
  line("{:<26} {:>11.3f} us {:>11.3f} us", "NPU idle", p.npu_idle_us, q.npu_idle_us);
  line("{:<26} {:>11.3f} us {:>11.3f} us", "NPU idle per frame (steady)", p.npu_idle_per_frame_us,
       q.npu_idle_per_frame_us);
  line("{:<26} {:>13.1f}% {:>13.1f}%", "NPU busy", 100 * ratio(p.npu_busy_us, p.makespan_us),
       100 * ratio(q.npu_busy_us, q.makespan_us));
  line("slowest stage     {}: the pipelined frame interval cannot be shorter than it; serial pays the sum of "
       "the stages",
       slowest_stage(r));
  return s;
}

nlohmann::json stream_report_json(const runtime::StreamResult& r, const container::CompiledModel& model,
                                  const HardwareConfig& config) {
  nlohmann::json j;
  j["model"] = r.inference.model;
  j["config"] = config.name;
  j["frames"] = r.options.frames;
  j["depth"] = r.options.depth;
  nlohmann::json st;
  for (const auto& s : stages(r)) st[s.name] = {{"us", s.us}, {"source", s.source}};
  st["inference"]["npu_us"] = r.npu_us;
  for (const auto* h : {&r.options.pre, &r.options.post}) {
    st[h->name]["model"] = h->model;
    st[h->name]["flops"] = h->flops;
  }
  j["stages"] = st;
  j["slowest_stage"] = slowest_stage(r);
  j["pipelined"] = metrics_json(r.pipelined_metrics, r.pipelined);
  j["serial"] = metrics_json(r.serial_metrics, r.serial);
  j["speedup"] = ratio(r.serial_metrics.frame_interval_us, r.pipelined_metrics.frame_interval_us);
  j["inference"] = model_report_json(build_model_report(model, config, r.inference), config);
  return j;
}

void write_stream_trace(const runtime::StreamResult& r, const container::CompiledModel& model,
                        const HardwareConfig& config, std::ostream& out) {
  const double mhz = config.clock.frequency_mhz;
  auto cycles = [&](double us) { return static_cast<std::uint64_t>(std::llround(us * mhz)); };
  std::vector<sim::TraceEvent> inference = r.inference.npu.trace;
  label_trace(inference, instruction_labels(model.layers, model.program));

  sim::SimResult timeline;
  timeline.clock_mhz = mhz;
  for (std::size_t i = 0; i < r.pipelined.size(); ++i) {
    const auto& f = r.pipelined[i];
    const auto frame = static_cast<std::int64_t>(i);
    for (const auto& [track, name, start, end] :
         {std::tuple{"host pre", "pre", f.pre_start_us, f.pre_end_us},
          std::tuple{"inference", "inference", f.infer_start_us, f.infer_end_us},
          std::tuple{"host post", "post", f.post_start_us, f.post_end_us}}) {
      sim::TraceEvent e;
      e.track = track;
      e.name = fmt::format("{} frame {}", name, i);
      e.start_cycle = cycles(start);
      e.duration_cycles = cycles(end) - cycles(start);
      e.args["frame"] = frame;
      timeline.trace.push_back(std::move(e));
    }
    const std::uint64_t offset = cycles(f.infer_start_us);
    for (auto e : inference) {
      e.start_cycle += offset;
      e.args["frame"] = frame;
      timeline.trace.push_back(std::move(e));
    }
    for (auto sample : r.inference.npu.ddr_bandwidth) {
      sample.cycle += offset;
      timeline.ddr_bandwidth.push_back(sample);
    }
  }
  sim::write_chrome_trace(timeline, config, out);
}

}  // namespace npu::report
