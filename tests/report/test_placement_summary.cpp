// The compile-time placement summary: layer, MAC, island and transition counts, the time
// estimate against the cost model and the host model, and the per-op-type grouping.
#include <catch2/catch.hpp>

#include "costmodel/mac_cost.h"
#include "hwconfig/hardware_config.h"
#include "report/compile_summary.h"
#include "report/placement_summary.h"
#include "runtime/host_time_model.h"

using namespace npu;
using namespace npu::report;

namespace {

isa::Instruction gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  auto g = isa::make_instruction(isa::Opcode::Gemm);
  g.set(isa::Field::m, m);
  g.set(isa::Field::n, n);
  g.set(isa::Field::k, k);
  g.set(isa::Field::a_addr, 0);
  g.set(isa::Field::b_addr, 4096);
  g.set(isa::Field::c_addr, 8192);
  return g;
}

container::LayerRecord layer(const std::string& name, const std::string& op, const std::string& device,
                             std::uint64_t macs, std::uint32_t first = 0, std::uint32_t end = 0) {
  container::LayerRecord r;
  r.name = name;
  r.op = op;
  r.device = device;
  r.macs = macs;
  r.first_instruction = first;
  r.end_instruction = end;
  return r;
}

}  // namespace

TEST_CASE("placement counts layers, MACs, CPU islands and transitions and estimates the NPU's share of time",
          "[report][placement]") {
  HardwareConfig hw;  // defaults: 1 GHz, host 50 GFLOP/s, 20 us per transition
  container::CompiledModel m;
  // NPU step 0: one gemm (conv layer); CPU step: Erf; NPU step 1: a second gemm (Conv+Relu)
  m.program.code = {gemm(32, 32, 64), isa::make_instruction(isa::Opcode::Halt), gemm(16, 16, 16),
                    isa::make_instruction(isa::Opcode::Halt)};
  container::Step npu0, cpu, npu1;
  npu0.npu.first_instruction = 0;
  npu0.npu.end_instruction = 2;
  npu0.npu.estimated_cycles = 1200;  // compile() sets it: the timing core's cycles for the step
  cpu.kind = container::Step::Kind::Cpu;
  cpu.cpu.flops = 500000;  // 10 us at 50 GFLOP/s
  npu1.npu.first_instruction = 2;
  npu1.npu.end_instruction = 4;
  npu1.npu.estimated_cycles = 345;
  m.steps = {npu0, cpu, npu1};
  m.npu_cpu_transitions = 2;
  m.layers = {layer("conv", "Conv", "npu", 32 * 32 * 64, 0, 1), layer("erf", "Erf", "cpu", 0),
              layer("big", "FusedConv", "cpu", 1000), layer("conv2", "Conv+Relu", "npu", 16 * 16 * 16, 2, 3)};
  m.fallbacks = {{"erf", "Erf", "op Erf has no NPU instruction"}, {"big", "FusedConv", "kernel 17 exceeds the field"}};

  const PlacementSummary p = summarize_placement(m, hw);
  CHECK(p.layers == 4);
  CHECK(p.npu_layers == 2);
  CHECK(p.macs == 32 * 32 * 64 + 1000 + 16 * 16 * 16);
  CHECK(p.mac_percent() == Approx(100.0 * (32 * 32 * 64 + 16 * 16 * 16) / p.macs));
  CHECK(p.cpu_islands == 1);  // erf and big are one run of CPU layers
  CHECK(p.transitions == 2);
  CHECK(p.npu_us == Approx((1200 + 345) * hw.cycle_ns() / 1000.0));
  CHECK(p.cpu_us == Approx(runtime::cpu_compute_us(500000, hw.host)));
  CHECK(p.transition_us == Approx(2 * hw.host.transition_us));
  CHECK(p.npu_time_percent() == Approx(100.0 * p.npu_us / (p.npu_us + p.cpu_us + p.transition_us)));

  // per op type: a fallen-back FusedConv and Conv+Relu count as Conv
  REQUIRE(p.ops.size() == 2);
  CHECK(p.ops[0].op == "Conv");
  CHECK(p.ops[0].npu == 2);
  CHECK(p.ops[0].cpu == 1);
  CHECK(p.ops[0].reasons.at("kernel 17 exceeds the field") == 1);
  const std::string line = format_placement(p);
  CHECK(line.rfind("placement: 2 of 4 layers, ", 0) == 0);
  CHECK(line.find("1 CPU island(s), 2 transition(s)") != std::string::npos);
  CHECK(format_placement_by_op(p).find("op Erf has no NPU instruction x1") != std::string::npos);
}
