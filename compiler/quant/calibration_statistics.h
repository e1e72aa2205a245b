// What calibration measures of every value the graph computes: its exact min/max and, for the
// histogram methods, a histogram. The histogram spans [-R, R) with R a power of two covering
// the largest magnitude seen; when a later sample needs a larger R, bins merge pairwise, which
// is exact, so the statistics of a set of samples are the same in any order and on any number
// of threads.
#pragma once
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/core/graph.h"
#include "compiler/core/quant_options.h"
#include "compiler/reference/float_evaluator.h"

namespace npu::compiler {

class ValueHistogram {
 public:
  static constexpr int kBins = 4096;  // over [-R, R): kBins / 2 for each sign

  // A histogram keeps counts; a default-constructed one min/max only.
  static ValueHistogram with_bins() {
    ValueHistogram h;
    h.counts_.assign(kBins, 0);
    return h;
  }

  void add(const float* data, std::size_t n);
  void merge(const ValueHistogram& other);

  // NaN when any value seen was NaN, +-inf when one was infinite: assign_quantization then
  // leaves the value to the CPU (the bins count finite values only).
  float min() const { return nan_ ? kNaN : min_; }
  float max() const { return nan_ ? kNaN : max_; }
  bool empty() const { return !seen_; }
  std::uint64_t total() const { return total_; }
  // R = 2^exponent (0 when every value seen was 0).
  double range() const;
  double bin_width() const { return 2.0 * range() / kBins; }
  const std::vector<std::uint64_t>& counts() const { return counts_; }

 private:
  void grow_to(int exponent);
  static constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  float min_ = 0.0f, max_ = 0.0f;
  bool nan_ = false;
  bool seen_ = false;  // a non-NaN value (min_/max_ hold it)
  std::uint64_t total_ = 0;
  int exponent_ = kNoRange;  // kNoRange: all values 0 so far (they sit in the middle bin)
  std::vector<std::uint64_t> counts_;
  static constexpr int kNoRange = -1000;
};

// Min/max always; histograms only when `histograms` (the percentile, entropy and mse methods).
using CalibrationStatistics = std::map<std::string, ValueHistogram>;
// Values calibration could not measure, each with one line why: the node it could not run (no
// FP32 kernel, and `elsewhere` could not run it either) and its reason; values after it name it too.
using UnmeasuredValues = std::map<std::string, std::string>;
// `elsewhere` runs the nodes the FP32 evaluator cannot (host_node_runner.h); empty: they and
// the values that depend on them stay unmeasured, listed in `unmeasured` when given.
CalibrationStatistics collect_statistics(const Graph& graph, const std::vector<TensorMap>& inputs, bool histograms,
                                         const NodeRunner& elsewhere = {}, UnmeasuredValues* unmeasured = nullptr);

// The clipping range [lo, hi] of a value by `method` (quant_options.h). `symmetric`: the range
// is then used as [-t, t] (zero point 0), which the entropy and mse searches take into account.
std::pair<float, float> clipping_range(const ValueHistogram& h, CalibrationMethod method, double percentile,
                                       bool symmetric);

}  // namespace npu::compiler
