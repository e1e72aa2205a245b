// Cross-layer interleaving of one NPU step's code. Each unit runs its instructions in program
// order, so a layer's first transfers queue behind every transfer of the layer before it, even
// ones that depend on nothing it does: a pooling layer reading its producer's output back from
// DDR starts its loads only when the producer has issued its last input load, near its end.
//
// The pass moves each instruction of a layer (B) into the code of the layer before it (A), to
// just behind the last earlier instruction it conflicts with (the same footprints as the
// dependency tokens, compiler/backend/dependency_tokens.h: read after write, write after read, write
// after write, scratchpad or DDR) and then `lag` more of A's tiles (A's compute and vector
// instructions), so it does not block A's own next loads in the queue. B's instructions keep
// their order, and no compute instruction lands between a conv/gemm and its drain. Moving an
// instruction only past instructions it does not conflict with changes no result.
//
// Which lag (or none) is decided per pair by the cost model: the window from the layer before A
// to the end of B is timed with costmodel::estimate_program for each choice, and a move is kept
// only when it is faster.
#pragma once
#include <cstdint>
#include <cstdio>
#include <vector>

#include "hwconfig/hardware_config.h"
#include "isa/instruction.h"

namespace npu::compiler {

struct InterleavedCode {
  std::vector<isa::Instruction> code;
  std::vector<std::uint32_t> owner;  // per instruction: the index of the layer it belongs to
  // check_order only: the layers of the first two conflicting instructions a move put in the
  // opposite order (the one moved ahead first; empty: none, the pass changed no result).
  std::vector<std::uint32_t> order_violation;
};

struct InterleaveOptions {
  bool enabled = true;       // false: the layers one after another
  // After each move, compare every instruction moved ahead with each one it passed (the pass
  // finds the conflicts its own way, this checks it: CompileOptions::check_interleave).
  bool check_order = false;
  // Time every window even when one equal up to its DDR placement was timed before, and fail
  // (std::logic_error) if the answers differ (window_timing_cache.h; tests).
  bool check_window_cache = false;
  std::FILE* log = nullptr;  // debugging: each decision (CompileOptions::debug_schedule)
};

// layers[i]: layer i's code in issue order (empty for layers without code).
InterleavedCode interleave_layers(const std::vector<std::vector<isa::Instruction>>& layers, const HardwareConfig& config,
                                  const InterleaveOptions& options = {});

}  // namespace npu::compiler
