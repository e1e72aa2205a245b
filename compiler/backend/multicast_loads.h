// Several engines loading the same DDR bytes (a channel-split layer's whole input, a row-split
// layer's weights) load them once: matching loads become mloads of every engine
// (isa/instruction_set.def), which the group's first engine's DMA reads once for all.
//
// A load is matched with one on each other engine when it belongs to the same layer, reads the
// same DDR side (address, run length, counts, strides; three dimensions at most) and is the same
// occurrence of that side there. The matched loads must meet in the same order on every engine
// (the k-th mload of each engine meets the k-th of the others): between two syncs, the loads
// kept are a common subsequence of the engines' orders (longest, pairwise), since interleaving
// may have moved a layer's loads differently on each engine.
#pragma once
#include <cstddef>
#include <vector>

#include "compiler/backend/layer_interleave.h"

namespace npu::compiler {

// Rewrites matched loads of the engines' streams in place; returns how many loads became
// mloads (on every engine together).
std::size_t multicast_shared_loads(std::vector<InterleavedCode>& streams);

}  // namespace npu::compiler
