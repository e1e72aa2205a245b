// The one typed description of an NPU design. Parsed and validated only by
// load_hardware_config(); the compiler and the simulator both read this struct.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "hwconfig/provenance.h"

namespace npu {

enum class Dataflow { WeightStationary, OutputStationary, InputStationary };
const char* dataflow_name(Dataflow d);  // "ws" | "os" | "is"
// Inverse of dataflow_name; nullopt for anything else.
std::optional<Dataflow> dataflow_from_name(const std::string& name);

struct ClockConfig {
  double frequency_mhz = 1000.0;
};

struct DdrConfig {
  std::string model = "simple";  // implementation picked by name: simple | banked | dram | ideal
  double bandwidth_gbps = 25.6;  // peak, all channels together, 1 GB = 1e9 bytes
  double latency_ns = 100.0;     // first-data latency of one DMA transfer
  int channels = 2;
  int burst_bytes = 64;
  int interleave_bytes = 256;    // consecutive blocks of this size alternate between channels
  int banks = 8;                 // per channel (banked model)
  int row_bytes = 2048;          // row-buffer size per bank (banked model)
  double row_miss_ns = 30.0;     // precharge + activate on a row-buffer miss (banked model)
  // How a channel's own addresses split into row, bank (group) and column (banked and dram
  // models; costmodel/ddr_address_map.h): row_bank_column | row_column_bank |
  // row_bank_column_bankgroup.
  std::string address_mapping = "row_bank_column";
  double other_agents_share = 0.0;  // fraction of bandwidth taken by CPU/GPU, 0..0.95
  std::uint64_t capacity_bytes = 1ull << 32;
};

struct SramConfig {
  std::uint64_t capacity_bytes = 1ull << 20;
  int banks = 16;
  // block: bank b holds [b, b+1) * capacity / banks; interleaved: consecutive
  // bank_interleave_bytes blocks rotate over the banks (costmodel/sram_banks.h).
  std::string bank_mapping = "block";
  int bank_interleave_bytes = 64;
  int bank_width_bytes = 64;      // bytes one bank reads or writes per cycle
  int port_bytes_per_cycle = 64;  // per port; the DMA channels share one, the compute side has one
  int alignment_bytes = 64;       // every instruction's SRAM base address must be a multiple
  // Cycles from a bank read request to its data (costmodel/mac_cost.h charges it per fold of
  // the array). explicit: access_cycles as given (1: the data comes in the cycle it is asked
  // for, the timing rules' base case); derived: ceil(access time x clock) with CACTI's access
  // time from the energy section's technology table for this capacity, banks and width.
  std::string timing = "explicit";
  int access_cycles = 1;
};

struct DmaConfig {
  int channels = 2;
  int setup_cycles = 32;           // descriptor fetch and decode per DMA instruction
  int min_alignment_bytes = 4;     // DDR addresses below this alignment go through a bounce buffer
  int bounce_setup_cycles = 16;
  int bounce_bytes_per_cycle = 16;
  // How the channels share the DDR bus and the scratchpad's DMA port: they take turns per
  // chunk of arbitration_bytes, round_robin or channel_priority (lower channel number first).
  std::string arbitration = "round_robin";
  int arbitration_bytes = 4096;
  // What a channel does with the next transfer queued on it. serial: it starts it when the one
  // before has finished, so setup and DDR latency are paid one transfer after another;
  // pipelined: it starts the next one's setup once the one before has issued its first request,
  // and the next one's first request right after the one before's last (several transfers
  // outstanding, as AXI DMA engines keep them), so back-to-back transfers pay the latency once.
  std::string channel_queue = "serial";
};

// The command-level DRAM model (ddr.model: dram): timing set, page policy, scheduler.
struct DramConfig {
  std::string standard = "lpddr4x-4266";  // lpddr4x-4266 | lpddr5x-8533 | ddr5-5600 (hwconfig/dram_standards.h)
  std::string page_policy = "open";       // open | closed
  std::string scheduler = "frfcfs";       // frfcfs | fcfs
  int queue_depth = 32;                   // requests per channel the scheduler chooses among
};

struct MacArrayConfig {
  int rows = 16;
  int cols = 16;
  Dataflow dataflow = Dataflow::WeightStationary;
  int fp16_cycles_per_op = 2;  // an FP16 MAC takes this many INT8 MAC slots
  // Weight-only quantisation (gemm b_format int8/int4): the dequantiser turns each block of B
  // into fp16 on its way into the array; its latency is paid per fold, the MACs run at the
  // fp16 rate. Guesses: a convert and a multiply stage; int4 adds the nibble unpack.
  int dequant_int8_cycles_per_fold = 2;
  int dequant_int4_cycles_per_fold = 3;
  // Fixed cost of every gemm/conv instruction on top of its dataflow cycles: configuring the
  // array for a new shape, a runtime's per-op dispatch. 0 (the default) is the bare array;
  // npusim calibrate fits it where a device pays per operation (configs/README.md).
  int instruction_overhead_cycles = 0;
  // "flexible": gemm/conv may swap the stationary operand and run depthwise convs with
  // channels across the columns; "fixed": the dataflow's own mapping only (as SCALE-Sim).
  std::string mapping = "flexible";
};

struct VectorConfig {
  int lanes = 16;
  int latency_cycles = 4;  // pipeline depth added to every vector instruction
};

struct ControllerConfig {
  int queue_depth = 8;      // instructions waiting per unit queue
  int dispatch_cycles = 1;  // fetch + decode + dispatch per instruction
};

// The host CPU that runs fallback segments and moves data to and from the NPU.
struct HostConfig {
  double gflops = 50.0;
  double memcpy_gbps = 10.0;
  double transition_us = 20.0;  // per NPU<->CPU switch: driver call, cache flush
  // Once per inference: submitting the job to the NPU and taking its completion back (driver
  // or RPC round trip, runtime bookkeeping). 0 keeps latency = the simulated work alone.
  double launch_us = 0.0;
};

// `model: explicit` charges the pJ and mW figures written here; `model: derived` looks every
// part up in the technology table of `tech_nm` for its size (hwconfig/design_costs.h) and
// derives the area the same way. What each key means in each model: configs/README.md.
struct EnergyConfig {
  std::string model = "explicit";  // explicit | derived
  int tech_nm = 7;                 // derived: configs/tech/<tech_nm>nm.yaml
  std::string tech_table;          // derived: another table file instead (resolved path), or ""
  std::string dram_technology;     // derived: a DRAM technology of the table, or "": ddr_byte_pj
  int sram_rw_ports = 1;           // derived: ports per SRAM bank as the table models them
  double clock_scale = 1.0;        // derived: scales the clock-tree estimate (0: gated away)
  double uncore_mw = 0.0;          // derived: power of what no table models (controller, NoC)
  double int8_mac_pj = 0.2;
  double fp16_mac_pj = 0.8;
  double sram_byte_pj = 0.5;
  double ddr_byte_pj = 20.0;
  double static_mw = 100.0;

