// Scratchpad bank conflicts between the units that access the SRAM: the MAC array (operand
// reads, result writes), the vector unit and the DMA engine's scratchpad port. Banks come from
// costmodel/sram_banks.h (sram.banks, bank_mapping, bank_interleave_bytes); each bank reads or
// writes sram.bank_width_bytes per cycle.
//
// The simulator charges these stalls; the program estimate (program_estimate.h) replays them.
// Rule (sim/README.md "Scratchpad banks"): an access (a compute or vector instruction, or one
// chunk of a DMA transfer on the scratchpad port) spreads its bytes evenly over its duration,
// so on bank b it uses a fraction x_b = min(1, bytes_b / (bank_width * cycles)) of the cycles.
// When it starts while accesses of other units are still running, each cycle it shares with
// one of them collides with probability min(1, sum_b x_b * y_b) (y: the other's fractions):
// the newcomer waits those cycles (the running access keeps the bank). Its stall is
//   ceil(sum over running accesses of overlap_cycles * min(1, sum_b x_b * y_b)),
// where overlap_cycles is how much of its undelayed duration the other still runs. Tensors on
// different banks never collide. Fractions are worked out only when two accesses meet.
#pragma once
#include <cstdint>
#include <vector>

#include "costmodel/sram_banks.h"
#include "hwconfig/hardware_config.h"

namespace npu::cost {

class ScratchpadBanks {
 public:
  enum Agent { kCompute, kVector, kDma, kAgents };
  // The scratchpad ranges one access touches.
  class Access {
   public:
    // [addr, addr + bytes), each byte accessed `times` times.
    void add(std::uint64_t addr, std::uint64_t bytes, double times = 1.0) { ranges_.push_back({addr, bytes, times}); }
    void clear() { ranges_.clear(); }

   private:
    friend class ScratchpadBanks;
    struct Range {
      std::uint64_t addr, bytes;
      double times;
    };
    std::vector<Range> ranges_;
  };

  explicit ScratchpadBanks(const SramConfig& config);
  const SramBankMap& map() const { return map_; }
  // Registers `access` of `agent` over [start, start + cycles) and returns its stall cycles;
  // the access then runs until start + cycles + stall.
  std::uint64_t begin(Agent agent, std::uint64_t start, std::uint64_t cycles, const Access& access);

 private:
  struct Running {
    std::uint64_t start = 0, cycles = 0, end = 0;
    Access access;
    bool profiled = false;             // fraction / banks below are up to date
    std::vector<std::uint32_t> banks;  // banks with a non-zero fraction
    std::vector<double> fraction;      // per bank
  };
  void profile(Running& r) const;

  SramBankMap map_;
  double bank_width_;
  Running running_[kAgents];
};

}  // namespace npu::cost
