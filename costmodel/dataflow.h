// Systolic-array dataflows: how many cycles one gemm of m x k by k x n takes on an R x C
// array. The closed forms are SCALE-Sim's, so results can be cross-checked against it:
//   folds * per-fold cycles, per-fold = fill + stream + drain
// (mac_array.fold_overlap serial); overlapped folds pay the fill and drain once.
// The arithmetic result does not depend on the dataflow; only the timing does.
#pragma once
#include <cstdint>
#include <memory>

#include "hwconfig/hardware_config.h"

namespace npu::cost {

// How many times one gemm streams each input operand out of the scratchpad (energy counters):
// the stationary operand is read once, a streamed operand once per fold of the other output
// dimension. Partial sums stay in the array's accumulators across the k folds, so C is
// written once (and read once when the gemm accumulates).
struct OperandPasses {
  std::uint64_t a = 1, b = 1;
};

class DataflowModel {
 public:
  DataflowModel(int rows, FoldOverlap overlap) : rows_(static_cast<std::uint64_t>(rows)), overlap_(overlap) {}
  virtual ~DataflowModel() = default;
  virtual Dataflow kind() const = 0;
  const char* name() const { return choice_name(kind()); }  // "ws", as YAML writes it
  // Cycles of one int8 gemm C[m x n] += A[m x k] * B[k x n]; m, n, k >= 1. serial: every fold
  // pays fold_cycles. overlapped (mac_array.fold_overlap): the first fold pays them, each further
  // fold max(T, R): its stationary block loads, and the fold before drains, while the current
  // one streams its T steps, which hides the R-cycle load only when T >= R.
  std::uint64_t gemm_cycles(std::uint64_t m, std::uint64_t n, std::uint64_t k) const;
  // How many blocks of the array's size the gemm runs as.
  virtual std::uint64_t folds(std::uint64_t m, std::uint64_t n, std::uint64_t k) const = 0;
  virtual OperandPasses operand_passes(std::uint64_t m, std::uint64_t n, std::uint64_t k) const = 0;

 protected:
  // One fold on its own: load of the stationary block, T streaming steps, skewed fill and drain.
  virtual std::uint64_t fold_cycles(std::uint64_t m, std::uint64_t n, std::uint64_t k) const = 0;
  // T: the steps one fold streams (m for WS, k for OS, n for IS).
  virtual std::uint64_t stream_steps(std::uint64_t m, std::uint64_t n, std::uint64_t k) const = 0;

 private:
  std::uint64_t rows_;
  FoldOverlap overlap_;
};

inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// Picks the implementation registered for config.dataflow in dataflow.cpp (one file each:
// dataflow_ws/os/is.cpp). A new dataflow: its value in hwconfig/config_choices.def, its file, and
// one line in dataflow.cpp's registry.
std::unique_ptr<DataflowModel> make_dataflow(const MacArrayConfig& config);
std::unique_ptr<DataflowModel> make_weight_stationary(int rows, int cols, FoldOverlap overlap);
std::unique_ptr<DataflowModel> make_output_stationary(int rows, int cols, FoldOverlap overlap);
std::unique_ptr<DataflowModel> make_input_stationary(int rows, int cols, FoldOverlap overlap);

}  // namespace npu::cost
