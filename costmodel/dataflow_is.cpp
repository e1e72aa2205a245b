// Input stationary: a k x m block of A (transposed) is pinned (R rows of k, C columns of m);
// the n columns of B stream through. Per fold: 2R + C + T - 2 with T = n, mirroring WS.
// SRAM reads: A once (stationary); B once per column fold of m, ceil(m/C) times.
#include "costmodel/dataflow.h"

namespace npu::cost {
namespace {

class InputStationary : public DataflowModel {
 public:
  InputStationary(int rows, int cols, FoldOverlap overlap) : DataflowModel(rows, overlap), r_(rows), c_(cols) {}
  Dataflow kind() const override { return Dataflow::InputStationary; }
  std::uint64_t folds(std::uint64_t m, std::uint64_t, std::uint64_t k) const override {
    return ceil_div(k, r_) * ceil_div(m, c_);
  }
  OperandPasses operand_passes(std::uint64_t m, std::uint64_t, std::uint64_t) const override {
    return {1, ceil_div(m, c_)};
  }

 protected:
  std::uint64_t fold_cycles(std::uint64_t, std::uint64_t n, std::uint64_t) const override { return 2 * r_ + c_ + n - 2; }
  std::uint64_t stream_steps(std::uint64_t, std::uint64_t n, std::uint64_t) const override { return n; }

 private:
  std::uint64_t r_, c_;
};

}  // namespace

std::unique_ptr<DataflowModel> make_input_stationary(int rows, int cols, FoldOverlap overlap) {
  return std::make_unique<InputStationary>(rows, cols, overlap);
}

}  // namespace npu::cost
