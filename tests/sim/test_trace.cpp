// The Chrome/Perfetto trace: tracks, event args, labels and the DDR-bandwidth counter.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/trace_writer.h"
#include "tests/sim/mixed_program.h"
#include "tests/sim/sim_test_util.h"

using namespace simtest;
using nlohmann::json;

namespace {

struct ParsedTrace {
  std::map<int, std::string> names;               // tid -> thread_name
  std::map<std::string, std::vector<json>> slices;  // track -> "X" events
  std::vector<json> counters;                      // "C" events
};

ParsedTrace parse(const npu::sim::SimResult& r, const npu::HardwareConfig& c) {
  std::ostringstream out;
  npu::sim::write_chrome_trace(r, c, out);
  const json j = json::parse(out.str());
  ParsedTrace t;
  for (const auto& e : j.at("traceEvents"))
    if (e.at("ph") == "M" && e.at("name") == "thread_name") t.names[e.at("tid").get<int>()] = e["args"]["name"];
  for (const auto& e : j.at("traceEvents")) {
    const std::string ph = e.at("ph");
    REQUIRE((ph == "X" || ph == "M" || ph == "C"));
    if (ph == "X") {
      REQUIRE(e.at("ts").is_number());
      REQUIRE(e.at("dur").is_number());
      REQUIRE(e.at("dur").get<double>() >= 0);
      REQUIRE(e.at("name").is_string());
      t.slices[t.names.at(e.at("tid").get<int>())].push_back(e);  // every track is named
    } else if (ph == "C") {
      t.counters.push_back(e);
    }
  }
  return t;
}

std::uint64_t cycles_of(const std::vector<json>& events) {
  std::uint64_t sum = 0;
  for (const auto& e : events) sum += e["args"]["cycles"].get<std::uint64_t>();
  return sum;
}

npu::HardwareConfig three_channels() {
  auto c = config();
  c.dma.channels = 3;
  c.clock.frequency_mhz = 1200.0;  // fractional microseconds
  return c;
}

}  // namespace

TEST_CASE("trace: a named track per unit and per DMA channel", "[trace]") {
  const auto c = three_channels();
  const auto t = parse(run(mixed_program(8), c, true, true), c);
  std::set<std::string> names;
  for (const auto& [tid, name] : t.names) names.insert(name);
  for (const char* track : {"load", "compute", "vector", "store", "dma0", "dma1", "dma2", "control"})
    CHECK(names.count(track) == 1);
  // Idle tracks are still declared: a run with compute only shows all of them.
  const auto idle = parse(run(program({gemm(0, 8192, 16384, 16, 16, 16), halt()}), c, true, true), c);
  CHECK(idle.names.size() >= 7);
}

TEST_CASE("trace: each track's durations sum to the unit's or channel's busy cycles", "[trace]") {
  const auto c = three_channels();
  const auto r = run(mixed_program(12), c, true, true);
  auto t = parse(r, c);
  // Compute and vector run one instruction at a time: one event each.
  CHECK(t.slices["compute"].size() == 12);
  CHECK(cycles_of(t.slices["compute"]) == r.compute.busy_cycles);
  CHECK(cycles_of(t.slices["vector"]) == r.vector.busy_cycles);
  // Load and store show busy spans (union over channels), which never overlap.
  CHECK(cycles_of(t.slices["load"]) == r.load.busy_cycles);
  CHECK(cycles_of(t.slices["store"]) == r.store.busy_cycles);
  for (const char* unit : {"load", "store"}) {
    auto& spans = t.slices[unit];
    std::sort(spans.begin(), spans.end(), [](const json& a, const json& b) { return a["ts"] < b["ts"]; });
    std::uint64_t transfers = 0;
    for (std::size_t i = 0; i < spans.size(); ++i) {
      transfers += spans[i]["args"]["transfers"].get<std::uint64_t>();
      if (i > 0)
        CHECK(spans[i]["args"]["start_cycle"].get<std::uint64_t>() >=
              spans[i - 1]["args"]["start_cycle"].get<std::uint64_t>() + spans[i - 1]["args"]["cycles"].get<std::uint64_t>());
    }
    CHECK(transfers == 12);
  }
  // A DMA channel runs one transfer at a time: its events sum to its busy cycles.
  std::size_t transfers = 0;
  for (int ch = 0; ch < 3; ++ch) {
    const auto& events = t.slices["dma" + std::to_string(ch)];
    transfers += events.size();
    CHECK(cycles_of(events) == r.dma_channels[ch].busy_cycles);
  }
  CHECK(transfers == 24);
  // ts/dur are microseconds at 1200 MHz.
  double compute_us = 0;
  for (const auto& e : t.slices["compute"]) compute_us += e["dur"].get<double>();
  CHECK(compute_us == Approx(r.compute.busy_cycles / 1200.0));
  const auto& first = t.slices["compute"].front();
  CHECK(first["ts"].get<double>() == Approx(first["args"]["start_cycle"].get<double>() / 1200.0));
}

