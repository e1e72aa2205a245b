// The tilers' estimate of a layer: its tiles run as load -> compute -> vector -> store stages
// on the four in-order units, with double-buffered slots (the load of tile t+2 reuses the slots
// compute and, for a residual, vector of tile t read; compute of t+2 reuses the accumulators
// vector of t reads; vector of t+2 reuses the output slot the store of t reads). This is the
// timing of the dependency tokens the compiler derives for such a layer (sim/README.md
// "Units"); a stage a tile does not have costs 0.
#pragma once
#include <vector>

namespace npu::cost {

struct TileStageCycles {
  double load = 0, compute = 0, vector = 0, store = 0;
};

// When the last stage of the last tile ends, from 0. `residual_to_vector`: the loads also fill
// a slot the epilogue reads. `shared_dma_channel`: loads and stores queue on one DMA channel.
double tile_pipeline_cycles(const std::vector<TileStageCycles>& tiles, bool residual_to_vector, bool shared_dma_channel);

}  // namespace npu::cost
