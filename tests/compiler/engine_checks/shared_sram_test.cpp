// A shared SRAM (engines.shared_sram_kib) takes the values an NPU step keeps to itself off the
// DDR (the compiler places them in the ISA's window, isa::kSharedSramBase): on 4 engines the
// INT8 outputs still equal the integer reference bit for bit, the DDR moves fewer bytes, and
// the compile estimate is what the functional simulation takes.
#include <catch2/catch.hpp>
#include <cmath>

#include "compiler/compile.h"
#include "container/compiled_model.h"
#include "isa/instruction_set.h"
#include "sim/simulator.h"
#include "tests/compiler/sim_checks/sim_check_helpers.h"

using namespace npu;
using namespace npu::compiler;
using namespace npu::compiler::sim_checks;

namespace {

struct SharedRun {
  sim::SimResult totals;             // summed over the NPU steps
  std::uint64_t estimated_cycles = 0;
  std::size_t shared_values = 0;     // tensor-table entries in the window
  std::size_t outputs_compared = 0;
};

// Compiles `model` for INT8 on default.yaml with 4 engines of 64 KiB (so values spill and
// engines exchange them) and `shared_kib` of shared SRAM, runs it functionally and checks every
// model output against the integer reference.
SharedRun run_on_four_engines(const std::string& model, std::uint64_t shared_kib) {
  HardwareConfig config = load_hardware_config(config_path("default.yaml"));
  config.sram.capacity_bytes = 64 * 1024;
  config.engines.count = 4;
  config.engines.shared_sram_bytes = shared_kib * 1024;
  CompileOptions options;
  options.engine_split = EngineSplitMode::Traffic;  // the same split with and without the shared SRAM
  Int8Compiled compiled = compile_int8(model, config, options);
  Graph& g = compiled.graph;
  CompiledModel& m = compiled.model;
  time_npu_steps(config, m);

  SharedRun out;
  for (const auto& step : m.steps)
    if (step.kind == container::Step::Kind::Npu) out.estimated_cycles += step.npu.estimated_cycles;
  for (const auto& t : m.program.tensors) out.shared_values += t.ddr_addr >= isa::kSharedSramBase ? 1 : 0;

  sim::DdrImage ddr;
  ddr.place(m.program);
  const Int8Values inputs = write_random_inputs(g, m, ddr, 5);
  const Int8Values expected = run_integer_reference(g, inputs);
  sim::SimOptions functional;
  functional.timing_only = false;
  for (const auto& step : m.steps) {
    if (step.kind != container::Step::Kind::Npu) continue;
    const sim::SimResult r = sim::simulate(container::step_program(m.program, step.npu), config, ddr, functional);
    out.totals.cycles += r.cycles;
    out.totals.ddr_bytes_read += r.ddr_bytes_read;
    out.totals.ddr_bytes_written += r.ddr_bytes_written;
    out.totals.shared_sram_bytes_read += r.shared_sram_bytes_read;
    out.totals.shared_sram_bytes_written += r.shared_sram_bytes_written;
  }
  for (const auto& name : g.outputs) {
    const isa::TensorEntry* e = find_entry(m.program, name);
    REQUIRE(e);
    REQUIRE(e->ddr_addr < isa::kSharedSramBase);  // the host reads outputs from DDR
    const auto& want = expected.at(name);
    REQUIRE(want.size() == e->size_bytes);
    std::vector<std::int8_t> got(want.size());
    ddr.read(e->ddr_addr, got.data(), got.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < got.size(); ++i) differ += got[i] != want[i];
    INFO(model << " output '" << name << "', shared SRAM " << shared_kib << " KiB: " << differ << " of "
               << got.size() << " bytes differ");
    REQUIRE(differ == 0);
    ++out.outputs_compared;
  }
  return out;
}

std::uint64_t ddr_bytes(const sim::SimResult& r) { return r.ddr_bytes_read + r.ddr_bytes_written; }
std::uint64_t shared_bytes(const sim::SimResult& r) { return r.shared_sram_bytes_read + r.shared_sram_bytes_written; }

}  // namespace

TEST_CASE("int8 CNNs on 4 engines with a shared SRAM: bit for bit, fewer DDR bytes, estimate = simulation",
          "[compiler][sim][int8][engines][shared_sram]") {
  for (const char* name : {"resnet18", "mobilenetv2"}) {
    const std::string model = std::string(NPUSIM_SMALL_MODELS_DIR) + "/" + name + ".onnx";
    REQUIRE_MODEL(model);
    INFO(name);
    const SharedRun ddr_only = run_on_four_engines(model, 0);
    const SharedRun shared = run_on_four_engines(model, 2048);
    CHECK(ddr_only.outputs_compared > 0);
    CHECK(ddr_only.shared_values == 0);
    CHECK(shared_bytes(ddr_only.totals) == 0);
    CHECK(shared.shared_values > 0);
    CHECK(shared_bytes(shared.totals) > 0);
    // What moves between the scratchpads and the shared SRAM no longer crosses the DDR. The
    // scheduler times its trials with the shared SRAM too, so it may spill a little differently:
    // the bytes moved in all stay within 5 % of the DDR-only program's, and the DDR sheds at
    // least half of what the shared SRAM took.
    const auto before = static_cast<double>(ddr_bytes(ddr_only.totals));
    const auto after = static_cast<double>(ddr_bytes(shared.totals));
    const auto moved = static_cast<double>(shared_bytes(shared.totals));
    INFO(name << ": DDR " << before << " -> " << after << " B, shared SRAM " << moved << " B");
    CHECK(after < before);
    CHECK(before - after >= 0.5 * moved);
    CHECK(std::abs(after + moved - before) <= 0.05 * before);
    CHECK(shared.estimated_cycles == shared.totals.cycles);
    CHECK(ddr_only.estimated_cycles == ddr_only.totals.cycles);
  }
}
