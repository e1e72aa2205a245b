// Name -> DDR model. An explicit table rather than self-registering statics: npusim_sim is
// a static library, and the linker drops object files nothing refers to, which would
// silently unregister a model.
#include <fmt/format.h>

#include "costmodel/ddr/ddr_model.h"
#include "costmodel/timing_error.h"

namespace npu::cost {
namespace {

struct Entry {
  const char* name;
  DdrModelFactory make;
};
constexpr Entry kModels[] = {
    {"simple", make_simple_ddr},
    {"banked", make_banked_ddr},
    {"dram", make_dram_ddr},
    {"ideal", make_ideal_ddr},
};

}  // namespace

std::vector<std::string> ddr_model_names() {
  std::vector<std::string> names;
  for (const auto& e : kModels) names.emplace_back(e.name);
  return names;
}

std::unique_ptr<DdrTimingModel> make_ddr_model(const DdrConfig& ddr, const DramConfig& dram) {
  for (const auto& e : kModels)
    if (ddr.model == e.name) return e.make(ddr, dram);
  throw TimingError(fmt::format("ddr.model '{}' is unknown (known: {})", ddr.model,
                             fmt::join(ddr_model_names(), ", ")));
}

}  // namespace npu::cost
