// SystemC time in this model counts NPU clock cycles: 1 cycle is represented as 1 ns of
// sc_time (resolution 1 ps), whatever the clock frequency. Everything the model schedules
// is a whole number of cycles, so no rounding error accumulates over long runs; the DDR
// model, which works in real nanoseconds, is converted at the DDR target (rounded up).
#pragma once
#include <cmath>
#include <cstdint>

#include <systemc>

namespace npu::sim {

inline sc_core::sc_time cycles(std::uint64_t n) { return sc_core::sc_time::from_value(n * 1000); }
inline std::uint64_t to_cycles(const sc_core::sc_time& t) { return t.value() / 1000; }
inline std::uint64_t now_cycles() { return to_cycles(sc_core::sc_time_stamp()); }

// Smallest whole number of cycles covering `ns` at `cycle_ns` per cycle. The tolerance keeps
// values that are whole numbers on paper (260 ns at 1 GHz) from rounding up through
// floating-point noise.
inline std::uint64_t ceil_cycles(double ns, double cycle_ns) {
  if (ns <= 0) return 0;
  return static_cast<std::uint64_t>(std::ceil(ns / cycle_ns - 1e-6));
}

}  // namespace npu::sim
