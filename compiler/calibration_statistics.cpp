#include "compiler/calibration_statistics.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <thread>

namespace npu::compiler {

namespace {

// ceil(log2(a)) for a > 0: the smallest R = 2^e with a <= R.
int covering_exponent(double a) {
  int e = 0;
  const double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  return m == 0.5 ? e - 1 : e;
}

}  // namespace

double ValueHistogram::range() const { return exponent_ == kNoRange ? 0.0 : std::ldexp(1.0, exponent_); }

void ValueHistogram::grow_to(int exponent) {
  if (exponent_ == kNoRange || counts_.empty()) {  // zeros stay in the middle bin at any R
    exponent_ = std::max(exponent_, exponent);
    return;
  }
  while (exponent_ < exponent) {  // R doubles: old bin i lands in new bin kBins/4 + i/2
    std::vector<std::uint64_t> merged(kBins, 0);
    for (int i = 0; i < kBins; ++i) merged[kBins / 4 + i / 2] += counts_[i];
    counts_ = std::move(merged);
    ++exponent_;
  }
}

void ValueHistogram::add(const float* data, std::size_t n) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;  // over non-NaN values
  float finite_lo = lo, finite_hi = hi;
  std::size_t counted = 0, finite = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = data[i];
    if (std::isnan(v)) {
      nan_ = true;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    ++counted;
    if (!std::isfinite(v)) continue;
    finite_lo = std::min(finite_lo, v);
    finite_hi = std::max(finite_hi, v);
    ++finite;
  }
  if (!counted) return;
  min_ = seen_ ? std::min(min_, lo) : lo;
  max_ = seen_ ? std::max(max_, hi) : hi;
  seen_ = true;
  total_ += finite;
  if (!finite) return;
  const double magnitude =
      std::max(std::fabs(static_cast<double>(finite_lo)), std::fabs(static_cast<double>(finite_hi)));
  if (magnitude > 0.0) grow_to(covering_exponent(magnitude));
  if (counts_.empty()) return;  // min/max only
  const double r = range();
  const double inv = r > 0.0 ? kBins / (2.0 * r) : 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = data[i];
    if (!std::isfinite(v)) continue;
    const long b = r > 0.0 ? static_cast<long>((v + r) * inv) : kBins / 2;
    ++counts_[static_cast<std::size_t>(std::clamp<long>(b, 0, kBins - 1))];
  }
}

void ValueHistogram::merge(const ValueHistogram& other) {
  nan_ = nan_ || other.nan_;
  if (!other.seen_) return;
  if (!seen_) {
    const bool histogram = !counts_.empty();
    const bool nan = nan_;
    *this = other;
    nan_ = nan;
    if (histogram && counts_.empty()) counts_.assign(kBins, 0);
    return;
  }
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  total_ += other.total_;
  ValueHistogram o = other;
  const int e = std::max(exponent_, o.exponent_);
  if (e != kNoRange) {
    grow_to(e);
    o.grow_to(e);
  }
  if (!counts_.empty() && !o.counts_.empty())
    for (int i = 0; i < kBins; ++i) counts_[i] += o.counts_[i];
}

CalibrationStatistics collect_statistics(const Graph& g, const std::vector<TensorMap>& inputs, bool histograms) {
  const TensorMap constants = graph_constants(g);
  // Samples are independent: up to one thread per core, each with its own statistics, merged
  // after (exactly: see calibration_statistics.h).
  const std::size_t threads =
      std::max<std::size_t>(1, std::min<std::size_t>(inputs.size(), std::thread::hardware_concurrency()));
  std::vector<CalibrationStatistics> partial(threads);
  std::vector<std::exception_ptr> errors(threads);
  auto work = [&](std::size_t t) {
    try {
      for (std::size_t s = t; s < inputs.size(); s += threads)
        evaluate_graph_visiting(g, inputs[s], constants, [&](const std::string& name, const FloatTensor& v) {
          if (v.data.empty()) return;
          auto [it, fresh] = partial[t].try_emplace(name);
          if (fresh && histograms) it->second = ValueHistogram::with_bins();
          it->second.add(v.data.data(), v.data.size());
        });
    } catch (...) {
      errors[t] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  CalibrationStatistics stats = std::move(partial[0]);
  for (std::size_t t = 1; t < threads; ++t)
    for (const auto& [name, h] : partial[t]) {
      auto [it, fresh] = stats.try_emplace(name, h);
      if (!fresh) it->second.merge(h);
    }
  return stats;
}

}  // namespace npu::compiler
