// ddr.model value -> DDR model. An explicit table rather than self-registering statics:
// npusim_sim is a static library, and the linker drops object files nothing refers to, which
// would silently unregister a model. The names are ddr.model's (hwconfig/config_choices.def);
// the loader rejects any other name, listing these.
#include "costmodel/ddr/ddr_model.h"

namespace npu::cost {
namespace {

constexpr ChoiceImpl<DdrModel, DdrModelFactory> kModels[] = {
    {DdrModel::Simple, make_simple_ddr},
    {DdrModel::Banked, make_banked_ddr},
    {DdrModel::Dram, make_dram_ddr},
    {DdrModel::Ideal, make_ideal_ddr},
};
static_assert(covers_every_choice(kModels), "one DDR model per ddr.model value, in config_choices.def's order");

}  // namespace

std::unique_ptr<DdrTimingModel> make_ddr_model(const DdrConfig& ddr, const DramConfig& dram) {
  return implementation_of(kModels, ddr.model)(ddr, dram);
}

}  // namespace npu::cost
