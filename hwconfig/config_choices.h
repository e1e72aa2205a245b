// The configuration choices as enums, each with its one name table (hwconfig/config_choices.def):
//   enum class DdrModel { Simple, Banked, Dram, Ideal };   // ddr.model
//   enum class DdrAddressMapping { RowBankColumn, RowColumnBank, RowBankColumnBankGroup };
//   enum class DramStandardId { Lpddr4x_4266, Lpddr5x_8533, Ddr5_5600 };
//   enum class DramPagePolicy { Open, Closed };
//   enum class DramSchedulerPolicy { FrFcfs, Fcfs };
//   enum class SramBankMapping { Block, Interleaved };
//   enum class SramTiming { Explicit, Derived };
//   enum class DmaArbitration { RoundRobin, ChannelPriority };
//   enum class DmaChannelQueue { Serial, Pipelined };
//   enum class Dataflow { WeightStationary, OutputStationary, InputStationary };   // ws | os | is
//   enum class MacArrayMapping { Flexible, Fixed };
//   enum class EnergyModel { Explicit, Derived };
// Code compares and switches on the enums; only names cross the boundary (YAML, messages,
// reports, Python), through choice_name / choice_from_name.
#pragma once
#include <cstddef>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace npu {

#define NPU_CHOICE(E) enum class E {
#define NPU_CHOICE_VALUE(E, V, NAME, DESCRIPTION) V,
#define NPU_CHOICE_END(E) \
  }                       \
  ;
#include "hwconfig/config_choices.def"
#undef NPU_CHOICE
#undef NPU_CHOICE_VALUE
#undef NPU_CHOICE_END

struct ChoiceEntry {
  const char* name;         // as YAML writes it
  const char* description;  // one line, for configs/README.md
};

// One choice's table without its enum type, for the schema and the docs.
struct ChoiceList {
  const ChoiceEntry* entries = nullptr;
  std::size_t count = 0;

  const ChoiceEntry* begin() const { return entries; }
  const ChoiceEntry* end() const { return entries + count; }
  // Index of the entry called `name` (exact, case-sensitive), or nullopt.
  std::optional<std::size_t> index_of(std::string_view name) const;
  // "simple, banked, dram, ideal" (separator ", "), or joined by `separator`.
  std::string names(const char* separator = ", ") const;
};

template <typename E>
struct ChoiceTable;  // one specialisation per choice, from config_choices.def

#define NPU_CHOICE(E)                                \
  template <>                                        \
  struct ChoiceTable<E> {                            \
    static constexpr ChoiceEntry entries[] = {
#define NPU_CHOICE_VALUE(E, V, NAME, DESCRIPTION) {NAME, DESCRIPTION},
#define NPU_CHOICE_END(E) \
  }                       \
  ;                       \
  }                       \
  ;
#include "hwconfig/config_choices.def"
#undef NPU_CHOICE
#undef NPU_CHOICE_VALUE
#undef NPU_CHOICE_END

template <typename E>
constexpr std::size_t choice_count() {
  return std::size(ChoiceTable<E>::entries);
}

template <typename E>
constexpr ChoiceList choice_list() {
  return {ChoiceTable<E>::entries, choice_count<E>()};
}

// The YAML name of `value` ("simple"); "?" for a value outside the enum (a cast integer).
template <typename E>
const char* choice_name(E value) {
  const auto i = static_cast<std::size_t>(value);
  return i < choice_count<E>() ? ChoiceTable<E>::entries[i].name : "?";
}

template <typename E>
std::optional<E> choice_from_name(std::string_view name) {
  if (const auto i = choice_list<E>().index_of(name)) return static_cast<E>(*i);
  return std::nullopt;
}

// An implementation table keyed by a choice (a policy registry): entry i is for value i.
template <typename E, typename Impl>
struct ChoiceImpl {
  E value;
  Impl impl;
};

// Whether `table` has one entry per value of E, in enum order: registries static_assert it, so
// a value added to config_choices.def without an implementation does not compile.
template <typename E, typename Impl, std::size_t N>
constexpr bool covers_every_choice(const ChoiceImpl<E, Impl> (&table)[N]) {
  if (N != choice_count<E>()) return false;
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(table[i].value) != i) return false;
  return true;
}

// The implementation registered for `value` in a table that covers_every_choice. A value outside
// the enum (an integer cast to it; validate() rejects those) throws std::invalid_argument.
template <typename E, typename Impl, std::size_t N>
const Impl& implementation_of(const ChoiceImpl<E, Impl> (&table)[N], E value) {
  const auto i = static_cast<std::size_t>(value);
  if (i >= N)
    throw std::invalid_argument(std::to_string(i) + " is not a value of a choice (" + choice_list<E>().names() +
                                ")");
  return table[i].impl;
}

}  // namespace npu
