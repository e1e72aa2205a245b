#include "costmodel/tile_pipeline.h"

#include <algorithm>

namespace npu::cost {

double tile_pipeline_cycles(const std::vector<TileStageCycles>& tiles, bool residual, bool shared) {
  const std::size_t n = tiles.size();
  if (n == 0) return 0;
  std::vector<double> L(n), C(n), V(n), S(n);
  auto at = [](const std::vector<double>& v, std::size_t i, std::size_t back) { return i >= back ? v[i - back] : 0.0; };
  double channel = 0;  // one DMA channel: loads and stores queue on it
  auto load = [&](std::size_t i) {
    double t = std::max({at(L, i, 1), at(C, i, 2), residual ? at(V, i, 2) : 0.0});
    if (shared) t = std::max(t, channel);
    L[i] = t + tiles[i].load;
    if (shared && tiles[i].load > 0) channel = L[i];
  };
  load(0);
  for (std::size_t i = 0; i < n; ++i) {
    C[i] = std::max({at(C, i, 1), L[i], at(V, i, 2)}) + tiles[i].compute;
    V[i] = std::max({at(V, i, 1), C[i], at(S, i, 2), residual ? L[i] : 0.0}) + tiles[i].vector;
    if (i + 1 < n) load(i + 1);
    double t = std::max(at(S, i, 1), V[i]);
    if (shared) t = std::max(t, channel);
    S[i] = t + tiles[i].store;
    if (shared && tiles[i].store > 0) channel = S[i];
  }
  return S[n - 1];
}

}  // namespace npu::cost
