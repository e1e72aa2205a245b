// The technology tables of configs/tech/ (format: configs/tech/README.md): area, leakage and
// per-access energy of SRAM over capacity x ports x banks x port width, of a MAC unit, a
// vector lane, a DMA channel and DRAM per bit, at one technology node. Read once per file per
// process; looked up by the config's sizes with log-log interpolation over SRAM capacity.
// Knows nothing of HardwareConfig: hwconfig/design_costs.h maps a config onto these figures.
#pragma once
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace npu::tech {

// Any problem with a table file or a lookup; what() is one line:
// "<file>: <key path>: <problem>".
struct TechTableError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One SRAM series: fixed ports, banks and port width; one value per capacity of the axis,
// NaN where the table has null (CACTI failed there).
struct SramSeries {
  int rw_ports = 1, banks = 1, port_bytes = 8;
  std::vector<double> read_pj_per_byte, write_pj_per_byte, leakage_mw, area_mm2;
  std::vector<double> access_ns;  // CACTI's access time: request to data
};

// A logic component: energy per operation, area and leakage of one instance. leakage_uw is
// NaN when the table has null (no published figure).
struct Component {
  double energy_pj = 0, area_um2 = 0, leakage_uw = 0;
};

struct DmaChannel {
  int width_bytes = 0;
  double energy_pj_per_byte = 0, area_um2 = 0, leakage_uw = 0;
};

struct DramTechnology {
  std::string technology;                   // as the table spells it ("LPDDR4")
  std::optional<double> energy_pj_per_bit;  // absent: the table has no figure
  std::string source;                       // "literature", "hwcomponents-cacti ...", "none"
  std::string note;                         // why there is no figure, when there is none
};

struct TechTable {
  std::string path;
  int node_nm = 0;
  std::vector<double> capacity_kib;  // the SRAM capacity axis, increasing
  std::vector<int> rw_ports, banks, port_bytes;
  std::vector<SramSeries> sram;
  bool sram_monotonic = false;       // checks.sram_monotonic_over_capacity.violations == 0
  Component mac_int8, mac_fp16;      // per MAC unit (mac.units_per_mac)
  Component pe_registers;            // per MAC: pipeline registers of one PE (energy per MAC)
  Component vector_int_lane;         // vector.components.int_lane_requant: per element, per lane
  Component vector_fp_lane;          // vector.components.fp_lane_fma
  Component register_32b;            // vector.components.register_32b (energy: one write + one read)
  std::vector<DmaChannel> dma_channels;  // by width, increasing
  std::vector<DramTechnology> dram;      // the first row of a technology is its default

  const SramSeries* find_sram(int rw_ports, int banks, int port_bytes) const;
  // The first row whose name equals `technology` ignoring case; null if none.
  const DramTechnology* find_dram(const std::string& technology) const;
  // "LPDDR4, HBM2, ..." (each technology once), for messages.
  std::string dram_names() const;
};

// Reads and checks a table; the result is cached by path for the life of the process (a sweep
// looks up thousands of configs). Throws TechTableError.
std::shared_ptr<const TechTable> load_tech_table(const std::string& path);

// Where `node_nm`'s table lives: $NPUSIM_TECH_DIR/<node>nm.yaml, else this checkout's
// configs/tech/<node>nm.yaml.
std::string default_tech_table_path(int node_nm);
// The nodes with a table in that directory, increasing ("7, 22, 45" in messages).
std::vector<int> available_tech_nodes();

// SRAM figures for one scratchpad, with how they were obtained.
struct SramFigures {
  double read_pj_per_byte = 0, write_pj_per_byte = 0, leakage_mw = 0, area_mm2 = 0;
  double access_ns = 0;  // below the smallest capacity: the smallest's (not scaled)
  int banks = 0, port_bytes = 0;  // the series used (nearest on the axis)
  std::vector<std::string> notes; // each approximation made, one line each ("banks 64 is above ...")
};

// Capacity: log-log interpolation between the two neighbouring grid capacities (a power law
// between neighbours, so a non-decreasing series stays non-decreasing in between), the grid
// value itself at a grid point, null entries skipped. Below the smallest capacity: its energy
// per byte, leakage and area in proportion to capacity (configs/tech/README.md). Above the
// largest: TechTableError. Banks and port width: the nearest axis value in log scale, clamped
// to the axis ends, with a note when not exact. rw_ports must be on the axis.
SramFigures sram_figures(const TechTable& table, double capacity_kib, int rw_ports, int banks, int port_bytes);

// log-log interpolation of y over x at `at` (x increasing, y > 0, NaN entries skipped); exact
// at grid points. Exposed for tests.
double interpolate_log_log(const std::vector<double>& x, const std::vector<double>& y, double at);

// The DMA channel of the width nearest `width_bytes` in log scale (clamped to the ends).
const DmaChannel& dma_channel_for(const TechTable& table, int width_bytes);

}  // namespace npu::tech
