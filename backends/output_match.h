// How close a device's outputs are to the FP32 reference, and latency statistics over runs.
#pragma once
#include <string>
#include <vector>

#include "runtime/tensor.h"

namespace npu::backends {

struct OutputMatch {
  std::string output;
  double cosine = 0;         // cosine similarity of the flattened values; 1 when both are all zero
  double max_abs_error = 0;
  std::string problem;       // shape or dtype mismatch: the numbers above are meaningless
};

// Any numeric dtype; values compared as doubles.
OutputMatch match_output(const std::string& name, const runtime::HostTensor& reference, const runtime::HostTensor& value);

struct LatencyStats {
  std::vector<double> runs_us;  // in run order
  double median_us = 0;
  double p90_us = 0;            // nearest-rank 90th percentile
};

LatencyStats latency_stats(std::vector<double> runs_us);

}  // namespace npu::backends
