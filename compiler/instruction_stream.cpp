#include "compiler/instruction_stream.h"

#include <algorithm>

#include "compiler/compile.h"

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

void emit_dma(std::vector<Instruction>& out, Opcode op, const DmaBox& box) {
  if (box.run_bytes == 0 || box.runs == 0 || box.reps == 0) return;
  // A contiguous box becomes fewer, longer runs.
  DmaBox b = box;
  if (b.runs > 1 && b.ddr_stride == b.run_bytes && b.sram_stride == b.run_bytes &&
      b.run_bytes * b.runs <= kDmaLen0Max) {
    b.run_bytes *= b.runs;
    b.runs = 1;
  }
  if (b.run_bytes > kDmaLen0Max)
    throw CompileError("a DMA run of " + std::to_string(b.run_bytes) + " bytes exceeds the 16-bit len0 field");
  std::uint64_t channel = op == Opcode::Load ? 0 : 1;
  // Split counts beyond the 10-bit field at a multiple of 64 so that every piece's SRAM
  // address stays as aligned as the box's (the scratchpad checks instruction base addresses).
  constexpr std::uint64_t kSplit = kDmaCountMax / 64 * 64;
  auto piece = [&](std::uint64_t left) { return left <= kDmaCountMax ? left : kSplit; };
  for (std::uint64_t r0 = 0, reps = 0; r0 < b.reps; r0 += reps) {
    reps = piece(b.reps - r0);
    for (std::uint64_t i0 = 0, runs = 0; i0 < b.runs; i0 += runs) {
      runs = piece(b.runs - i0);
      Instruction in = make(op, {{Field::channel, static_cast<std::int64_t>(channel)},
                                 {Field::ddr_addr, static_cast<std::int64_t>(b.ddr_addr + r0 * b.ddr_rep_stride + i0 * b.ddr_stride)},
                                 {Field::sram_addr, static_cast<std::int64_t>(b.sram_addr + r0 * b.sram_rep_stride + i0 * b.sram_stride)},
                                 {Field::len0, static_cast<std::int64_t>(b.run_bytes)},
                                 {Field::count1, static_cast<std::int64_t>(runs)},
                                 {Field::ddr_stride1, static_cast<std::int64_t>(runs > 1 ? b.ddr_stride : 0)},
                                 {Field::sram_stride1, static_cast<std::int64_t>(runs > 1 ? b.sram_stride : 0)},
                                 {Field::count2, static_cast<std::int64_t>(reps)},
                                 {Field::ddr_stride2, static_cast<std::int64_t>(reps > 1 ? b.ddr_rep_stride : 0)},
                                 {Field::sram_stride2, static_cast<std::int64_t>(reps > 1 ? b.sram_rep_stride : 0)}});
      out.push_back(in);
    }
  }
}

void emit_linear_load(std::vector<Instruction>& out, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes) {
  constexpr std::uint64_t kRun = 32768;
  if (bytes == 0) return;
  DmaBox head;
  head.ddr_addr = ddr;
  head.sram_addr = sram;
  head.run_bytes = std::min(bytes, kRun);
  head.runs = bytes / head.run_bytes;
  head.ddr_stride = head.sram_stride = head.run_bytes;
  emit_dma(out, Opcode::Load, head);
  std::uint64_t done = head.runs * head.run_bytes;
  if (done < bytes) emit_dma(out, Opcode::Load, DmaBox{ddr + done, sram + done, bytes - done});
}

std::vector<Instruction> LayerStream::finish() {
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
  for (auto& tile : tiles_)
    for (Unit u : chain_)
      out.insert(out.end(), tile.of(u).begin(), tile.of(u).end());
  return out;
}

}  // namespace npu::compiler
