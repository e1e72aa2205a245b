// Weight stationary: a k x n block of B is pinned in the array (R rows of k, C columns of n);
// the m rows of A stream through. Per fold: R cycles to load weights, then T = m rows
// streamed with R + C - 2 cycles of skew to fill and drain: 2R + C + T - 2.
// SRAM reads: B once (stationary); A once per column fold, ceil(n/C) times.
#include "costmodel/dataflow.h"

namespace npu::cost {
namespace {

class WeightStationary : public DataflowModel {
 public:
  WeightStationary(int rows, int cols, FoldOverlap overlap) : DataflowModel(rows, overlap), r_(rows), c_(cols) {}
  Dataflow kind() const override { return Dataflow::WeightStationary; }
  std::uint64_t folds(std::uint64_t, std::uint64_t n, std::uint64_t k) const override {
    return ceil_div(k, r_) * ceil_div(n, c_);
  }
  OperandPasses operand_passes(std::uint64_t, std::uint64_t n, std::uint64_t) const override {
    return {ceil_div(n, c_), 1};
  }

 protected:
  std::uint64_t fold_cycles(std::uint64_t m, std::uint64_t, std::uint64_t) const override { return 2 * r_ + c_ + m - 2; }
  std::uint64_t stream_steps(std::uint64_t m, std::uint64_t, std::uint64_t) const override { return m; }

 private:
  std::uint64_t r_, c_;
};

}  // namespace

std::unique_ptr<DataflowModel> make_weight_stationary(int rows, int cols, FoldOverlap overlap) {
  return std::make_unique<WeightStationary>(rows, cols, overlap);
}

}  // namespace npu::cost