TEST_CASE("trace: DMA, gemm and conv events carry their instruction's args", "[trace]") {
  auto conv = make(Opcode::Conv);
  for (auto [f, v] : std::vector<std::pair<Field, int>>{{Field::in_addr, 0},      {Field::w_addr, 0x10000},
                                                        {Field::out_addr, 0x20000}, {Field::in_h, 8},
                                                        {Field::in_w, 6},         {Field::in_c, 32},
                                                        {Field::out_c, 64},       {Field::kernel_h, 3},
                                                        {Field::kernel_w, 3},     {Field::stride_h, 1},
                                                        {Field::stride_w, 1}})
    conv.set(f, v);
  const auto c = config();
  const auto r = run(program({load(0x40, 0x100, 4096, 1), gemm(0, 8192, 16384, 64, 32, 48), conv, halt()}), c, true,
                     true);
  auto t = parse(r, c);
  REQUIRE(t.slices["dma1"].size() == 1);
  const auto& d = t.slices["dma1"][0]["args"];
  CHECK(t.slices["dma1"][0]["name"] == "load");
  CHECK(d["instruction"] == 0);
  CHECK(d["bytes"] == 4096);
  CHECK(d["bus_bytes"] == 4096);
  CHECK(d["ddr_addr"] == 0x40);
  CHECK(d["sram_addr"] == 0x100);
  CHECK(d["channel"] == 1);
  REQUIRE(t.slices["compute"].size() == 2);
  const auto& g = t.slices["compute"][0];
  CHECK(g["name"] == "gemm");
  CHECK(g["args"]["m"] == 64);
  CHECK(g["args"]["n"] == 32);
  CHECK(g["args"]["k"] == 48);
  CHECK(g["args"]["macs"] == 64 * 32 * 48);
  CHECK(g["args"]["sram_read"] == r.compute.sram_bytes_read - t.slices["compute"][1]["args"]["sram_read"].get<std::uint64_t>());
  const auto& cv = t.slices["compute"][1]["args"];
  // 8x6x32 -> 64, 3x3, no pad: out 6x4, m = 24, k = 288.
  CHECK(cv["out_h"] == 6);
  CHECK(cv["out_w"] == 4);
  CHECK(cv["in_c"] == 32);
  CHECK(cv["out_c"] == 64);
  CHECK(cv["kernel_h"] == 3);
  CHECK(cv["m"] == 24);
  CHECK(cv["k"] == 288);
}

TEST_CASE("trace: caller labels give layer names and tile coordinates", "[trace]") {
  const auto c = three_channels();
  npu::sim::DdrImage ddr;
  npu::sim::SimOptions o;
  o.timing_only = true;
  o.record_trace = true;
  // Tiles of 4 instructions; two "layers"; the last tile is left unlabelled (short vector).
  for (int i = 0; i < 5 * 4; ++i) o.instruction_labels.push_back({i < 12 ? "conv1" : "conv2", {{"m", i / 4}}});
  const auto r = npu::sim::simulate(mixed_program(6), c, ddr, o);
  auto t = parse(r, c);
  for (const auto& e : t.slices["compute"]) {
    const auto index = e["args"]["instruction"].get<int>();
    if (index < 20) {
      CHECK(e["args"]["layer"] == (index < 12 ? "conv1" : "conv2"));
      CHECK(e["args"]["tile_m"] == index / 4);
    } else {
      CHECK_FALSE(e["args"].contains("layer"));
      CHECK_FALSE(e["args"].contains("tile_m"));
    }
  }
  for (int ch = 0; ch < 3; ++ch)
    for (const auto& e : t.slices["dma" + std::to_string(ch)])
      if (e["args"]["instruction"].get<int>() < 12) CHECK(e["args"]["layer"] == "conv1");
}

TEST_CASE("trace: DDR bandwidth counter", "[trace][ddr]") {
  // One 4096 B load, [1, 293) (setup 32 + DDR 260): 4096 bus bytes over 292 cycles at 1 GHz
  // = 14.027 GB/s from cycle 1 to 293, 0 before and after.
  const auto c = config();
  const auto one = run(program({load(0, 0, 4096), halt()}), c, true, true);
  REQUIRE(one.ddr_bandwidth.size() == 3);
  CHECK(one.ddr_bandwidth[0].cycle == 0);
  CHECK(one.ddr_bandwidth[0].gbps == 0.0);
  CHECK(one.ddr_bandwidth[1].cycle == 1);
  CHECK(one.ddr_bandwidth[1].gbps == Approx(4096.0 / 292.0));
  CHECK(one.ddr_bandwidth[2].cycle == 293);
  CHECK(one.ddr_bandwidth[2].gbps == 0.0);
  const auto t1 = parse(one, c);
  REQUIRE(t1.counters.size() == 3);
  CHECK(t1.counters[1]["name"] == "DDR bandwidth");
  CHECK(t1.counters[1]["ts"].get<double>() == Approx(0.001));
  CHECK(t1.counters[1]["args"]["GB/s"].get<double>() == Approx(4096.0 / 292.0));

  // Overlapping transfers on three channels: the steps are time-ordered, never negative, and
  // integrate to the bus bytes (GB/s * 1e3 * cycles / MHz = bytes).
  const auto c3 = three_channels();
  const auto r = run(mixed_program(12), c3, true, true);
  const auto& s = r.ddr_bandwidth;
  REQUIRE(s.size() > 2);
  double bytes = 0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    CHECK(s[i].cycle < s[i + 1].cycle);
    CHECK(s[i].gbps >= 0.0);
    bytes += s[i].gbps * 1e3 * static_cast<double>(s[i + 1].cycle - s[i].cycle) / c3.clock.frequency_mhz;
  }
  CHECK(s.back().gbps == 0.0);
  CHECK(bytes == Approx(static_cast<double>(r.ddr_bus_bytes)).epsilon(1e-9));
  CHECK(parse(r, c3).counters.size() == s.size());
  // Not recorded without a trace.
  CHECK(run(mixed_program(4), c3, true, false).ddr_bandwidth.empty());
}
