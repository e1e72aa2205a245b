// What a piece of trial code costs, kept by its instructions: the step scheduler asks for the
// same code again and again (a layer under other placements of other layers' values, budgets
// below which its tiles stop changing, layers alike in shape: ViT-B/16 INT8 asks 9,025 times
// for 925 distinct codes), and deriving tokens and running the timing core is most of what an
// answer costs. Timing is a function of the instructions and the hardware config alone, so a
// cache holds one config's answers; equal instructions are compared whole, not by a hash.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "isa/instruction.h"

namespace npu::compiler {

struct CodeTiming {
  double cycles = 0;
  double ddr_bytes = 0;  // bytes the code's loads and stores touch in DDR
};

class CodeTimingCache {
 public:
  // What `time` says of `code` (none: no plan), from the cache when this code was timed before.
  std::optional<CodeTiming> find_or_time(const std::vector<isa::Instruction>& code,
                                         const std::function<std::optional<CodeTiming>()>& time);

 private:
  std::unordered_map<std::string, std::optional<CodeTiming>> timings_;  // by the code's bits
};

}  // namespace npu::compiler
