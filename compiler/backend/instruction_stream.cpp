#include "compiler/backend/instruction_stream.h"

#include <algorithm>
#include <stdexcept>

#include "compiler/core/compile_options.h"
#include "costmodel/dma_cost.h"

namespace npu::compiler {
namespace {

std::uint8_t bit(Unit u) { return static_cast<std::uint8_t>(1u << static_cast<int>(u)); }

}  // namespace

std::vector<Instruction>& TileStages::of(Unit u) {
  switch (u) {
    case Unit::Load: return load;
    case Unit::Compute: return compute;
    case Unit::Vector: return vector;
    default: return store;
  }
}

Instruction make(Opcode op, std::initializer_list<std::pair<Field, std::int64_t>> fields) {
  Instruction in = isa::make_instruction(op);
  for (const auto& [f, v] : fields) in.set(f, v);
  return in;
}

void emit_dma(std::vector<Instruction>& out, Opcode op, const DmaBox& box, std::uint64_t sram_alignment) {
  std::vector<DmaBox> pieces;
  try {
    pieces = cost::split_dma_box(box, sram_alignment);
  } catch (const std::length_error& e) {
    throw CompileError(e.what());
  }
  const std::int64_t channel = op == Opcode::Load ? 0 : 1;
  for (const DmaBox& p : pieces) {
    auto v = [](std::uint64_t x) { return static_cast<std::int64_t>(x); };
    out.push_back(make(op, {{Field::channel, channel},
                            {Field::ddr_addr, v(p.ddr_addr)},
                            {Field::sram_addr, v(p.sram_addr)},
                            {Field::len0, v(p.run_bytes)},
                            {Field::count1, v(p.runs)},
                            {Field::ddr_stride1, v(p.ddr_stride)},
                            {Field::sram_stride1, v(p.sram_stride)},
                            {Field::count2, v(p.reps)},
                            {Field::ddr_stride2, v(p.ddr_rep_stride)},
                            {Field::sram_stride2, v(p.sram_rep_stride)},
                            {Field::count3, v(p.planes)},
                            {Field::ddr_stride3, v(p.ddr_plane_stride)},
                            {Field::sram_stride3, v(p.sram_plane_stride)}}));
  }
}

DmaBox window_box(std::uint64_t ddr_base, std::uint64_t sram, std::int64_t row0, std::int64_t rows, std::int64_t col0,
                  std::int64_t cols, std::int64_t w, std::int64_t c_total, std::int64_t c0, std::int64_t count,
                  std::int64_t es) {
  auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  const std::uint64_t row_bytes = u(w * c_total * es), pixel = u(c_total * es);
  DmaBox b;
  b.sram_addr = sram;
  b.ddr_addr = ddr_base + u(row0) * row_bytes + u(col0 * c_total + c0) * u(es);
  const std::uint64_t band = u(cols) * pixel;  // one row of the window, all channels
  if (count == c_total && band <= cost::dma_run_bytes_max()) {
    b.run_bytes = band;
    b.runs = u(rows);
    b.ddr_stride = row_bytes;
    b.sram_stride = band;
  } else {
    b.run_bytes = u(count * es);
    b.runs = u(cols);
    b.ddr_stride = pixel;
    b.sram_stride = b.run_bytes;
    b.reps = u(rows);
    b.ddr_rep_stride = row_bytes;
    b.sram_rep_stride = u(cols) * b.run_bytes;
  }
  return b;
}

void emit_linear_dma(std::vector<Instruction>& out, Opcode op, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes,
                     std::uint64_t sram_alignment) {
  constexpr std::uint64_t kRun = cost::kLinearRunBytes;
  if (bytes == 0) return;
  DmaBox head;
  head.ddr_addr = ddr;
  head.sram_addr = sram;
  head.run_bytes = std::min(bytes, kRun);
  head.runs = bytes / head.run_bytes;
  head.ddr_stride = head.sram_stride = head.run_bytes;
  emit_dma(out, op, head, sram_alignment);
  std::uint64_t done = head.runs * head.run_bytes;
  if (done < bytes) emit_dma(out, op, DmaBox{ddr + done, sram + done, bytes - done}, sram_alignment);
}

std::vector<Instruction> LayerStream::finish() {
  const bool has_loads = std::find(chain_.begin(), chain_.end(), Unit::Load) != chain_.end();
  if (has_loads && !tiles_.empty()) tiles_[0].load.insert(tiles_[0].load.begin(), first_loads_.begin(), first_loads_.end());
  const std::size_t n = tiles_.size();
  auto first = [&](std::size_t t, Unit u) -> Instruction& { return tiles_[t].of(u).front(); };
  auto last = [&](std::size_t t, Unit u) -> Instruction& { return tiles_[t].of(u).back(); };
  for (std::size_t t = 0; t < n; ++t)
    for (Unit u : chain_)
      if (tiles_[t].of(u).empty())
        throw CompileError("internal: a tile has an empty " + std::string(isa::unit_name(u)) + " stage");
  auto wire = [&](Unit p, Unit q) {
    for (std::size_t t = 0; t < n; ++t) {
      last(t, p).push |= bit(q);   // data in P's slot is ready for Q
      first(t, q).pop |= bit(p);
      if (t + 2 < n) {             // Q is done with slot t%2: P of tile t+2 may refill it
        last(t, q).push |= bit(p);
        first(t + 2, p).pop |= bit(q);
      }
    }
  };
  for (std::size_t i = 0; i + 1 < chain_.size(); ++i) wire(chain_[i], chain_[i + 1]);
  if (load_feeds_vector_) wire(Unit::Load, Unit::Vector);
  std::vector<Instruction> out;
  if (!has_loads || tiles_.empty()) out = std::move(first_loads_);
  for (auto& tile : tiles_)
    for (Unit u : chain_)
      out.insert(out.end(), tile.of(u).begin(), tile.of(u).end());
  return out;
}

}  // namespace npu::compiler
