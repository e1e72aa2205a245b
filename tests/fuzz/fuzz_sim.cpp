// The simulator on programs nobody compiled: a .npuprog (re-sealed as in fuzz_npuprog), run on
// configs/default.yaml functionally and timing-only. Whatever the program asks for, a run ends
// in a result or in a SimError (the one line `npusim sim` prints), and a program that runs
// functionally runs timing-only in the same cycles: timing-only skips the arithmetic, never
// the timing.
#include <string>
#include <vector>

#include "costmodel/footprint.h"
#include "hwconfig/hardware_config.h"
#include "isa/program.h"
#include "sim/simulator.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

// These bound the time of one input, not what the simulator accepts (a store may move up to
// the DDR's capacity, and the simulator models it burst by burst).
constexpr std::size_t kMaxInstructions = 512;
constexpr std::uint64_t kMaxDmaBytes = 64ull << 20;

std::uint64_t dma_bytes(const npu::isa::Program& program) {
  using npu::isa::Field;
  std::uint64_t total = 0;
  for (const auto& in : program.code) total += npu::cost::transfer_bytes(in);
  return total;
}

const npu::HardwareConfig& config() {
  static const npu::HardwareConfig c = npu::load_hardware_config(std::string(NPUSIM_SOURCE_DIR) + "/configs/default.yaml");
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace npu;
  std::vector<std::uint8_t> bytes(data, data + size);
  isa::reseal_program_bytes(bytes);
  isa::Program program;
  try {
    program = isa::deserialize(bytes.data(), bytes.size(), "fuzz.npuprog");
  } catch (const std::exception& e) {
    fuzz::require_clean_error(e, "fuzz.npuprog");
    return 0;
  }
  if (program.code.size() > kMaxInstructions || dma_bytes(program) > kMaxDmaBytes) return 0;
  std::uint64_t functional_cycles = 0;
  bool functional_ran = false;
  try {
    sim::DdrImage ddr;
    ddr.place(program);
    functional_cycles = sim::simulate(program, config(), ddr).cycles;
    functional_ran = true;
  } catch (const sim::SimError& e) {
    fuzz::require_clean_error(e);
  }
  // A functional run can also fail on the data (values timing-only never computes), so only a
  // program that ran functionally must run timing-only, and in as many cycles.
  try {
    sim::DdrImage ddr;
    sim::SimOptions timing;
    timing.timing_only = true;
    const std::uint64_t cycles = sim::simulate(program, config(), ddr, timing).cycles;
    fuzz::require(!functional_ran || cycles == functional_cycles,
                  "timing-only and functional runs of one program give different cycles");
  } catch (const sim::SimError& e) {
    fuzz::require_clean_error(e);
    fuzz::require(!functional_ran, "a program ran functionally but not timing-only");
  }
  return 0;
}
