// Several engines loading the same DDR bytes (a channel-split layer's whole input, a row-split
// layer's weights) load them once: matching loads become mloads of every engine
// (isa/instruction_set.def), which the group's first engine's DMA reads once for all.
//
// A load is matched with one on each other engine when it belongs to the same layer, reads the
// same DDR side (address, run length, counts, strides; three dimensions at most) and is the same
// occurrence of that side there. The matched loads must meet in the same order on every engine
// (the k-th mload of each engine meets the k-th of the others). Interleaving may have moved a
// layer's loads differently on each engine, so between two syncs each engine's shared loads are
// first moved down into the order of the engine that shares the most bytes with the others
// (a load issued before one it follows there moves to just after it, unless an instruction in
// between touches its bytes), and the loads kept are then a common subsequence of the engines'
// orders (pairwise, of the most bytes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "compiler/backend/layer_interleave.h"

namespace npu::compiler {

// Per layer (InterleavedCode::owner): its loads that became mloads (one per engine each) and
// the DDR bytes they read once instead of once per engine.
struct MulticastCount {
  std::size_t loads = 0;
  std::uint64_t bytes = 0;
};

// Rewrites matched loads of the engines' streams in place; returns the counts per layer (as many
// entries as the highest owner + 1; empty when nothing changed). Loads of fewer than `min_bytes`
// stay separate: an mload makes every engine wait for the others, for little bus time saved.
std::vector<MulticastCount> multicast_shared_loads(std::vector<InterleavedCode>& streams, std::uint64_t min_bytes = 0);

}  // namespace npu::compiler
