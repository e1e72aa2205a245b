// The frame pipeline: schedules checked against hand-worked timelines, and one stream of a
// hand-written program through a session.
#include <catch2/catch.hpp>

#include "hwconfig/hardware_config.h"
#include "isa/assembler.h"
#include "report/stream_report.h"
#include "runtime/stream.h"

using namespace npu;
using namespace npu::runtime;

TEST_CASE("stream: double-buffered 2 + 8 + 1 ms frames, worked by hand", "[stream]") {
  // f0: pre 0-2, infer 2-10, post 10-11
  // f1: pre 2-4, infer waits for the NPU: 10-18, post 18-19
  // f2: pre waits for its input buffer (f0's, free when f0's inference ends at 10): 10-12,
  //     infer 18-26, post 26-27
  // f3: pre waits for f1's inference (18): 18-20, infer 26-34, post 34-35
  const auto f = schedule_frames(2, 8, 1, 4, 2, false);
  REQUIRE(f.size() == 4);
  const double expected[4][6] = {{0, 2, 2, 10, 10, 11}, {2, 4, 10, 18, 18, 19}, {10, 12, 18, 26, 26, 27},
                                 {18, 20, 26, 34, 34, 35}};
  for (int i = 0; i < 4; ++i) {
    CHECK(f[i].pre_start_us == expected[i][0]);
    CHECK(f[i].pre_end_us == expected[i][1]);
    CHECK(f[i].infer_start_us == expected[i][2]);
    CHECK(f[i].infer_end_us == expected[i][3]);
    CHECK(f[i].post_start_us == expected[i][4]);
    CHECK(f[i].post_end_us == expected[i][5]);
  }
  const auto m = stream_metrics(f, 8);
  CHECK(m.frame_interval_us == 8);  // the slowest stage
  CHECK(m.throughput_fps == Approx(125000));
  CHECK(m.first_latency_us == 11);
  CHECK(m.max_latency_us == 17);    // a frame pre-processed early waits for the NPU
  CHECK(m.makespan_us == 35);
  CHECK(m.npu_busy_us == 32);
  CHECK(m.npu_idle_us == 3);
  CHECK(m.npu_idle_per_frame_us == 0);
}

TEST_CASE("stream: serial pays the sum of the stages, one buffer the sum of two", "[stream]") {
  const auto serial = schedule_frames(2, 8, 1, 5, 2, true);
  for (std::size_t i = 0; i < serial.size(); ++i) {
    CHECK(serial[i].pre_start_us == 11.0 * static_cast<double>(i));
    CHECK(serial[i].latency_us() == 11);
  }
  CHECK(stream_metrics(serial, 8).frame_interval_us == 11);
  CHECK(stream_metrics(serial, 8).npu_idle_per_frame_us == 3);

  // One buffer: pre of frame i+1 waits until the NPU has read frame i's input (end of its
  // inference), so pre and inference alternate; post overlaps the next pre.
  const auto single = schedule_frames(2, 8, 1, 5, 1, false);
  CHECK(single[1].pre_start_us == 10);
  CHECK(single[1].infer_start_us == 12);
  CHECK(stream_metrics(single, 8).frame_interval_us == 10);

  // A slow pre-processing stage sets the pace whatever the depth.
  CHECK(stream_metrics(schedule_frames(12, 8, 1, 9, 2, false), 8).frame_interval_us == 12);
  CHECK(stream_metrics(schedule_frames(12, 8, 1, 9, 3, false), 8).frame_interval_us == 12);
  // One frame: the interval is its latency.
  CHECK(stream_metrics(schedule_frames(2, 8, 1, 1, 2, false), 8).frame_interval_us == 11);
}

TEST_CASE("stream: bad arguments are one line", "[stream]") {
  CHECK_THROWS_WITH(schedule_frames(1, 1, 1, 0, 2, false), "frames: must be at least 1 (got 0)");
  CHECK_THROWS_WITH(schedule_frames(1, 1, 1, 3, 0, false), "depth: must be at least 1 buffer (got 0)");
  CHECK_THROWS_WITH(schedule_frames(-1, 1, 1, 3, 2, false), Catch::Contains("must not be negative"));
}

TEST_CASE("stream: a session's inference is the middle stage, traced under every frame", "[stream]") {
  container::CompiledModel m;
  m.program = isa::assemble(R"(
.tensor name=x   role=input  dtype=int8 shape=1x64 layout=NC addr=0x1000 scale=0.5 zero_point=0
.tensor name=out role=output dtype=int8 shape=1x64 layout=NC addr=0x2000 scale=0.5 zero_point=0
  load channel=0 ddr_addr=0x1000 sram_addr=0 len0=64 push=vector
  clip dtype=0 dst_addr=64 src_addr=0 count=64 lo=0 hi=127 pop=load push=store
  store channel=0 ddr_addr=0x2000 sram_addr=64 len0=64 pop=vector
  halt
)", "clip.npuasm");
  container::Step step;
  step.npu = {0, 4, {"x"}, {"out"}};
  m.steps = {step};
  m.layers = {{"clip", "Clip", "npu", 0, 0, 4, 128, {"clip"}, {}}};
  m.model_inputs = {"x"};
  m.model_outputs = {"out"};
  const auto config = load_hardware_config(std::string(NPUSIM_SOURCE_DIR) + "/configs/default.yaml");
  SessionOptions options;
  options.timing_only = true;
  options.record_trace = true;
  Session session(m, config, options);
  StreamOptions stream;
  stream.frames = 6;
  stream.pre.us = 3;
  stream.post.us = 0.5;
  HostTensor x = make_host_tensor(ElementType::Float32, {1, 64});
  const auto r = run_stream(session, {{"x", x}}, stream);

  CHECK(r.infer_us == Approx(r.inference.latency_us()));
  CHECK(r.npu_us == Approx(static_cast<double>(r.inference.npu.cycles) / config.clock.frequency_mhz));
  REQUIRE(r.infer_us < 3);  // pre-processing is the slowest stage
  CHECK(r.pipelined_metrics.frame_interval_us == Approx(3));
  CHECK(r.serial_metrics.frame_interval_us == Approx(3 + r.infer_us + 0.5));

  const auto json = report::stream_report_json(r, m, config);
  CHECK(json["slowest_stage"] == "pre");
  CHECK(json["pipelined"]["frames"].size() == 6);
  CHECK(json["inference"]["cycles"] == r.inference.npu.cycles);
  std::ostringstream trace;
  report::write_stream_trace(r, m, config, trace);
  const auto events = nlohmann::json::parse(trace.str())["traceEvents"];
  int pre = 0, loads = 0;
  for (const auto& e : events) {
    if (e.value("cat", "") == "host pre") ++pre;
    if (e.value("cat", "") == "load" && e["args"].value("frame", -1) == 5) ++loads;
  }
  CHECK(pre == 6);
  CHECK(loads >= 1);  // the NPU's own events are repeated under the last frame's inference
  CHECK(report::format_stream_report(r, config).find("slowest stage     pre") != std::string::npos);
}
