#include "compiler/backend/layer_mapping.h"

#include <cinttypes>
#include <cstdio>
#include <stdexcept>

namespace npu::compiler {

const char* loop_dim_name(LoopDim dim) {
  switch (dim) {
    case LoopDim::Batch: return "batch";
    case LoopDim::OutChannels: return "oc";
    case LoopDim::Channels: return "c";
    case LoopDim::Rows: return "rows";
    case LoopDim::Cols: return "cols";
    case LoopDim::M: return "m";
    case LoopDim::N: return "n";
    case LoopDim::Reduction: return "k";
    case LoopDim::Elements: return "elements";
  }
  return "?";
}

const char* buffer_role_name(BufferRole role) {
  switch (role) {
    case BufferRole::Table: return "table";
    case BufferRole::Params: return "params";
    case BufferRole::Weights: return "weights";
    case BufferRole::Input: return "input";
    case BufferRole::Operand: return "operand";
    case BufferRole::Accumulator: return "acc";
    case BufferRole::Output: return "output";
    case BufferRole::Residual: return "residual";
    case BufferRole::Temp: return "temp";
    case BufferRole::Partials: return "partials";
  }
  return "?";
}

std::int64_t LayerMapping::tiles() const {
  std::int64_t n = 1;
  for (const auto& l : loops) n *= l.tiles();
  return n;
}

const MappingLoop& LayerMapping::loop(LoopDim dim) const {
  for (const auto& l : loops)
    if (l.dim == dim) return l;
  throw std::out_of_range(std::string("layer mapping has no ") + loop_dim_name(dim) + " loop");
}

const MappingBuffer& LayerMapping::buffer(BufferRole role, int index) const {
  for (const auto& b : buffers)
    if (b.role == role && b.index == index) return b;
  throw std::out_of_range(std::string("layer mapping has no ") + buffer_role_name(role) + " buffer " + std::to_string(index));
}

std::uint64_t LayerMapping::place(BufferRole role, int index, std::uint64_t bytes, std::uint64_t& at) {
  MappingBuffer* b = nullptr;
  for (auto& x : buffers)
    if (x.role == role && x.index == index) b = &x;
  if (!b) {
    buffers.push_back({role, index, {}, bytes});
    b = &buffers.back();
  }
  b->slots.push_back(at);
  at += bytes;
  if (at > region_base + region_bytes) region_bytes = at - region_base;
  return b->slots.back();
}

std::string size_text(std::uint64_t bytes) {
  char s[32];
  if (bytes < 1024) std::snprintf(s, sizeof s, "%" PRIu64 " B", bytes);
  else std::snprintf(s, sizeof s, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  return s;
}

const char* engine_split_dim_name(LoopDim dim) { return dim == LoopDim::Rows ? "rows" : "output channels"; }

std::string EngineSplit::describe() const {
  if (parts.empty()) return why.empty() ? "1 engine" : "1 engine, whole (" + why + ")";
  std::string s = std::to_string(parts.size()) + " engines by " + engine_split_dim_name(parts.front().dim) + " ";
  for (std::size_t e = 0; e < parts.size(); ++e) s += (e ? "+" : "") + std::to_string(parts[e].size());
  if (!why.empty()) s += " (" + why + ")";
  return s;
}

std::string LayerMapping::describe() const {
  std::string s;
  switch (unit) {
    case TileUnit::Array:
      s = std::string("array ") + choice_name(dataflow);
      if (depthwise) s += " depthwise";
      if (swapped_tiles > 0) s += ", " + std::to_string(swapped_tiles) + " of " + std::to_string(tiles()) + " tiles swapped";
      break;
    case TileUnit::Vector: s = "vector"; break;
    case TileUnit::Dma: s = "dma"; break;
  }
  s += ": ";
  for (std::size_t i = 0; i < loops.size(); ++i) {
    const auto& l = loops[i];
    s += (i ? " > " : "") + std::string(loop_dim_name(l.dim)) + " " + std::to_string(l.extent);
    if (l.tile != l.extent) s += "/" + std::to_string(l.tile);
  }
  if (loops.empty()) s += "one tile";
  s += "; ";
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const auto& b = buffers[i];
    s += (i ? ", " : "") + std::string(buffer_role_name(b.role));
    if (b.index > 0 || b.role == BufferRole::Operand || b.role == BufferRole::Temp) s += std::to_string(b.index);
    s += " " + (b.slots.size() > 1 ? std::to_string(b.slots.size()) + "x" : std::string()) + size_text(b.bytes);
  }
  s += (buffers.empty() ? "" : " = ") + size_text(region_bytes) + " of the scratchpad";
  s += "; " + split.describe();
  if (est_cycles > 0) {
    char e[48];
    std::snprintf(e, sizeof e, "; est %.0f cycles", est_cycles);
    s += e;
  }
  return s;
}

}  // namespace npu::compiler
