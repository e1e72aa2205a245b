// The timing core: when every instruction of a program runs on the NPU. It owns every rule
// that orders the machine's work (sim/README.md "Timing rules"): in-order dispatch into
// bounded per-unit queues, in-order units, dependency tokens, DMA channels (serial or
// pipelined) and the retirement of their transfers in issue order, the arbitration of the DDR
// bus and the scratchpad's DMA port chunk by chunk, the DDR timing models, scratchpad bank
// conflicts, barrier and halt. Durations come from the cost model (mac_cost, vector_cost,
// dma_cost) through the program plan. No SystemC: the simulator (sim/) is a shell that moves
// the data at the moments this core names, and the compiler's estimate runs the same core, so
// the two agree cycle for cycle.
//
// It is a discrete-event model with one event per instruction, DMA transfer or chunk. Work at
// one cycle happens in a fixed order until nothing more can happen at that cycle: finished
// transfers and instructions give their tokens, units take instructions and start them, the
// controller dispatches, channels start transfers; the arbiters grant chunks last, once every
// request of that cycle has arrived.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "costmodel/ddr/ddr_model.h"
#include "costmodel/machine/instruction_timing.h"
#include "costmodel/program_plan.h"
#include "hwconfig/hardware_config.h"

namespace npu::cost {

// What the core tells whoever drives it, at the cycle it happens (a SystemC shell calls these
// at the same simulated time). Every callback has an empty default.
class MachineListener {
 public:
  virtual ~MachineListener() = default;
  // A compute or vector instruction starts now (its operands are read now).
  virtual void instruction_started(const PlannedOp& op, std::uint64_t cycle) {}
  // ... and ran [start, end) after waiting `stall` for tokens; `bank_conflict` of it was waiting
  // for scratchpad banks.
  virtual void instruction_finished(const PlannedOp& op, std::uint64_t start, std::uint64_t end, std::uint64_t stall,
                                    std::uint64_t bank_conflict) {}
  // A DMA instruction was handed to its channel after `stall` cycles for tokens and then
  // `channel_wait` for the channel.
  virtual void dma_issued(const PlannedOp& op, std::uint64_t stall, std::uint64_t channel_wait) {}
  virtual void transfer_started(const DmaTransfer& t, std::uint64_t cycle) {}
  virtual void transfer_finished(const DmaTransfer& t, std::uint64_t start, std::uint64_t end,
                                 const DmaOutcome& outcome) {}
  // Barrier or halt: the controller waited [start, end) for everything dispatched to finish.
  virtual void control(const PlannedOp& op, std::uint64_t start, std::uint64_t end) {}
  // A piece of a transfer (bytes at `ddr` <-> `sram`) was granted the DDR bus: its data moves now.
  virtual void piece_granted(const DmaTransfer& t, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes) {}
};

struct MachineOptions {
  bool record_instructions = true;  // keep an InstructionTiming per instruction (take_instruction_timings)
  // The DDR model's streaming approximation (make_streaming_ddr) instead of the configured model:
  // for the compiler's trial estimates, which time thousands of candidate schedules.
  bool streaming_ddr = false;
};

class Machine {
 public:
  // `plan` and `config` must outlive the machine.
  Machine(const ProgramPlan& plan, const HardwareConfig& config, MachineListener* listener = nullptr,
          const MachineOptions& options = {});
  // Several engines (plan_engines): engine e runs *engine_plans[e]; they share the DDR and its
  // bus arbiter and meet at syncs. The plans must outlive the machine.
  Machine(const std::vector<const ProgramPlan*>& engine_plans, const HardwareConfig& config,
          MachineListener* listener = nullptr, const MachineOptions& options = {});
  ~Machine();
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  // The next cycle at which something happens; nullopt once the run has halted, or when
  // nothing can happen any more before halt (a deadlock: deadlock_message says why).
  std::optional<std::uint64_t> next_cycle() const;
  // Handles everything that happens at `cycle` (the value next_cycle() gave).
  void run_at(std::uint64_t cycle);
  // Runs to halt; throws MachineDeadlock if the program cannot reach it.
  void run();

  bool halted() const;  // every engine has halted
  std::uint64_t end_cycle() const;  // the last halt's finish; the last cycle handled before a deadlock
  std::uint64_t engine_end_cycle(std::size_t engine) const;  // that engine's halt
  std::size_t engine_count() const;
  std::string deadlock_message() const;
  // The DDR model after the run ended at end_cycle(): its counters, refresh up to the end included.
  const DdrCounters& finish_ddr();
  // The shared SRAM's counters (bus_bytes: bytes moved, data_ns: its port's busy time); null
  // without one.
  const DdrCounters* shared_sram_counters() const;
  std::vector<InstructionTiming> take_instruction_timings();

  // Candidate schedules that share their first instructions (the layer interleave times each
  // against the others) need not each time that common part. Plan it alone, stop the controller
  // before op `op` (the end of the common part: it dispatches nothing from there on), and
  // run_to_stop(): true once the controller has reached it (the whole cycle handled), false if
  // the run ended first. Then fork() per candidate.
  void stop_before(std::size_t op);
  bool run_to_stop();
  // A machine that goes on from this stopped one with `plan`: its ops before the stop must be
  // this plan's, except that they may push more dependency tokens (to consumers after the stop).
  // Runs to halt as `plan`'s own machine would, cycle for cycle. nullptr when it cannot: several
  // engines, a shared SRAM, a DDR model without copies, dispatch in 0 cycles, the plans differ
  // before the stop.
  std::unique_ptr<Machine> fork(const ProgramPlan& plan) const;

 private:
  struct State;
  explicit Machine(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

struct MachineDeadlock : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace npu::cost
