// Builds the instruction stream of a layer as tiles of up to four stages (load, compute,
// vector, store) and wires the dependency tokens that let tile t+1's loads overlap tile t's
// compute: a "ready" token from each stage to the next, and a "slot free" token back once the
// consumer is done with the double-buffer slot (so stage P of tile t+2 may overwrite it).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "costmodel/dma_box.h"
#include "isa/field_limits.h"
#include "isa/instruction.h"

namespace npu::compiler {

using isa::Field;
using isa::Instruction;
using isa::Opcode;
using isa::Unit;

// An address for an instruction's signed 64-bit field setter (isa::Instruction::set).
inline std::int64_t addr(std::uint64_t a) { return static_cast<std::int64_t>(a); }

// A strided box of bytes: planes x reps x runs x run_bytes; load/store split it as
// cost::split_dma_box says (the estimate costs the same pieces).
using cost::DmaBox;
// Limits of the DMA fields, from the ISA table.
constexpr std::uint64_t kDmaLen0Max = static_cast<std::uint64_t>(isa::field_max(isa::Opcode::Load, isa::Field::len0));
constexpr std::uint64_t kDmaCountMax = static_cast<std::uint64_t>(isa::field_max(isa::Opcode::Load, isa::Field::count1));

struct TileStages {
  std::vector<Instruction> load, compute, vector, store;
  std::vector<Instruction>& of(Unit u);
};

class LayerStream {
 public:
  // `chain`: the stages this layer uses, in data order (e.g. load, compute, vector, store).
  // `load_feeds_vector`: loads also fill a slot the vector stage reads (a residual operand).
  LayerStream(std::vector<Unit> chain, bool load_feeds_vector)
      : chain_(std::move(chain)), load_feeds_vector_(load_feeds_vector) {}
  TileStages& new_tile() {
    tiles_.emplace_back();
    return tiles_.back();
  }
  // Loads the tiles need before the first one (a table, parameters): they open the first tile's
  // load stage, or, in a layer without one (every operand on chip), go ahead of all tiles (the
  // dependency pass orders them before the first use).
  void load_first(std::vector<Instruction> loads) { first_loads_ = std::move(loads); }
  // Token wiring, then the instructions in issue order (tile by tile, stage by stage).
  std::vector<Instruction> finish();

 private:
  std::vector<Unit> chain_;
  bool load_feeds_vector_;
  std::vector<TileStages> tiles_;
  std::vector<Instruction> first_loads_;
};

// Appends load (or store) instructions moving `box`, split as cost::split_dma_box says for a
// scratchpad of `sram_alignment` (the dependency pass picks their DMA channels:
// dependency_tokens.h).
void emit_dma(std::vector<Instruction>& out, Opcode op, const DmaBox& box, std::uint64_t sram_alignment);

// Rows [row0, +rows) x columns [col0, +cols) of an NHWC tensor of width w and c_total channels,
// channels [c0, +count), as one box: whole rows when it can, else runs per row or per pixel.
// The SRAM side is dense (rows x cols x count). Codegen emits it; the tilers cost it.
DmaBox window_box(std::uint64_t ddr_base, std::uint64_t sram, std::int64_t row0, std::int64_t rows, std::int64_t col0,
                  std::int64_t cols, std::int64_t w, std::int64_t c_total, std::int64_t c0, std::int64_t count,
                  std::int64_t elem_bytes);

// Loads (or stores) `bytes` contiguous bytes (runs of cost::kLinearRunBytes plus a shorter tail).
void emit_linear_dma(std::vector<Instruction>& out, Opcode op, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes,
                     std::uint64_t sram_alignment);
inline void emit_linear_load(std::vector<Instruction>& out, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes,
                             std::uint64_t sram_alignment) {
  emit_linear_dma(out, Opcode::Load, ddr, sram, bytes, sram_alignment);
}

// Shorthand for building an instruction field by field.
Instruction make(Opcode op, std::initializer_list<std::pair<Field, std::int64_t>> fields);

}  // namespace npu::compiler
