#include "hwconfig/config_choices.h"

namespace npu {

std::optional<std::size_t> ChoiceList::index_of(std::string_view name) const {
  for (std::size_t i = 0; i < count; ++i)
    if (name == entries[i].name) return i;
  return std::nullopt;
}

std::string ChoiceList::names(const char* separator) const {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) out += (i ? separator : "") + std::string(entries[i].name);
  return out;
}

}  // namespace npu
