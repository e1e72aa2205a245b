// Dataflow enum -> implementation; the enum comes from the config (dataflow: ws|os|is).
#include "costmodel/dataflow.h"

namespace npu::cost {

std::unique_ptr<DataflowModel> make_dataflow(const MacArrayConfig& c) {
  switch (c.dataflow) {
    case Dataflow::WeightStationary: return make_weight_stationary(c.rows, c.cols);
    case Dataflow::OutputStationary: return make_output_stationary(c.rows, c.cols);
    case Dataflow::InputStationary: return make_input_stationary(c.rows, c.cols);
  }
  return make_weight_stationary(c.rows, c.cols);
}

}  // namespace npu::cost
