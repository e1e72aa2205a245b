// The trial-code timing cache (compiler/backend/code_timing_cache.h): code timed before is
// answered from the cache, any other code (one field, one token bit apart) is timed anew.
#include <catch2/catch.hpp>

#include "compiler/backend/code_timing_cache.h"
#include "compiler/backend/instruction_stream.h"

using namespace npu;
using namespace npu::compiler;
using isa::Field;
using isa::Opcode;

namespace {

std::vector<isa::Instruction> load_then_halt(std::int64_t ddr_addr) {
  return {make(Opcode::Load, {{Field::ddr_addr, ddr_addr}, {Field::sram_addr, 0}, {Field::len0, 64}}),
          isa::make_instruction(Opcode::Halt)};
}

}  // namespace

TEST_CASE("code timing cache: equal code is timed once, other code again") {
  CodeTimingCache cache;
  int timed = 0;
  const auto timing = [&](double cycles) {
    return [&timed, cycles]() -> std::optional<CodeTiming> {
      ++timed;
      return CodeTiming{cycles, 64};
    };
  };
  const auto a = load_then_halt(0x1000);
  REQUIRE(cache.find_or_time(a, timing(100))->cycles == 100);
  REQUIRE(cache.find_or_time(load_then_halt(0x1000), timing(999))->cycles == 100);
  REQUIRE(timed == 1);

  REQUIRE(cache.find_or_time(load_then_halt(0x1040), timing(200))->cycles == 200);
  auto tokened = a;
  tokened[0].push = 1;
  REQUIRE(cache.find_or_time(tokened, timing(300))->cycles == 300);
  REQUIRE(timed == 3);
}

TEST_CASE("code timing cache: code without a plan stays without one") {
  CodeTimingCache cache;
  int timed = 0;
  const auto none = [&]() -> std::optional<CodeTiming> {
    ++timed;
    return std::nullopt;
  };
  REQUIRE_FALSE(cache.find_or_time(load_then_halt(0x2000), none));
  REQUIRE_FALSE(cache.find_or_time(load_then_halt(0x2000), none));
  REQUIRE(timed == 1);
}
