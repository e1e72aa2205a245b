// JEDEC timing sets for the command-level DRAM model (ddr.model: dram), picked by
// dram.standard. Data, not formulas: the DRAM model (sim/ddr_dram*) applies them command by
// command and the compiler's estimate (costmodel/dma_cost.h) reads the same numbers; the
// config validator checks ddr.bandwidth_gbps and ddr.burst_bytes against them. Every figure
// and its source is listed in dram_standards.cpp.
#pragma once
#include "hwconfig/config_choices.h"

namespace npu {

// One channel of one speed bin. Times in ns (figures given in clocks by the source are
// converted with tck_ns); a channel is what has its own command bus (a DDR5 DIMM's 32-bit
// sub-channel, an LPDDR 16-bit channel).
struct DramStandard {
  DramStandardId id;         // the dram.standard value
  double data_rate_mtps;     // transfers per second per data pin, millions
  double tck_ns;             // command clock period
  int channel_bytes;         // data bus width of one channel
  int burst_length;          // beats per RD/WR
  int banks;                 // per channel (all bank groups together)
  int bank_groups;           // 1: no bank groups
  int row_bytes;             // row (page) size per channel
  double tRCD, tRP, tRAS, tRC;  // ACT->RD/WR, PRE->ACT, ACT->PRE, ACT->ACT same bank
  double tCL, tCWL;          // RD / WR command to first data beat
  double tCCD_S, tCCD_L;     // CAS->CAS, different / same bank group
  double tRRD_S, tRRD_L;     // ACT->ACT other bank, different / same bank group
  double tFAW;               // at most four ACTs per tFAW
  double tWTR_S, tWTR_L;     // end of write data -> RD, different / same bank group
  double tRTW;               // RD -> WR command spacing (bus turnaround included)
  double tWR, tRTP;          // write recovery (end of data -> PRE), RD -> PRE
  double tRFC, tREFI;        // all-bank refresh: blocked time, interval
  double act_cmd_ns, cas_cmd_ns, pre_cmd_ns;  // command-bus time of ACT, RD/WR, PRE

  int burst_bytes() const { return channel_bytes * burst_length; }
  double tBURST() const { return burst_length * 1000.0 / data_rate_mtps; }  // ns on the data bus
  double channel_gbps() const { return data_rate_mtps * channel_bytes / 1000.0; }
  const char* name() const { return choice_name(id); }
};

// The timing set of one dram.standard value (every value has one).
const DramStandard& dram_standard(DramStandardId id);

}  // namespace npu
