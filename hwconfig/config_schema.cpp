#include "hwconfig/config_schema.h"

namespace npu::schema {

std::string Field::path() const {
  return *section ? std::string(section) + "." + key : std::string(key);
}

const std::vector<Section>& sections() {
  static const std::vector<Section> s = {
      {"clock", false},   {"ddr", false},  {"dram", false}, {"sram", false},   {"dma", false},
      {"mac_array", false}, {"vector", false}, {"controller", false}, {"host", false},
      {"energy", true},   {"area", true},
  };
  return s;
}

#define SLOT(expr) [](HardwareConfig& c) -> Slot { return Slot(&c.expr); }
#define OPT_SLOT(sec, mem) \
  [](HardwareConfig& c) -> Slot { return c.sec ? Slot(&c.sec->mem) : Slot(); }

namespace {
constexpr double kBig = 1e9;
}  // namespace

const std::vector<Field>& fields() {
  using K = Kind;
  // section, key, kind, required, min, min_exclusive, max, pow2, choices, unit, note, slot
  // [, plausible_min, plausible_max: the range npusim calibrate may fit the key in]
  static const std::vector<Field> f = {
      {"", "name", K::Text, false, 0, false, 0, false, "", "", "", SLOT(name)},

      {"clock", "frequency_mhz", K::Number, true, 0, true, 10000, false, "", "MHz", "",
       SLOT(clock.frequency_mhz), 50, 6000},

      {"ddr", "model", K::Choice, false, 0, false, 0, false, "simple|banked|dram|ideal", "", "",
       SLOT(ddr.model)},
      {"ddr", "bandwidth_gbps", K::Number, true, 0, true, 1e5, false, "", "GB/s", "",
       SLOT(ddr.bandwidth_gbps), 0.5, 2000},
      {"ddr", "latency_ns", K::Number, false, 0, false, 1e6, false, "", "ns", "",
       SLOT(ddr.latency_ns), 0, 2000},
      {"ddr", "channels", K::Integer, false, 1, false, 64, false, "", "", "", SLOT(ddr.channels)},
      {"ddr", "burst_bytes", K::Integer, false, 1, false, 4096, true, "", "bytes", "",
       SLOT(ddr.burst_bytes)},
      {"ddr", "interleave_bytes", K::Integer, false, 1, false, 1 << 20, true, "", "bytes", "",
       SLOT(ddr.interleave_bytes)},
      {"ddr", "banks", K::Integer, false, 1, false, 256, false, "", "", "", SLOT(ddr.banks)},
      {"ddr", "row_bytes", K::Integer, false, 1, false, 1 << 20, true, "", "bytes", "",
       SLOT(ddr.row_bytes)},
      {"ddr", "row_miss_ns", K::Number, false, 0, false, 1e6, false, "", "ns", "",
       SLOT(ddr.row_miss_ns), 0, 200},
      {"ddr", "address_mapping", K::Choice, false, 0, false, 0, false,
       "row_bank_column|row_column_bank|row_bank_column_bankgroup", "", "", SLOT(ddr.address_mapping)},
      {"ddr", "other_agents_share", K::Number, false, 0, false, 0.95, false, "", "fraction", "",
       SLOT(ddr.other_agents_share), 0, 0.9},
      {"ddr", "capacity_mib", K::MiB, false, 0, true, 1 << 20, false, "", "MiB", "",
       SLOT(ddr.capacity_bytes)},

      {"dram", "standard", K::Choice, false, 0, false, 0, false, "lpddr4x-4266|lpddr5x-8533|ddr5-5600", "", "",
       SLOT(dram.standard)},
      {"dram", "page_policy", K::Choice, false, 0, false, 0, false, "open|closed", "", "", SLOT(dram.page_policy)},
      {"dram", "scheduler", K::Choice, false, 0, false, 0, false, "frfcfs|fcfs", "", "", SLOT(dram.scheduler)},
      {"dram", "queue_depth", K::Integer, false, 1, false, 1024, false, "", "requests", "", SLOT(dram.queue_depth)},

      {"sram", "capacity_kib", K::KiB, true, 0, true, 16384, false, "", "KiB",
       "the 16 MiB reach of the ISA's 24-bit SRAM addresses", SLOT(sram.capacity_bytes)},
      {"sram", "banks", K::Integer, false, 1, false, 1024, true, "", "", "", SLOT(sram.banks)},
      {"sram", "bank_mapping", K::Choice, false, 0, false, 0, false, "block|interleaved", "", "",
       SLOT(sram.bank_mapping)},
      {"sram", "bank_interleave_bytes", K::Integer, false, 1, false, 1 << 20, true, "", "bytes", "",
       SLOT(sram.bank_interleave_bytes)},
      {"sram", "bank_width_bytes", K::Integer, false, 1, false, 65536, true, "", "bytes", "",
       SLOT(sram.bank_width_bytes)},
      {"sram", "port_bytes_per_cycle", K::Integer, false, 1, false, 65536, false, "",
       "bytes/cycle", "", SLOT(sram.port_bytes_per_cycle)},
      {"sram", "alignment_bytes", K::Integer, false, 1, false, 4096, true, "", "bytes", "",
       SLOT(sram.alignment_bytes)},
      {"sram", "timing", K::Choice, false, 0, false, 0, false, "explicit|derived", "", "", SLOT(sram.timing)},
      {"sram", "access_cycles", K::Integer, false, 1, false, 64, false, "", "cycles", "", SLOT(sram.access_cycles)},

      {"dma", "channels", K::Integer, false, 1, false, 64, false, "", "", "", SLOT(dma.channels)},
      {"dma", "setup_cycles", K::Integer, false, 0, false, 1e6, false, "", "cycles", "",
       SLOT(dma.setup_cycles), 0, 10000},
      {"dma", "min_alignment_bytes", K::Integer, false, 1, false, 4096, true, "", "bytes", "",
       SLOT(dma.min_alignment_bytes)},
      {"dma", "bounce_setup_cycles", K::Integer, false, 0, false, 1e6, false, "", "cycles", "",
       SLOT(dma.bounce_setup_cycles)},
      {"dma", "bounce_bytes_per_cycle", K::Integer, false, 1, false, 65536, false, "",
       "bytes/cycle", "", SLOT(dma.bounce_bytes_per_cycle)},
      {"dma", "arbitration", K::Choice, false, 0, false, 0, false, "round_robin|channel_priority", "", "",
       SLOT(dma.arbitration)},
      {"dma", "arbitration_bytes", K::Integer, false, 1, false, 1 << 24, true, "", "bytes", "",
       SLOT(dma.arbitration_bytes)},
      {"dma", "channel_queue", K::Choice, false, 0, false, 0, false, "serial|pipelined", "", "",
       SLOT(dma.channel_queue)},

      {"mac_array", "rows", K::Integer, true, 1, false, 4096, false, "", "PEs", "",
       SLOT(mac_array.rows)},
      {"mac_array", "cols", K::Integer, true, 1, false, 4096, false, "", "PEs", "",
       SLOT(mac_array.cols)},
      {"mac_array", "dataflow", K::Choice, false, 0, false, 0, false, "ws|os|is", "", "",
       SLOT(mac_array.dataflow)},
      {"mac_array", "fp16_cycles_per_op", K::Integer, false, 1, false, 64, false, "", "cycles",
       "", SLOT(mac_array.fp16_cycles_per_op)},
      {"mac_array", "dequant_int8_cycles_per_fold", K::Integer, false, 0, false, 1e6, false, "", "cycles",
       "", SLOT(mac_array.dequant_int8_cycles_per_fold)},
      {"mac_array", "dequant_int4_cycles_per_fold", K::Integer, false, 0, false, 1e6, false, "", "cycles",
       "", SLOT(mac_array.dequant_int4_cycles_per_fold)},
      {"mac_array", "instruction_overhead_cycles", K::Integer, false, 0, false, 1e6, false, "", "cycles", "",
       SLOT(mac_array.instruction_overhead_cycles), 0, 20000},
      {"mac_array", "mapping", K::Choice, false, 0, false, 0, false, "flexible|fixed", "", "",
       SLOT(mac_array.mapping)},

      {"vector", "lanes", K::Integer, false, 1, false, 65536, false, "", "elements/cycle", "",
       SLOT(vector.lanes)},
      {"vector", "latency_cycles", K::Integer, false, 0, false, 1e6, false, "", "cycles", "",
       SLOT(vector.latency_cycles), 0, 10000},

      {"controller", "queue_depth", K::Integer, false, 1, false, 65536, false, "",
       "instructions", "", SLOT(controller.queue_depth)},
      {"controller", "dispatch_cycles", K::Integer, false, 0, false, 1e6, false, "", "cycles", "",
       SLOT(controller.dispatch_cycles), 0, 1000},

      {"host", "gflops", K::Number, false, 0, true, 1e7, false, "", "GFLOP/s", "",
       SLOT(host.gflops), 1, 1e5},
      {"host", "memcpy_gbps", K::Number, false, 0, true, 1e5, false, "", "GB/s", "",
       SLOT(host.memcpy_gbps), 0.5, 2000},
      {"host", "transition_us", K::Number, false, 0, false, 1e7, false, "", "us", "",
       SLOT(host.transition_us), 0, 1e4},
      {"host", "launch_us", K::Number, false, 0, false, 1e7, false, "", "us", "",
       SLOT(host.launch_us), 0, 1e4},

      {"energy", "model", K::Choice, false, 0, false, 0, false, "explicit|derived", "", "",
       OPT_SLOT(energy, model)},
      {"energy", "tech_nm", K::Integer, false, 1, false, 1000, false, "", "nm", "",
       OPT_SLOT(energy, tech_nm)},
      {"energy", "tech_table", K::Path, false, 0, false, 0, false, "", "", "", OPT_SLOT(energy, tech_table)},
      {"energy", "dram_technology", K::Text, false, 0, false, 0, false, "", "", "",
       OPT_SLOT(energy, dram_technology)},
      {"energy", "sram_rw_ports", K::Integer, false, 1, false, 2, false, "", "ports", "",
       OPT_SLOT(energy, sram_rw_ports)},
      {"energy", "clock_scale", K::Number, false, 0, false, 100, false, "", "", "", OPT_SLOT(energy, clock_scale)},
      {"energy", "uncore_mw", K::Number, false, 0, false, kBig, false, "", "mW", "", OPT_SLOT(energy, uncore_mw)},
      {"energy", "int8_mac_pj", K::Number, false, 0, false, kBig, false, "", "pJ", "",
       OPT_SLOT(energy, int8_mac_pj)},
      {"energy", "fp16_mac_pj", K::Number, false, 0, false, kBig, false, "", "pJ", "",
       OPT_SLOT(energy, fp16_mac_pj)},
      {"energy", "sram_byte_pj", K::Number, false, 0, false, kBig, false, "", "pJ", "",
       OPT_SLOT(energy, sram_byte_pj)},
      {"energy", "ddr_byte_pj", K::Number, false, 0, false, kBig, false, "", "pJ", "",
       OPT_SLOT(energy, ddr_byte_pj)},
      {"energy", "static_mw", K::Number, false, 0, false, kBig, false, "", "mW", "",
       OPT_SLOT(energy, static_mw)},

      {"area", "mm2_per_mac", K::Number, false, 0, false, kBig, false, "", "mm^2", "",
       OPT_SLOT(area, mm2_per_mac)},
      {"area", "mm2_per_sram_kib", K::Number, false, 0, false, kBig, false, "", "mm^2", "",
       OPT_SLOT(area, mm2_per_sram_kib)},
      {"area", "fixed_mm2", K::Number, false, 0, false, kBig, false, "", "mm^2", "",
       OPT_SLOT(area, fixed_mm2)},
  };
  return f;
}

}  // namespace npu::schema
