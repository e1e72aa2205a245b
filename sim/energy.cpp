// Energy from counters only, so it is the same for timing-only and functional runs and a
// caller can re-apply it to counters summed over several runs. Each part is computed as
// (count * pJ) * 1e-6: scaling one pJ figure by 2 scales its part by exactly 2 in floating
// point (the DDR-doubling test relies on it).
#include "sim/simulator.h"

namespace npu::sim {
namespace {
double uj(std::uint64_t count, double pj) { return static_cast<double>(count) * pj * 1e-6; }
double uj_over(double mw, double latency_us) { return mw * latency_us * 1e-3; }  // mW * us = nJ
}  // namespace

EnergyBreakdown energy_of(const SimResult& r, const DesignCosts& c) {
  EnergyBreakdown b;
  b.mac_int8_uj = uj(r.int8_macs, c.int8_mac_pj);
  b.mac_fp16_uj = uj(r.fp16_macs, c.fp16_mac_pj);
  b.sram_uj = c.sram_read_pj_per_byte == c.sram_write_pj_per_byte
                  ? uj(r.sram_bytes_read + r.sram_bytes_written, c.sram_read_pj_per_byte)
                  : uj(r.sram_bytes_read, c.sram_read_pj_per_byte) + uj(r.sram_bytes_written, c.sram_write_pj_per_byte);
  b.ddr_uj = uj(r.ddr_bus_bytes, c.ddr_pj_per_byte);
  b.vector_uj = uj(r.vector_int_elements, c.vector_int_pj_per_element) +
                uj(r.vector_float_elements, c.vector_fp_pj_per_element);
  std::uint64_t dma_bytes = 0;
  for (const auto& ch : r.dma_channels) dma_bytes += ch.bytes;
  b.dma_uj = uj(dma_bytes, c.dma_pj_per_byte);
  const double latency_us = r.clock_mhz > 0 ? static_cast<double>(r.cycles) / r.clock_mhz : 0.0;
  b.leakage_uj = uj_over(c.leakage_mw, latency_us);
  b.clock_uj = uj_over(c.clock_mw, latency_us);
  b.static_mw = c.static_mw();
  b.static_uj = uj_over(b.static_mw, latency_us);
  b.total_uj = b.mac_int8_uj + b.mac_fp16_uj + b.sram_uj + b.ddr_uj + b.vector_uj + b.dma_uj + b.static_uj;
  if (latency_us > 0) b.average_power_mw = b.total_uj / latency_us * 1e3;  // uJ/us = W
  // TOPS/W = (ops / 1e12) / J = 2 * macs / (1e12 * total_uj * 1e-6)
  if (b.total_uj > 0) b.tops_per_watt = 2.0 * static_cast<double>(r.macs) / (b.total_uj * 1e6);
  return b;
}

}  // namespace npu::sim
