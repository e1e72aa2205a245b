// The dataflow registry: config value (mac_array.dataflow) -> implementation.
#include "costmodel/dataflow.h"

namespace npu::cost {
namespace {

using DataflowFactory = std::unique_ptr<DataflowModel> (*)(int rows, int cols);

constexpr ChoiceImpl<Dataflow, DataflowFactory> kDataflows[] = {
    {Dataflow::WeightStationary, make_weight_stationary},
    {Dataflow::OutputStationary, make_output_stationary},
    {Dataflow::InputStationary, make_input_stationary},
};
static_assert(covers_every_choice(kDataflows), "one implementation per mac_array.dataflow value, in config_choices.def's order");

}  // namespace

std::unique_ptr<DataflowModel> make_dataflow(const MacArrayConfig& c) {
  return implementation_of(kDataflows, c.dataflow)(c.rows, c.cols);
}

}  // namespace npu::cost
