#include "hwconfig/config_schema.h"

#include <stdexcept>
#include <type_traits>

#include "hwconfig/config_internal.h"

namespace npu::schema {

std::string Field::path() const {
  return *section ? std::string(section) + "." + key : std::string(key);
}

const std::vector<Section>& sections() {
  static const std::vector<Section> s = {
      {"clock", false},   {"ddr", false},  {"dram", false}, {"sram", false},   {"dma", false},
      {"mac_array", false}, {"vector", false}, {"controller", false}, {"engines", false}, {"host", false},
      {"energy", true},   {"area", true},
  };
  return s;
}

namespace {

using SlotFn = Slot (*)(HardwareConfig&);

template <typename T>
Slot slot_for(T* member) {
  if constexpr (std::is_enum_v<T>)
    return choice_ref(member);
  else
    return Slot(member);
}

#define SLOT(expr) [](HardwareConfig& c) -> Slot { return slot_for(&c.expr); }
#define OPT_SLOT(sec, mem) \
  [](HardwareConfig& c) -> Slot { return c.sec ? slot_for(&c.sec->mem) : Slot(); }

constexpr double kBig = 1e9;

// One row of the table, written as a chain of what the key has:
//   integer("ddr", "channels", SLOT(ddr.channels)).range(1, 64).def("2").doc("...")
// Without range() a number must be >= 0 (and is unbounded up to kBig).
class Row {
 public:
  Row(const char* section, const char* key, Kind kind, SlotFn slot) {
    f_.section = section;
    f_.key = key;
    f_.kind = kind;
    f_.required = false;
    f_.min = 0;
    f_.min_exclusive = false;
    f_.max = kind == Kind::Choice || kind == Kind::Text || kind == Kind::Path ? 0 : kBig;
    f_.power_of_two = false;
    f_.unit = "";
    f_.note = "";
    f_.slot = slot;
  }
  Row& required() { return f_.required = true, *this; }
  Row& range(double min, double max) { return f_.min = min, f_.max = max, *this; }
  // (min, max]: the value must be > min.
  Row& above(double min, double max) { return f_.min = min, f_.min_exclusive = true, f_.max = max, *this; }
  // Appended to the message when the value is above the max, and shown in the docs.
  Row& max_because(const char* why) { return f_.note = why, *this; }
  Row& pow2() { return f_.power_of_two = true, *this; }
  Row& unit(const char* u) { return f_.unit = u, *this; }
  Row& fit(double lo, double hi) { return f_.plausible_min = lo, f_.plausible_max = hi, *this; }
  Row& def(const char* yaml_value, const char* shown = "") {
    return f_.default_value = yaml_value, f_.default_shown = shown, *this;
  }
  Row& doc(const char* meaning) { return f_.meaning = meaning, *this; }
  Row& rules(const char* text) { return f_.rules = text, *this; }
  Row& choices(ChoiceList list) { return f_.choices = list, *this; }
  operator Field() const { return f_; }

