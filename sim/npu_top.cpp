#include "sim/npu_top.h"

namespace npu::sim {

NpuTop::NpuTop(sc_core::sc_module_name name, RunState& state, const MacArray& mac, DdrImage& ddr_image)
    : sc_module(name),
      state_(state),
      ddr_("ddr", state.config, ddr_image),
      sram_("sram", state.config.sram, !state.options.timing_only),
      dma_("dma", state.config, *this, ddr_.model(), state.banks),
      controller_("controller", state),
      load_("load", isa::Unit::Load, state, dma_, mac),
      compute_("compute", isa::Unit::Compute, state, dma_, mac),
      vector_("vector", isa::Unit::Vector, state, dma_, mac),
      store_("store", isa::Unit::Store, state, dma_, mac) {
  dma_.ddr_socket.bind(ddr_.socket);
  dma_.sram_socket.bind(sram_.socket);
  for (ExecutionUnit* u : {&load_, &compute_, &vector_, &store_}) u->sram_socket.bind(sram_.socket);
  if (!state.options.vcd_path.empty()) {
    signals_ = std::make_unique<BusySignals>("busy", state.config.dma.channels, state.options.vcd_path);
    state.signals = signals_.get();
  }
}

void NpuTop::transfer_started(const DmaTransfer& t, std::uint64_t start_cycle) {
  state_.stats.transfer_started(t, start_cycle);
  if (state_.signals) {
    state_.signals->unit(t.store ? isa::Unit::Store : isa::Unit::Load, true);
    state_.signals->channel(t.channel, true);
  }
}

void NpuTop::transfer_finished(const DmaTransfer& t, std::uint64_t start_cycle, std::uint64_t end_cycle,
                               const DmaOutcome& outcome) {
  state_.stats.transfer_finished(t, start_cycle, end_cycle, outcome);
  if (state_.signals) {
    state_.signals->unit(t.store ? isa::Unit::Store : isa::Unit::Load, false);
    state_.signals->channel(t.channel, false);
  }
}

void NpuTop::transfer_retired(const DmaTransfer& t) {
  state_.finished(t.store ? isa::Unit::Store : isa::Unit::Load, t.push);
}

void NpuTop::process_failed(const std::string& message) { state_.fail(message); }

}  // namespace npu::sim
