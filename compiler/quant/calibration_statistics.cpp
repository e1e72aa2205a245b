#include "compiler/quant/calibration_statistics.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <thread>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
  // The range in one branch-free pass over 8 independent lanes (no chain of dependent
  // compares; it vectorises): a comparison with NaN is false, so NaNs leave lo/hi alone and
  // are counted apart.
  constexpr std::size_t kLanes = 8;
  float lanes_lo[kLanes], lanes_hi[kLanes];
  std::uint32_t lanes_nan[kLanes] = {};
  std::fill(lanes_lo, lanes_lo + kLanes, std::numeric_limits<float>::infinity());
  std::fill(lanes_hi, lanes_hi + kLanes, -std::numeric_limits<float>::infinity());
  std::size_t at = 0, nans = 0;
#if defined(__SSE2__)
  // The same eight lanes in two SSE registers: GCC at -O2 kept the lanes in memory, and this
  // pass took half of add's time. minps(v, lo) is v < lo ? v : lo and maxps(v, hi) is
  // v > hi ? v : hi, NaN and signed zeros included, so every lane ends as the loop below has it.
  if (n >= kLanes) {
    __m128 lo0 = _mm_loadu_ps(lanes_lo), lo1 = _mm_loadu_ps(lanes_lo + 4);
    __m128 hi0 = _mm_loadu_ps(lanes_hi), hi1 = _mm_loadu_ps(lanes_hi + 4);
    __m128i nan0 = _mm_setzero_si128(), nan1 = _mm_setzero_si128();
    for (; at + kLanes <= n; at += kLanes) {
      const __m128 v0 = _mm_loadu_ps(data + at), v1 = _mm_loadu_ps(data + at + 4);
      lo0 = _mm_min_ps(v0, lo0);
      lo1 = _mm_min_ps(v1, lo1);
      hi0 = _mm_max_ps(v0, hi0);
      hi1 = _mm_max_ps(v1, hi1);
      nan0 = _mm_sub_epi32(nan0, _mm_castps_si128(_mm_cmpunord_ps(v0, v0)));  // a true lane is -1
      nan1 = _mm_sub_epi32(nan1, _mm_castps_si128(_mm_cmpunord_ps(v1, v1)));
    }
    _mm_storeu_ps(lanes_lo, lo0);
    _mm_storeu_ps(lanes_lo + 4, lo1);
    _mm_storeu_ps(lanes_hi, hi0);
    _mm_storeu_ps(lanes_hi + 4, hi1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(lanes_nan), nan0);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(lanes_nan + 4), nan1);
  }
#endif
  for (; at + kLanes <= n; at += kLanes)
    for (std::size_t k = 0; k < kLanes; ++k) {
      const float v = data[at + k];
      lanes_lo[k] = v < lanes_lo[k] ? v : lanes_lo[k];
      lanes_hi[k] = v > lanes_hi[k] ? v : lanes_hi[k];
      lanes_nan[k] += v != v;
    }
  for (; at < n; ++at) {
    const float v = data[at];
    lanes_lo[0] = v < lanes_lo[0] ? v : lanes_lo[0];
    lanes_hi[0] = v > lanes_hi[0] ? v : lanes_hi[0];
    lanes_nan[0] += v != v;
  }
  float lo = lanes_lo[0], hi = lanes_hi[0];
  for (std::size_t k = 0; k < kLanes; ++k) {
    lo = std::min(lo, lanes_lo[k]);
    hi = std::max(hi, lanes_hi[k]);
    nans += lanes_nan[k];
  }
  if (nans) nan_ = true;
  const std::size_t counted = n - nans;
  if (!counted) return;
  const bool all_finite = std::isfinite(lo) && std::isfinite(hi);
  float finite_lo = lo, finite_hi = hi;
  std::size_t finite = counted;
  if (!all_finite) {  // rare: infinities, counted in min/max but not in the bins
    finite_lo = std::numeric_limits<float>::infinity(), finite_hi = -finite_lo;
    finite = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const float v = data[i];
      if (!std::isfinite(v)) continue;
      finite_lo = std::min(finite_lo, v);
      finite_hi = std::max(finite_hi, v);
      ++finite;
    }
  }
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
  if (!(r > 0.0)) {
    counts_[kBins / 2] += finite;
    return;
  }
  const double inv = kBins / (2.0 * r);
  // Bin indices in blocks (branch-free arithmetic that vectorises: every finite value lies in
  // [-R, R], so only R itself needs clamping), then counted into four interleaved tables: a run
  // of equal bins (a ReLU's zeros) would otherwise wait on its own increments.
  constexpr std::size_t kBlock = 1024, kTables = 4;
  std::int32_t bins[kBlock];
  std::vector<std::uint32_t> table(kTables * kBins, 0);
  std::uint32_t* t0 = table.data();
  std::uint32_t* t1 = t0 + kBins;
  std::uint32_t* t2 = t1 + kBins;
  std::uint32_t* t3 = t2 + kBins;
  for (std::size_t first = 0; first < n; first += kBlock) {
    const std::size_t m = std::min(kBlock, n - first);
    const float* block = data + first;
    if (all_finite && !nans) {
      std::size_t i = 0;
#if defined(__SSE2__)
      // Four at a time in SSE2 (every x86-64 has it; GCC at -O2 leaves this loop scalar): the
      // same double arithmetic and truncation, so the same bins.
      const __m128d rr = _mm_set1_pd(r), scale = _mm_set1_pd(inv);
      const __m128i last = _mm_set1_epi32(kBins - 1);
      for (; i + 4 <= m; i += 4) {
        const __m128 v = _mm_loadu_ps(block + i);
        const __m128i lo = _mm_cvttpd_epi32(_mm_mul_pd(_mm_add_pd(_mm_cvtps_pd(v), rr), scale));
        const __m128i hi = _mm_cvttpd_epi32(_mm_mul_pd(_mm_add_pd(_mm_cvtps_pd(_mm_movehl_ps(v, v)), rr), scale));
        const __m128i b = _mm_unpacklo_epi64(lo, hi);
        const __m128i over = _mm_cmpgt_epi32(b, last);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(bins + i), _mm_or_si128(_mm_andnot_si128(over, b), _mm_and_si128(over, last)));
      }
#endif
      for (; i < m; ++i) {
        const auto b = static_cast<std::int32_t>((static_cast<double>(block[i]) + r) * inv);
        bins[i] = b < kBins - 1 ? b : kBins - 1;
      }
      i = 0;
      for (; i + kTables <= m; i += kTables) {
        ++t0[bins[i]];
        ++t1[bins[i + 1]];
        ++t2[bins[i + 2]];
        ++t3[bins[i + 3]];
      }
      for (; i < m; ++i) ++t0[bins[i]];
    } else {
      for (std::size_t i = 0; i < m; ++i)
        if (std::isfinite(block[i])) {
          const auto b = static_cast<std::int32_t>((static_cast<double>(block[i]) + r) * inv);
          ++t0[std::clamp<std::int32_t>(b, 0, kBins - 1)];
        }
    }
  }
  for (int i = 0; i < kBins; ++i) counts_[i] += std::uint64_t{t0[i]} + t1[i] + t2[i] + t3[i];
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