 private:
  Field f_{};
};

Row integer(const char* s, const char* k, SlotFn slot) { return Row(s, k, Kind::Integer, slot); }
Row number(const char* s, const char* k, SlotFn slot) { return Row(s, k, Kind::Number, slot); }
Row kib(const char* s, const char* k, SlotFn slot) { return Row(s, k, Kind::KiB, slot); }
Row mib(const char* s, const char* k, SlotFn slot) { return Row(s, k, Kind::MiB, slot); }
Row text(const char* s, const char* k, SlotFn slot) { return Row(s, k, Kind::Text, slot); }
Row path(const char* s, const char* k, SlotFn slot) { return Row(s, k, Kind::Path, slot); }
template <typename E>
Row choice(const char* s, const char* k, SlotFn slot) {
  return Row(s, k, Kind::Choice, slot).choices(choice_list<E>());
}

}  // namespace

const std::vector<Field>& fields() {
  // Section by section, in the order dump_hardware_config writes them. fit(): the range npusim
  // calibrate may fit the key in.
  static const std::vector<Field> f = {
      text("", "name", SLOT(name)).def("", "file stem")
          .doc("name shown in reports; never inherited through `base:`").rules("any string"),

      number("clock", "frequency_mhz", SLOT(clock.frequency_mhz)).required().above(0, 10000).unit("MHz")
          .fit(50, 6000).def("1000").doc("clock of the whole NPU; every cycle count is converted with it"),

      choice<DdrModel>("ddr", "model", SLOT(ddr.model)).def("simple").doc("timing model"),
      number("ddr", "bandwidth_gbps", SLOT(ddr.bandwidth_gbps)).required().above(0, 1e5).unit("GB/s")
          .fit(0.5, 2000).def("25.6")
          .doc("peak bandwidth of all channels together (1 GB = 1e9 bytes); ignored by `ideal` but still used "
               "for roofline plots; with `dram` it must equal `channels` × the standard's channel rate (±0.5%)"),
      number("ddr", "latency_ns", SLOT(ddr.latency_ns)).range(0, 1e6).unit("ns").fit(0, 2000).def("100")
          .doc("first-data latency of one DMA transfer; with `dram`, the SoC fabric and controller around the "
               "DRAM (the DRAM's own tRCD + tCL is modelled on top)"),
      integer("ddr", "channels", SLOT(ddr.channels)).range(1, 64).def("2")
          .doc("independent channels; bandwidth is split evenly"),
      integer("ddr", "burst_bytes", SLOT(ddr.burst_bytes)).range(1, 4096).pow2().unit("bytes").def("64")
          .doc("bytes per burst, the unit of DDR transfer; a transfer starting mid-burst costs the whole burst; "
               "with `dram` it must be the standard's (channel width × burst length)"),
      integer("ddr", "interleave_bytes", SLOT(ddr.interleave_bytes)).range(1, 1 << 20).pow2().unit("bytes")
          .def("256").rules("≥ `ddr.burst_bytes`")
          .doc("consecutive blocks of this size alternate between channels"),
      integer("ddr", "banks", SLOT(ddr.banks)).range(1, 256).def("8")
          .doc("banks per channel (`banked` model; `dram` takes the standard's)"),
      integer("ddr", "row_bytes", SLOT(ddr.row_bytes)).range(1, 1 << 20).pow2().unit("bytes").def("2048")
          .rules("≥ `ddr.burst_bytes`")
          .doc("row-buffer size per bank, in the channel's own addresses (`banked` model; `dram` takes the "
               "standard's)"),
      number("ddr", "row_miss_ns", SLOT(ddr.row_miss_ns)).range(0, 1e6).unit("ns").fit(0, 200).def("30")
          .doc("precharge + activate on a row-buffer miss (`banked` model); activates in other banks overlap "
               "the bursts on the bus"),
      choice<DdrAddressMapping>("ddr", "address_mapping", SLOT(ddr.address_mapping)).def("row_bank_column")
          .doc("how a channel's addresses (its interleave blocks packed back to back) split into row, bank and "
               "column, most significant first (`banked`, `dram`; `costmodel/ddr_address_map.h`)"),
      number("ddr", "other_agents_share", SLOT(ddr.other_agents_share)).range(0, 0.95).unit("fraction")
          .fit(0, 0.9).def("0").doc("fraction of bandwidth taken by other agents (CPU, GPU) on a shared bus"),
      mib("ddr", "capacity_mib", SLOT(ddr.capacity_bytes)).above(0, 1 << 20).unit("MiB").def("4096")
          .doc("DRAM the NPU can address; programs that need more are rejected"),

      choice<DramStandardId>("dram", "standard", SLOT(dram.standard)).def("lpddr4x-4266")
          .doc("JEDEC timing set and organisation of one channel"),
      choice<DramPagePolicy>("dram", "page_policy", SLOT(dram.page_policy)).def("open")
          .doc("when a bank closes its row"),
      choice<DramSchedulerPolicy>("dram", "scheduler", SLOT(dram.scheduler)).def("frfcfs")
          .doc("which queued request a channel serves next"),
      integer("dram", "queue_depth", SLOT(dram.queue_depth)).range(1, 1024).unit("requests").def("32")
          .doc("requests per channel the scheduler chooses among; the DMA bus hands the controller its next "
               "chunk when every channel the last one used has at most half this many pending"),

      kib("sram", "capacity_kib", SLOT(sram.capacity_bytes)).required().above(0, 16384).unit("KiB")
          .max_because("the 16 MiB reach of the ISA's 24-bit SRAM addresses").def("1024")
          .rules("a multiple of `sram.alignment_bytes`")
          .doc("scratchpad size; overflow is an error, never a wrap"),
      integer("sram", "banks", SLOT(sram.banks)).range(1, 1024).pow2().def("16")
          .doc("banks; the DMA port, the MAC array and the vector unit stall on a bank another of them is using "
               "(`sim/README.md` \"Scratchpad banks\")"),
      choice<SramBankMapping>("sram", "bank_mapping", SLOT(sram.bank_mapping)).def("block")
          .doc("which bank holds an address"),
      integer("sram", "bank_interleave_bytes", SLOT(sram.bank_interleave_bytes)).range(1, 1 << 20).pow2()
          .unit("bytes").def("64").doc("stripe size of the `interleaved` mapping"),
      integer("sram", "bank_width_bytes", SLOT(sram.bank_width_bytes)).range(1, 65536).pow2().unit("bytes")
          .def("64")
          .doc("bytes one bank reads or writes per cycle: an access moving B bytes of bank b in C cycles keeps "
               "it busy min(1, B / (width × C)) of the time"),
      integer("sram", "port_bytes_per_cycle", SLOT(sram.port_bytes_per_cycle)).range(1, 65536)
          .unit("bytes/cycle").def("64")
          .doc("bytes per cycle per port; the DMA channels share one port, the compute side has its own"),
      integer("sram", "alignment_bytes", SLOT(sram.alignment_bytes)).range(1, 4096).pow2().unit("bytes")
          .def("64").doc("every instruction's SRAM address must be a multiple of this"),
      choice<SramTiming>("sram", "timing", SLOT(sram.timing)).def("explicit")
          .doc("where `access_cycles` comes from"),
      integer("sram", "access_cycles", SLOT(sram.access_cycles)).range(1, 64).unit("cycles").def("1")
          .rules("only 1 with `sram.timing: derived`")
          .doc("cycles from a bank read request to its data; the MAC array waits `access_cycles − 1` at the "
               "start of every fold (`sim/README.md` \"Gemm\"); 1 keeps every timing rule as before the key "
               "existed"),

      integer("dma", "channels", SLOT(dma.channels)).range(1, 64).def("2")
          .doc("DMA engines running concurrently"),
      integer("dma", "setup_cycles", SLOT(dma.setup_cycles)).range(0, 1e6).unit("cycles").fit(0, 10000)
          .def("32").doc("descriptor fetch and decode per DMA instruction"),
      integer("dma", "min_alignment_bytes", SLOT(dma.min_alignment_bytes)).range(1, 4096).pow2().unit("bytes")
          .def("4").doc("DDR addresses not a multiple of this go through a bounce buffer (an extra copy)"),
      integer("dma", "bounce_setup_cycles", SLOT(dma.bounce_setup_cycles)).range(0, 1e6).unit("cycles")
          .def("16").doc("fixed cost of a bounce copy"),
      integer("dma", "bounce_bytes_per_cycle", SLOT(dma.bounce_bytes_per_cycle)).range(1, 65536)
          .unit("bytes/cycle").def("16").doc("speed of a bounce copy"),
      choice<DmaArbitration>("dma", "arbitration", SLOT(dma.arbitration)).def("round_robin")
          .doc("how running transfers share the DDR bus and the scratchpad's DMA port"),
      integer("dma", "arbitration_bytes", SLOT(dma.arbitration_bytes)).range(1, 1 << 24).pow2().unit("bytes")
          .def("4096").rules("≥ `ddr.burst_bytes`")
          .doc("the chunk they take turns with; `ddr.burst_bytes` arbitrates per burst (slower to simulate)"),
      choice<DmaChannelQueue>("dma", "channel_queue", SLOT(dma.channel_queue)).def("serial")
          .doc("what a channel does with the next transfer queued on it"),

      integer("mac_array", "rows", SLOT(mac_array.rows)).required().range(1, 4096).unit("PEs").def("16")
          .doc("PE rows"),
      integer("mac_array", "cols", SLOT(mac_array.cols)).required().range(1, 4096).unit("PEs").def("16")
          .doc("PE columns"),
      choice<Dataflow>("mac_array", "dataflow", SLOT(mac_array.dataflow)).def("ws")
          .doc("per-tile cycles follow the SCALE-Sim formulas (see `isa/ISA.md`); what stays in the PEs"),
      choice<FoldOverlap>("mac_array", "fold_overlap", SLOT(mac_array.fold_overlap)).def("serial")
          .doc("what one fold of a gemm/conv instruction waits for before the next: serial as SCALE-Sim, or the "
               "next fold's block loaded while the current one streams"),
      integer("mac_array", "fp16_cycles_per_op", SLOT(mac_array.fp16_cycles_per_op)).range(1, 64)
          .unit("cycles").def("2").doc("an FP16 MAC takes this many INT8 MAC slots"),
      // Guesses: a convert and a multiply stage; int4 adds the nibble unpack.
      integer("mac_array", "dequant_int8_cycles_per_fold", SLOT(mac_array.dequant_int8_cycles_per_fold))
          .range(0, 1e6).unit("cycles").def("2")
          .doc("weight-only INT8 (`--weights int8`; gemm `b_format int8`): latency the dequantiser (int8 × fp16 "
               "scale → fp16) adds each time a block of weights enters the array; the MACs run at the FP16 rate "
               "(guess)"),
      integer("mac_array", "dequant_int4_cycles_per_fold", SLOT(mac_array.dequant_int4_cycles_per_fold))
          .range(0, 1e6).unit("cycles").def("3")
          .doc("the same for packed INT4 weights (`--weights int4`), one stage more for the nibble unpack "
               "(guess)"),
      integer("mac_array", "instruction_overhead_cycles", SLOT(mac_array.instruction_overhead_cycles))
          .range(0, 1e6).unit("cycles").fit(0, 20000).def("0")
          .doc("fixed cost of every gemm/conv instruction on top of its dataflow cycles (array set-up for a new "
               "shape, a runtime's per-operation dispatch); a per-op-class overhead `npusim calibrate` may fit "
               "(see \"Per-op-class overheads\" below)"),
      choice<MacArrayMapping>("mac_array", "mapping", SLOT(mac_array.mapping)).def("flexible")
          .doc("which mappings of a gemm/conv the array offers"),
      integer("mac_array", "depthwise_columns", SLOT(mac_array.depthwise_columns)).range(0, 65536)
          .unit("columns").fit(1, 4096).def("0")
          .doc("columns a depthwise conv's channels may occupy in the `depthwise` mapping (0: every column); "
               "fewer where each PE is a dot product over input channels, which a depthwise conv cannot fill"),

      integer("vector", "lanes", SLOT(vector.lanes)).range(1, 65536).unit("elements/cycle").def("16")
          .doc("elements processed per cycle"),
      integer("vector", "latency_cycles", SLOT(vector.latency_cycles)).range(0, 1e6).unit("cycles")
          .fit(0, 10000).def("4").doc("pipeline depth added to every vector instruction"),

      integer("controller", "queue_depth", SLOT(controller.queue_depth)).range(1, 65536).unit("instructions")
          .def("8").doc("instructions waiting per unit queue (load, compute, vector, store)"),
      integer("controller", "dispatch_cycles", SLOT(controller.dispatch_cycles)).range(0, 1e6).unit("cycles")
          .fit(0, 1000).def("1").doc("fetch + decode + dispatch per instruction"),

      integer("engines", "count", SLOT(engines.count)).range(1, 64).unit("engines").def("1")
          .doc("copies of {controller, MAC array, vector unit, scratchpad, DMA channels}, sharing the DDR; every other "
               "section describes one engine"),
      integer("engines", "sync_cycles", SLOT(engines.sync_cycles)).range(0, 1e6).unit("cycles").fit(0, 10000)
          .def("16").doc("a sync's cost once the last engine has arrived: the signal crossing between engines"),
      choice<SharedLoads>("engines", "shared_loads", SLOT(engines.shared_loads)).def("multicast")
          .doc("what the engines' DMA does with bytes several engines load (a channel-split layer's input, a "
               "row-split layer's weights)"),
      kib("engines", "shared_sram_kib", SLOT(engines.shared_sram_bytes)).range(0, 262144).unit("KiB")
          .max_because("the 256 MiB window of DDR addresses from the ISA's kSharedSramBase (isa/ISA.md \"Address map\")")
          .def("0")
          .doc("on-chip memory all engines reach through their DMA (Intel's CMX): a load or store whose DDR address "
               "is in the ISA's shared window (from 0xF0000000, isa/ISA.md \"Address map\") moves its bytes to or "
               "from here instead of DDR; the compiler keeps values engines exchange, and others it would spill, "
               "here when they fit; 0: none"),
      integer("engines", "shared_sram_bytes_per_cycle", SLOT(engines.shared_sram_bytes_per_cycle)).range(1, 65536)
          .unit("bytes/cycle").fit(1, 4096).def("64")
          .doc("the shared SRAM's bandwidth, all engines together: it serves one `dma.arbitration_bytes` chunk at "
               "a time among every engine's channels, by `dma.arbitration` (read only with `shared_sram_kib` > 0)"),
      integer("engines", "shared_sram_latency_cycles", SLOT(engines.shared_sram_latency_cycles)).range(0, 1e6)
          .unit("cycles").fit(0, 1000).def("8")
          .doc("first-data latency of one transfer to or from the shared SRAM, as `ddr.latency_ns` is DDR's (read "
               "only with `shared_sram_kib` > 0)"),

      number("host", "gflops", SLOT(host.gflops)).above(0, 1e7).unit("GFLOP/s").fit(1, 1e5).def("50")
          .doc("throughput of CPU fallback kernels"),
      number("host", "memcpy_gbps", SLOT(host.memcpy_gbps)).above(0, 1e5).unit("GB/s").fit(0.5, 2000).def("10")
          .doc("host copy bandwidth for layout conversion and transfers"),
      number("host", "transition_us", SLOT(host.transition_us)).range(0, 1e7).unit("us").fit(0, 1e4).def("20")
          .doc("per NPU↔CPU switch: driver call, cache flush"),
      number("host", "launch_us", SLOT(host.launch_us)).range(0, 1e7).unit("us").fit(0, 1e4).def("0")
          .doc("once per inference: submitting the job and taking its completion back (driver/RPC round trip)"),
      number("host", "layer_dispatch_us", SLOT(host.layer_dispatch_us)).range(0, 1e7).unit("us").fit(0, 1e3).def("0")
          .doc("per NPU layer that runs code: the device runtime dispatching it (a graph executor or firmware setting "
               "up each fused op), in series with the NPU's work"),

      choice<EnergyModel>("energy", "model", OPT_SLOT(energy, model)).def("explicit")
          .doc("how energy (and area) are charged"),
      integer("energy", "tech_nm", OPT_SLOT(energy, tech_nm)).range(1, 1000).unit("nm").def("7")
          .rules("a node with a table")
          .doc("derived: the node whose table to use (`configs/tech/<tech_nm>nm.yaml`; tables exist for 7, 22 "
               "and 45 nm)"),
      path("energy", "tech_table", OPT_SLOT(energy, tech_table)).def("")
          .rules("a table in the `configs/tech` format")
          .doc("derived: another table file instead (relative to this config file); its `node_nm` must equal "
               "`tech_nm`"),
      text("energy", "dram_technology", OPT_SLOT(energy, dram_technology)).def("")
          .rules("a row of the table's `dram` section that has a figure")
          .doc("derived: a DRAM technology of the table (`LPDDR4`, `DDR4`, `HBM2`, `GDDR6`, ...; matched ignoring "
               "case); empty: `ddr_byte_pj`"),
      integer("energy", "sram_rw_ports", OPT_SLOT(energy, sram_rw_ports)).range(1, 2).unit("ports").def("1")
          .doc("derived: read/write ports per SRAM bank as CACTI models them (1: the DMA and compute sides share "
               "each bank's port, as the simulator's bank model assumes)"),
      number("energy", "clock_scale", OPT_SLOT(energy, clock_scale)).range(0, 100).def("1")
          .doc("derived: scales the clock estimate (below); 0 for a fully gated clock"),
      number("energy", "uncore_mw", OPT_SLOT(energy, uncore_mw)).unit("mW").def("0")
          .doc("derived: power of what no table models (controller, queues, interconnect), added to static "
               "power"),
      number("energy", "int8_mac_pj", OPT_SLOT(energy, int8_mac_pj)).unit("pJ").def("0.2")
          .doc("explicit: one INT8 multiply-accumulate"),
      number("energy", "fp16_mac_pj", OPT_SLOT(energy, fp16_mac_pj)).unit("pJ").def("0.8")
          .doc("explicit: one FP16 multiply-accumulate"),
      number("energy", "sram_byte_pj", OPT_SLOT(energy, sram_byte_pj)).unit("pJ").def("0.5")
          .doc("explicit: one byte read or written in SRAM"),
      number("energy", "ddr_byte_pj", OPT_SLOT(energy, ddr_byte_pj)).unit("pJ").def("20")
          .doc("one byte moved to or from DDR (explicit; derived when `energy.dram_technology` is empty)"),
      number("energy", "static_mw", OPT_SLOT(energy, static_mw)).unit("mW").def("100")
          .doc("explicit: leakage + clock tree, over the whole run"),

      number("area", "mm2_per_mac", OPT_SLOT(area, mm2_per_mac)).unit("mm^2").def("0.0005")
          .doc("explicit model: one MAC with its registers"),
      number("area", "mm2_per_sram_kib", OPT_SLOT(area, mm2_per_sram_kib)).unit("mm^2").def("0.002")
          .doc("explicit model: one KiB of SRAM including periphery"),
      number("area", "fixed_mm2", OPT_SLOT(area, fixed_mm2)).unit("mm^2").def("1")
          .doc("controller, interconnect, what no table models (both models)"),
  };
  return f;
}

const HardwareConfig& defaults() {
  static const HardwareConfig d = [] {
    HardwareConfig c{BlankConfig{}};
    c.energy.emplace(BlankConfig{});
    c.area.emplace(BlankConfig{});
    for (const auto& f : fields()) {
      // A choice row naming one enum while its slot holds another would read names from the
      // wrong table: refuse it here, where every test run passes.
      const Slot slot = f.slot(c);
      if (const auto* ref = std::get_if<ChoiceRef>(&slot); ref && ref->list.entries != f.choices.entries)
        throw std::logic_error(f.path() + ": the schema row's choices are not its member's enum");
      // The loader's own conversion: a default is checked against the key's range like YAML.
      detail::set_field_text(f, c, f.default_value, false, "<schema default>");
    }
    return c;
  }();
  return d;
}

}  // namespace npu::schema
