// The one typed description of an NPU design. Parsed and validated only by
// load_hardware_config(); the compiler and the simulator both read this struct.
//
// Defaults live in the schema (hwconfig/config_schema.cpp), not here: a default-constructed
// config, or section, holds the schema's defaults, the same values a YAML file that leaves the
// keys out gets. Choices are enums (hwconfig/config_choices.h) whose names only YAML, messages
// and reports see.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "hwconfig/config_choices.h"
#include "hwconfig/provenance.h"

namespace npu {

// Selects the constructors that leave every member zero, for the schema to fill with its
// defaults (config_schema.cpp); everything else wants the default constructors.
struct BlankConfig {};

struct ClockConfig {
  ClockConfig();
  explicit ClockConfig(BlankConfig) {}
  double frequency_mhz{};
};

struct DdrConfig {
  DdrConfig();
  explicit DdrConfig(BlankConfig) {}
  DdrModel model{};         // the timing model (sim/ddr_model.h)
  double bandwidth_gbps{};  // peak, all channels together, 1 GB = 1e9 bytes
  double latency_ns{};      // first-data latency of one DMA transfer
  int channels{};
  int burst_bytes{};
  int interleave_bytes{};   // consecutive blocks of this size alternate between channels
  int banks{};              // per channel (banked model)
  int row_bytes{};          // row-buffer size per bank (banked model)
  double row_miss_ns{};     // precharge + activate on a row-buffer miss (banked model)
  // How a channel's own addresses split into row, bank (group) and column (banked and dram
  // models; costmodel/ddr_address_map.h).
  DdrAddressMapping address_mapping{};
  double other_agents_share{};  // fraction of bandwidth taken by CPU/GPU, 0..0.95
  std::uint64_t capacity_bytes{};
};

struct SramConfig {
  SramConfig();
  explicit SramConfig(BlankConfig) {}
  std::uint64_t capacity_bytes{};
  int banks{};
  SramBankMapping bank_mapping{};  // which bank holds an address (costmodel/sram_banks.h)
  int bank_interleave_bytes{};
  int bank_width_bytes{};      // bytes one bank reads or writes per cycle
  int port_bytes_per_cycle{};  // per port; the DMA channels share one, the compute side has one
  int alignment_bytes{};       // every instruction's SRAM base address must be a multiple
  // Cycles from a bank read request to its data (costmodel/mac_cost.h charges it per fold of
  // the array): access_cycles as given, or derived from the energy section's technology table
  // (hwconfig/design_costs.h sram_access_cycles).
  SramTiming timing{};
  int access_cycles{};
};

struct DmaConfig {
  DmaConfig();
  explicit DmaConfig(BlankConfig) {}
  int channels{};
  int setup_cycles{};          // descriptor fetch and decode per DMA instruction
  int min_alignment_bytes{};   // DDR addresses below this alignment go through a bounce buffer
  int bounce_setup_cycles{};
  int bounce_bytes_per_cycle{};
  // How the channels share the DDR bus and the scratchpad's DMA port: they take turns per
  // chunk of arbitration_bytes.
  DmaArbitration arbitration{};
  int arbitration_bytes{};
  // What a channel does with the next transfer queued on it: start it when the one before has
  // finished, or overlap its setup and latency with the one before (as AXI DMA engines do).
  DmaChannelQueue channel_queue{};
};

// The command-level DRAM model (ddr.model: dram): timing set, page policy, scheduler.
struct DramConfig {
  DramConfig();
  explicit DramConfig(BlankConfig) {}
  DramStandardId standard{};          // the timing set (hwconfig/dram_standards.h)
  DramPagePolicy page_policy{};
  DramSchedulerPolicy scheduler{};    // sim/ddr_dram_scheduler.h
  int queue_depth{};                  // requests per channel the scheduler chooses among
};

struct MacArrayConfig {
  MacArrayConfig();
  explicit MacArrayConfig(BlankConfig) {}
  int rows{};
  int cols{};
  Dataflow dataflow{};      // costmodel/dataflow.h
  FoldOverlap fold_overlap{};  // whether consecutive folds of one instruction overlap (costmodel/dataflow.h)
  int fp16_cycles_per_op{};  // an FP16 MAC takes this many INT8 MAC slots
  // Weight-only quantisation (gemm b_format int8/int4): the dequantiser turns each block of B
  // into fp16 on its way into the array; its latency is paid per fold, the MACs run at the
  // fp16 rate.
  int dequant_int8_cycles_per_fold{};
  int dequant_int4_cycles_per_fold{};
  // Fixed cost of every gemm/conv instruction on top of its dataflow cycles: configuring the
  // array for a new shape, a runtime's per-op dispatch. npusim calibrate fits it where a device
  // pays per operation (configs/README.md).
  int instruction_overhead_cycles{};
  // Whether gemm/conv may swap the stationary operand and run depthwise convs with channels
  // across the columns, or only the dataflow's own mapping (as SCALE-Sim).
  MacArrayMapping mapping{};
  // Columns a depthwise conv's channels may occupy in the `depthwise` mapping; 0: all of them.
  // Fewer where a PE is a dot-product unit over input channels, which a depthwise conv (one
  // input channel per output) cannot fill.
  int depthwise_columns{};
};

struct VectorConfig {
  VectorConfig();
  explicit VectorConfig(BlankConfig) {}
  int lanes{};
  int latency_cycles{};  // pipeline depth added to every vector instruction
};

struct ControllerConfig {
  ControllerConfig();
  explicit ControllerConfig(BlankConfig) {}
  int queue_depth{};      // instructions waiting per unit queue
  int dispatch_cycles{};  // fetch + decode + dispatch per instruction
};

// Several copies of {controller, MAC array, vector unit, scratchpad, DMA channels} on one NPU,
// sharing the DDR (its bandwidth, channels and arbitration) and optionally an on-chip memory.
// Every other section describes one engine.
struct EnginesConfig {
  EnginesConfig();
  explicit EnginesConfig(BlankConfig) {}
  int count{};        // engines, each with everything above
  int sync_cycles{};  // a sync's cost once the last engine has arrived (cross-engine signalling)
  SharedLoads shared_loads{};  // the same DDR bytes to several engines: one multicast or a load each
  // An on-chip memory the engines share (0: none), reached through the ISA's window of DDR
  // addresses (isa kSharedSramBase); its own bandwidth and latency, contended by every engine.
  std::uint64_t shared_sram_bytes{};
  int shared_sram_bytes_per_cycle{};
  int shared_sram_latency_cycles{};
};

// The host CPU that runs fallback segments and moves data to and from the NPU.
struct HostConfig {
  HostConfig();
  explicit HostConfig(BlankConfig) {}
  double gflops{};
  double memcpy_gbps{};
  double transition_us{};  // per NPU<->CPU switch: driver call, cache flush
  // Once per inference: submitting the job to the NPU and taking its completion back (driver
  // or RPC round trip, runtime bookkeeping). 0 keeps latency = the simulated work alone.
  double launch_us{};
  double layer_dispatch_us{};
};

// `model: explicit` charges the pJ and mW figures written here; `model: derived` looks every
// part up in the technology table of `tech_nm` for its size (hwconfig/design_costs.h) and
// derives the area the same way. What each key means in each model: configs/README.md.
struct EnergyConfig {
  EnergyConfig();
  explicit EnergyConfig(BlankConfig) {}
  EnergyModel model{};
  int tech_nm{};                 // derived: configs/tech/<tech_nm>nm.yaml
  std::string tech_table;        // derived: another table file instead (resolved path), or ""
  std::string dram_technology;   // derived: a DRAM technology of the table, or "": ddr_byte_pj
  int sram_rw_ports{};           // derived: ports per SRAM bank as the table models them
  double clock_scale{};          // derived: scales the clock-tree estimate (0: gated away)
  double uncore_mw{};            // derived: power of what no table models (controller, NoC)
  double int8_mac_pj{};
  double fp16_mac_pj{};
  double sram_byte_pj{};
  double ddr_byte_pj{};
  double static_mw{};

  bool derived() const { return model == EnergyModel::Derived; }
};

struct AreaConfig {
  AreaConfig();
  explicit AreaConfig(BlankConfig) {}
  double mm2_per_mac{};       // explicit model only
  double mm2_per_sram_kib{};  // explicit model only
  double fixed_mm2{};         // both: controller, interconnect, what no table models
};

struct HardwareConfig {
  // The schema's defaults, without the optional energy and area sections.
  HardwareConfig();
  explicit HardwareConfig(BlankConfig);
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
  EnginesConfig engines;
  HostConfig host;
  std::optional<EnergyConfig> energy;  // absent: reports say energy is unknown
  std::optional<AreaConfig> area;
  // Key path ("ddr.bandwidth_gbps") -> where its value comes from (YAML `provenance:`).
  std::map<std::string, KeyProvenance> provenance;

  int macs() const { return mac_array.rows * mac_array.cols; }  // one engine's array
  std::int64_t total_macs() const { return static_cast<std::int64_t>(macs()) * engines.count; }  // every engine's
  double peak_tops() const { return 2.0 * static_cast<double>(total_macs()) * clock.frequency_mhz * 1e6 / 1e12; }
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