namespace {

// The evaluator's and the host runner's errors start with "<model>: node '<name>' (<op>)" (and
// " on the host"): the fallback line names the node once, at its start.
std::string without_node_prefix(const Graph& g, const Node& n, std::string why) {
  const std::string prefix = g.source + ": node '" + n.name + "' (" + n.op_type + ")";
  for (const std::string& p : {prefix + " on the host: ", prefix + ": "})
    for (auto at = why.find(p); at != std::string::npos; at = why.find(p)) why.erase(at, p.size());
  return why;
}

}  // namespace

CalibrationStatistics collect_statistics(const Graph& g, const std::vector<TensorMap>& inputs, bool histograms,
                                         const NodeRunner& elsewhere, UnmeasuredValues* unmeasured) {
  // Samples are independent: up to one thread per core, each with its own statistics, merged
  // after (exactly: see calibration_statistics.h).
  const std::size_t threads =
      std::max<std::size_t>(1, std::min<std::size_t>(inputs.size(), std::thread::hardware_concurrency()));
  std::vector<CalibrationStatistics> partial(threads);
  std::vector<UnmeasuredValues> partial_unmeasured(threads);
  std::vector<std::exception_ptr> errors(threads);
  auto work = [&](std::size_t t) {
    UnmeasuredValues& why_absent = partial_unmeasured[t];
    UnevaluatedNodes unevaluated;
    unevaluated.elsewhere = elsewhere;
    // A node that failed itself is the root of what is absent after it; the values after it
    // carry the root's line, so a fallback names the op to blame, not its neighbour.
    unevaluated.unevaluated = [&](std::size_t k, const std::string& missing_input, const std::string& why) {
      const Node& n = g.nodes[k];
      std::string line;
      if (missing_input.empty()) {
        line = "calibration could not run '" + n.name + "' (" + n.op_type + "): " + without_node_prefix(g, n, why) +
               (elsewhere ? "" : "; nothing else to run it on (the runtime lends ONNX Runtime as host_runner)");
      } else {
        const auto root = why_absent.find(missing_input);
        line = root != why_absent.end() ? root->second : "no value for its input '" + missing_input + "'";
      }
      for (const auto& o : n.outputs)
        if (!o.empty()) why_absent.emplace(o, line);
    };
    try {
      for (std::size_t s = t; s < inputs.size(); s += threads)
        evaluate_graph_visiting(
            g, inputs[s],
            [&](const std::string& name, const FloatTensor& v) {
              if (v.data.empty()) return;
              auto [it, fresh] = partial[t].try_emplace(name);
              if (fresh && histograms) it->second = ValueHistogram::with_bins();
              it->second.add(v.data.data(), v.data.size());
            },
            &unevaluated);
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
  if (unmeasured)
    for (const auto& part : partial_unmeasured)
      for (const auto& [value, why] : part) unmeasured->emplace(value, why);
  CalibrationStatistics stats = std::move(partial[0]);
  for (std::size_t t = 1; t < threads; ++t)
    for (const auto& [name, h] : partial[t]) {
      auto [it, fresh] = stats.try_emplace(name, h);
      if (!fresh) it->second.merge(h);
    }
  return stats;
}

}  // namespace npu::compiler
