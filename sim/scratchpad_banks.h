// The scratchpad bank-conflict rule lives in the cost model (costmodel/scratchpad_banks.h), so
// the compiler's program estimate charges the same stalls the simulator does.
#pragma once
#include "costmodel/scratchpad_banks.h"

namespace npu::sim {
using cost::ScratchpadBanks;
}  // namespace npu::sim
