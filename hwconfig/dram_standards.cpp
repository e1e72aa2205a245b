// The timing sets. Sources, per standard:
//   LPDDR4X-4266: DRAMSys memspec JEDEC_1Gbx16_LPDDR4-4266.json (tukl-msd/DRAMSys,
//     configs/memspec), figures in clocks of tCK = 0.469 ns, which follow JESD209-4B
//     (LPDDR4) / JESD209-4-1 (LPDDR4X): tRCD = tRPpb = max(18 ns, 4 nCK), tRAS = 42 ns,
//     RL 36 / WL 18 (set A, no DBI), tRFCab = 380 ns (16 Gb per channel), tREFI = 3.904 us.
//   LPDDR5X-8533: JESD209-5B/5C core timings in ns as tabulated by Ramulator 2
//     (CMU-SAFARI/ramulator2, src/dram/impl/LPDDR5.cpp, preset LPDDR5_6400 with tCK 1.25 ns:
//     nRCD 15, nRPpb 15, nRAS 34, nRRD 4, nFAW 16, nWTRS 5, nWTRL 10; tRFCab 280 ns for
//     16 Gb, tREFI 3906 ns); the core timings are specified in ns, so they carry over to
//     8533 (CK = 1066.7 MHz, tCK = 0.9375 ns). UNCERTAIN (not in either table for 8533, from
//     memory of JESD209-5C): RL 20 nCK, WL 11 nCK, tWR 34 ns, tRTP 7.5 ns, tCCD_L 4 nCK in
//     bank-group mode; 16 banks as 4 bank groups (bank-group mode is required above 3200 MT/s).
//   DDR5-5600: JESD79-5B speed bin DDR5-5600B (CL-tRCD-tRP 46-45-45, tRAS 32 ns,
//     CWL = CL - 2), organisation and clock-based rules as in Ramulator 2
//     (src/dram/impl/DDR5.cpp: tCCD_S 8 nCK, tCCD_L and tRRD_L max(8 nCK, 5 ns), tRFC1 295 ns
//     for 16 Gb, tREFI 3900 ns, RD->WR = CL + BL/2 + 2 - CWL + 2); 16 Gb x8 devices: 8 bank
//     groups x 4 banks, 1 KB page per device, 4 devices per 32-bit sub-channel = 4 KiB row.
//     UNCERTAIN: tFAW 32 nCK (Ramulator 2 gives 32 nCK for x8 at 3200; JESD79-5 may require
//     more in ns at 5600), tWTR_S max(4 nCK, 2.5 ns), tWTR_L max(16 nCK, 10 ns), tWR 30 ns,
//     tRTP max(12 nCK, 7.5 ns).
// Command-bus time (UNCERTAIN, from the command encodings): LPDDR4 ACT-1+ACT-2 and RD+CAS-2 take
// 4 tCK, PRE 2 tCK; LPDDR5 ACT-1+ACT-2 2 tCK, RD/WR and PRE 1 tCK; DDR5 ACT and RD/WR are
// two-cycle commands, PRE one.
#include "hwconfig/dram_standards.h"

#include <iterator>
#include <stdexcept>
#include <string>

namespace npu {
namespace {

constexpr double kLp4Ck = 2000.0 / 4266.0;  // ns
constexpr double kLp5Ck = 8000.0 / 8533.0;  // CK is 1/8 of the data rate (WCK:CK = 4:1)
constexpr double kDdr5Ck = 2000.0 / 5600.0;

// One per DramStandardId, in its order (config_choices.def).
constexpr DramStandard kStandards[] = {
    {DramStandardId::Lpddr4x_4266, 4266, kLp4Ck, 2, 16, 8, 1, 2048,
     /*tRCD*/ 39 * kLp4Ck, /*tRP*/ 39 * kLp4Ck, /*tRAS*/ 90 * kLp4Ck, /*tRC*/ 129 * kLp4Ck,
     /*tCL*/ 36 * kLp4Ck, /*tCWL*/ 18 * kLp4Ck,
     /*tCCD_S*/ 8 * kLp4Ck, /*tCCD_L*/ 8 * kLp4Ck,
     /*tRRD_S*/ 22 * kLp4Ck, /*tRRD_L*/ 22 * kLp4Ck, /*tFAW*/ 86 * kLp4Ck,
     // WR -> RD is WL + 1 + BL/2 + tWTR: the extra clock is folded into tWTR.
     /*tWTR_S*/ 23 * kLp4Ck, /*tWTR_L*/ 23 * kLp4Ck,
     // RL + BL/2 + RU(tDQSCKmax/tCK) - WL + tWPRE + RD(tRPST) = 36 + 8 + 4 - 18 + 2 + 0.
     /*tRTW*/ 32 * kLp4Ck,
     /*tWR*/ 39 * kLp4Ck, /*tRTP*/ 17 * kLp4Ck,
     /*tRFC*/ 812 * kLp4Ck, /*tREFI*/ 8341 * kLp4Ck,
     /*cmd act, cas, pre*/ 4 * kLp4Ck, 4 * kLp4Ck, 2 * kLp4Ck},
    {DramStandardId::Lpddr5x_8533, 8533, kLp5Ck, 2, 16, 16, 4, 2048,
     18.0, 18.0, 42.0, 60.0,
     20 * kLp5Ck, 11 * kLp5Ck,
     2 * kLp5Ck, 4 * kLp5Ck,
     5.0, 5.0, 20.0,
     6.25, 12.5,
     // RL + BL/n + 2 - WL (Ramulator 2's LPDDR5 RD->WR rule) = 20 + 2 + 2 - 11.
     13 * kLp5Ck,
     34.0, 7.5,
     280.0, 3906.0,
     2 * kLp5Ck, 1 * kLp5Ck, 1 * kLp5Ck},
    {DramStandardId::Ddr5_5600, 5600, kDdr5Ck, 4, 16, 32, 8, 4096,
     45 * kDdr5Ck, 45 * kDdr5Ck, 32.0, 32.0 + 45 * kDdr5Ck,
     46 * kDdr5Ck, 44 * kDdr5Ck,
     8 * kDdr5Ck, 14 * kDdr5Ck,
     8 * kDdr5Ck, 14 * kDdr5Ck, 32 * kDdr5Ck,
     7 * kDdr5Ck, 28 * kDdr5Ck,
     // CL + BL/2 + 2 - CWL + 2 = 46 + 8 + 2 - 44 + 2.
     14 * kDdr5Ck,
     30.0, 21 * kDdr5Ck,
     295.0, 3900.0,
     2 * kDdr5Ck, 2 * kDdr5Ck, 1 * kDdr5Ck},
};

constexpr bool one_per_standard() {
  if (std::size(kStandards) != choice_count<DramStandardId>()) return false;
  for (std::size_t i = 0; i < std::size(kStandards); ++i)
    if (static_cast<std::size_t>(kStandards[i].id) != i) return false;
  return true;
}
static_assert(one_per_standard(), "one timing set per dram.standard value, in config_choices.def's order");

}  // namespace

const DramStandard& dram_standard(DramStandardId id) {
  const auto i = static_cast<std::size_t>(id);
  if (i >= std::size(kStandards))
    throw std::invalid_argument("dram.standard " + std::to_string(i) + " is not one of " +
                                choice_list<DramStandardId>().names());
  return kStandards[i];
}

}  // namespace npu
