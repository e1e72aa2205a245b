// Output stationary: each PE owns one element of an R x C block of C (R rows of m, C columns
// of n); A and B stream in for T = k steps. Per fold: T + R + C - 2 (skewed fill and drain;
// the results leave while the next fold fills, as SCALE-Sim assumes).
// SRAM reads: A once per column fold (ceil(n/C)), B once per row fold (ceil(m/R)).
#include "costmodel/dataflow.h"

namespace npu::cost {
namespace {

class OutputStationary : public DataflowModel {
 public:
  OutputStationary(int rows, int cols, FoldOverlap overlap) : DataflowModel(rows, overlap), r_(rows), c_(cols) {}
  Dataflow kind() const override { return Dataflow::OutputStationary; }
  std::uint64_t folds(std::uint64_t m, std::uint64_t n, std::uint64_t) const override {
    return ceil_div(m, r_) * ceil_div(n, c_);
  }
  OperandPasses operand_passes(std::uint64_t m, std::uint64_t n, std::uint64_t) const override {
    return {ceil_div(n, c_), ceil_div(m, r_)};
  }

 protected:
  std::uint64_t fold_cycles(std::uint64_t, std::uint64_t, std::uint64_t k) const override { return k + r_ + c_ - 2; }
  std::uint64_t stream_steps(std::uint64_t, std::uint64_t, std::uint64_t k) const override { return k; }

 private:
  std::uint64_t r_, c_;
};

}  // namespace

std::unique_ptr<DataflowModel> make_output_stationary(int rows, int cols, FoldOverlap overlap) {
  return std::make_unique<OutputStationary>(rows, cols, overlap);
}

}  // namespace npu::cost
