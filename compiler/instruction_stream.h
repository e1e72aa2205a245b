// Builds the instruction stream of a layer as tiles of up to four stages (load, compute,
// vector, store) and wires the dependency tokens that let tile t+1's loads overlap tile t's
// compute: a "ready" token from each stage to the next, and a "slot free" token back once the
// consumer is done with the double-buffer slot (so stage P of tile t+2 may overwrite it).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "isa/field_limits.h"
#include "isa/instruction.h"

namespace npu::compiler {

using isa::Field;
using isa::Instruction;
using isa::Opcode;
using isa::Unit;

// Limits of the DMA fields, from the ISA table.
constexpr std::uint64_t kDmaLen0Max = static_cast<std::uint64_t>(isa::field_max(isa::Opcode::Load, isa::Field::len0));
constexpr std::uint64_t kDmaCountMax = static_cast<std::uint64_t>(isa::field_max(isa::Opcode::Load, isa::Field::count1));

// A strided box of bytes: reps x runs x run_bytes. Load/store may split it into several
// instructions when a count exceeds its field.
struct DmaBox {
  std::uint64_t ddr_addr = 0, sram_addr = 0;
  std::uint64_t run_bytes = 0;
  std::uint64_t runs = 1, ddr_stride = 0, sram_stride = 0;
  std::uint64_t reps = 1, ddr_rep_stride = 0, sram_rep_stride = 0;
};

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
  // Token wiring, then the instructions in issue order (tile by tile, stage by stage).
  std::vector<Instruction> finish();

 private:
  std::vector<Unit> chain_;
  bool load_feeds_vector_;
  std::vector<TileStages> tiles_;
};

// Appends load (or store) instructions moving `box`; one DMA channel per direction so a
// stage's transfers complete in order (its last one carries the tokens).
void emit_dma(std::vector<Instruction>& out, Opcode op, const DmaBox& box);

// Loads `bytes` contiguous bytes (runs of up to 32 KiB plus a shorter tail).
void emit_linear_load(std::vector<Instruction>& out, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes);

// Shorthand for building an instruction field by field.
Instruction make(Opcode op, std::initializer_list<std::pair<Field, std::int64_t>> fields);

}  // namespace npu::compiler