  bool derived() const { return model == "derived"; }
};

struct AreaConfig {
  double mm2_per_mac = 0.0005;     // explicit model only
  double mm2_per_sram_kib = 0.002; // explicit model only
  double fixed_mm2 = 1.0;          // both: controller, interconnect, what no table models
};

struct HardwareConfig {
  std::string name;         // from the YAML `name`, else the file stem
  std::string source_path;  // file it came from, for error messages
  ClockConfig clock;
  DdrConfig ddr;
  SramConfig sram;
  DmaConfig dma;
  DramConfig dram;
  MacArrayConfig mac_array;
  VectorConfig vector;
  ControllerConfig controller;
  HostConfig host;
  std::optional<EnergyConfig> energy;  // absent: reports say energy is unknown
  std::optional<AreaConfig> area;
  // Key path ("ddr.bandwidth_gbps") -> where its value comes from (YAML `provenance:`).
  std::map<std::string, KeyProvenance> provenance;

  int macs() const { return mac_array.rows * mac_array.cols; }
  double peak_tops() const { return 2.0 * macs() * clock.frequency_mhz * 1e6 / 1e12; }
  double cycle_ns() const { return 1000.0 / clock.frequency_mhz; }
};

// Every field equal, including name, source_path and presence of energy/area. Doubles
// compare exactly (dump writes the shortest text that reads back bit-identical).
bool operator==(const HardwareConfig& a, const HardwareConfig& b);
inline bool operator!=(const HardwareConfig& a, const HardwareConfig& b) { return !(a == b); }

// Thrown for any invalid configuration; what() is one line naming file, key path and value.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

HardwareConfig load_hardware_config(const std::string& path);
// `origin` names the source in messages (a path, or "<dict>" for Python callers).
HardwareConfig parse_hardware_config(const std::string& yaml_text, const std::string& origin);
// Re-checks every constraint; load/parse call it, callers that edit a config call it again.
void validate(const HardwareConfig& config);
// Canonical YAML with every key; parse(dump(c)) == c.
std::string dump_hardware_config(const HardwareConfig& config);
// One key's value as dump_hardware_config writes it (YAML units: "25.6", "1024", "ws").
namespace schema { struct Field; }
std::string config_value_text(const HardwareConfig& config, const schema::Field& field);

}  // namespace npu
