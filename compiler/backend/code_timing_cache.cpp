#include "compiler/backend/code_timing_cache.h"

#include <cstring>

namespace npu::compiler {
namespace {

// Every bit of the instructions that means something: opcode, token masks and the opcode's
// fields (the slots of Instruction::values past them are no field, and nothing reads them).
std::string key_of(const std::vector<isa::Instruction>& code) {
  std::string key;
  key.reserve(code.size() * 64);
  for (const isa::Instruction& in : code) {
    key.push_back(static_cast<char>(in.opcode));
    key.push_back(static_cast<char>(in.pop));
    key.push_back(static_cast<char>(in.push));
    const auto fields = static_cast<std::size_t>(isa::opcode_info(in.opcode).field_count);
    const std::size_t at = key.size();
    key.resize(at + fields * sizeof(std::int64_t));
    std::memcpy(&key[at], in.values.data(), fields * sizeof(std::int64_t));
  }
  return key;
}

}  // namespace

std::optional<CodeTiming> CodeTimingCache::find_or_time(const std::vector<isa::Instruction>& code,
                                                        const std::function<std::optional<CodeTiming>()>& time) {
  std::string key = key_of(code);
  if (auto it = timings_.find(key); it != timings_.end()) return it->second;
  std::optional<CodeTiming> timing = time();
  timings_.emplace(std::move(key), timing);
  return timing;
}

}  // namespace npu::compiler
