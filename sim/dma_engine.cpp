#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "sim/dma_engine.h"

#include <algorithm>

#include <fmt/format.h>

#include "costmodel/dma_cost.h"

#include "sim/scratchpad.h"
#include "sim/sim_time.h"
#include "sim/simulator.h"

namespace npu::sim {

DmaEngine::DmaEngine(sc_core::sc_module_name name, const HardwareConfig& config, DmaListener& listener)
    : sc_module(name),
      ddr_socket("ddr_socket"),
      sram_socket("sram_socket"),
      listener_(listener),
      setup_cycles_(static_cast<std::uint64_t>(config.dma.setup_cycles)),
      dma_(config.dma) {
  for (int i = 0; i < config.dma.channels; ++i) {
    channels_.push_back(std::make_unique<Channel>());
    sc_core::sc_spawn_options opts;
    opts.set_stack_size(256 * 1024);
    sc_core::sc_spawn([this, i] { run_channel(static_cast<std::size_t>(i)); },
                      fmt::format("channel{}", i).c_str(), &opts);
  }
}

void DmaEngine::submit(const DmaTransfer& t) {
  Channel& ch = *channels_[t.channel];
  while (ch.pending) sc_core::wait(ch.freed);
  ch.pending = &t;
  ch.start.notify();
}

std::uint64_t DmaEngine::issue_runs(Channel& ch, const DmaTransfer& t) {
  if (!sram_asked_) {
    sram_ = scratchpad_pointer(sram_socket);
    sram_asked_ = true;
  }
  tlm::tlm_generic_payload& p = ch.payload;
  p.set_command(t.store ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p.set_data_length(static_cast<unsigned>(t.len0));
  p.set_streaming_width(static_cast<unsigned>(t.len0));
  p.set_byte_enable_ptr(nullptr);
  p.set_dmi_allowed(false);
  const sc_core::sc_time issue = cycles(setup_cycles_);
  sc_core::sc_time last = issue;
  for (std::uint64_t i3 = 0; i3 < t.count3; ++i3)
    for (std::uint64_t i2 = 0; i2 < t.count2; ++i2)
      for (std::uint64_t i1 = 0; i1 < t.count1; ++i1) {
        const std::uint64_t ddr = t.ddr_addr + i3 * t.ddr_stride3 + i2 * t.ddr_stride2 + i1 * t.ddr_stride1;
        const std::uint64_t sram = t.sram_addr + i3 * t.sram_stride3 + i2 * t.sram_stride2 + i1 * t.sram_stride1;
        p.set_address(ddr);
        p.set_data_ptr(sram_ ? sram_ + sram : nullptr);
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time delay = issue;  // every run is requested together; DDR queues them
        ddr_socket->b_transport(p, delay);
        if (p.is_response_error())
          throw SimError(fmt::format("{}: DDR access {:#x} + {} bytes failed ({})",
                                     instruction_label(t.index, t.store ? isa::Opcode::Store : isa::Opcode::Load),
                                     ddr, t.len0, p.get_response_string()));
        last = std::max(last, delay);
      }
  return to_cycles(last);
}

void DmaEngine::run_channel(std::size_t index) {
  Channel& ch = *channels_[index];
  try {
    for (;;) {
      while (!ch.pending) sc_core::wait(ch.start);
      const DmaTransfer& t = *ch.pending;
      const std::uint64_t start = now_cycles();
      listener_.transfer_started(t, start);
      const std::uint64_t ddr_cycles = issue_runs(ch, t) - setup_cycles_;
      sc_core::wait(cycles(cost::dma_transfer_cycles(ddr_cycles, t.sram_cycles, t.bounce_cycles, dma_)));
      ch.pending = nullptr;
      ch.freed.notify();
      listener_.transfer_finished(t, start, now_cycles());
    }
  } catch (const sc_core::sc_unwind_exception&) {
    throw;
  } catch (const std::exception& e) {
    listener_.process_failed(e.what());
  }
}

}  // namespace npu::sim
