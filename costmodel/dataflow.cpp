// The dataflow registry: config value (mac_array.dataflow) -> implementation.
#include "costmodel/dataflow.h"

#include <algorithm>

namespace npu::cost {
namespace {

using DataflowFactory = std::unique_ptr<DataflowModel> (*)(int rows, int cols, FoldOverlap overlap);

constexpr ChoiceImpl<Dataflow, DataflowFactory> kDataflows[] = {
    {Dataflow::WeightStationary, make_weight_stationary},
    {Dataflow::OutputStationary, make_output_stationary},
    {Dataflow::InputStationary, make_input_stationary},
};
static_assert(covers_every_choice(kDataflows), "one implementation per mac_array.dataflow value, in config_choices.def's order");

}  // namespace

std::unique_ptr<DataflowModel> make_dataflow(const MacArrayConfig& c) {
  return implementation_of(kDataflows, c.dataflow)(c.rows, c.cols, c.fold_overlap);
}

std::uint64_t DataflowModel::gemm_cycles(std::uint64_t m, std::uint64_t n, std::uint64_t k) const {
  const std::uint64_t count = folds(m, n, k), first = fold_cycles(m, n, k);
  if (overlap_ == FoldOverlap::Serial) return count * first;
  return first + (count - 1) * std::max(stream_steps(m, n, k), rows_);
}

}  // namespace npu::cost
