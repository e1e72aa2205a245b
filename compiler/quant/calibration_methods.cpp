// The clipping-range searches of the histogram calibration methods (calibration_statistics.h).
// Entropy and mse search one threshold t on the magnitude: the range is [max(min, -t),
// min(max, t)], so a one-sided value (a ReLU output) is clipped on its own side only.
#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/quant/calibration_statistics.h"

namespace npu::compiler {
namespace {

constexpr int kAbsBins = ValueHistogram::kBins / 2;

struct Span {
  double lo, hi;
};

// The range threshold t gives, with zero inside it (activation_params includes 0 anyway).
Span clip_at(const ValueHistogram& h, double t) {
  return {std::min(0.0, std::max<double>(h.min(), -t)), std::max(0.0, std::min<double>(h.max(), t))};
}

// Magnitude histogram: abs bin j covers |x| in [j*w, (j+1)*w).
std::vector<double> magnitudes(const ValueHistogram& h) {
  const auto& c = h.counts();
  std::vector<double> a(kAbsBins);
  for (int j = 0; j < kAbsBins; ++j) a[j] = static_cast<double>(c[kAbsBins + j] + c[kAbsBins - 1 - j]);
  return a;
}

int last_nonzero(const std::vector<double>& a) {
  for (int j = static_cast<int>(a.size()); j-- > 0;)
    if (a[j] > 0) return j;
  return -1;
}

Span percentile_range(const ValueHistogram& h, double percentile) {
  const auto& c = h.counts();
  const double w = h.bin_width(), r = h.range();
  const double tail = static_cast<double>(h.total()) * std::max(0.0, 100.0 - percentile) / 100.0;
  double lo = h.min(), hi = h.max();
  double cum = 0;
  for (int i = 0; i < ValueHistogram::kBins; ++i) {
    if (cum + static_cast<double>(c[i]) > tail) {
      lo = std::max(lo, -r + w * (i + (tail - cum) / static_cast<double>(c[i])));
      break;
    }
    cum += static_cast<double>(c[i]);
  }
  cum = 0;
  for (int i = ValueHistogram::kBins; i-- > 0;) {
    if (cum + static_cast<double>(c[i]) > tail) {
      hi = std::min(hi, -r + w * (i + 1 - (tail - cum) / static_cast<double>(c[i])));
      break;
    }
    cum += static_cast<double>(c[i]);
  }
  if (lo > hi) lo = hi = 0.5 * (lo + hi);
  return {lo, hi};
}

// Expected squared error of quantising the histogram to [a, b]: rounding (step^2 / 12) for
// the values inside, the distance to the bound for those clipped (bin centres), summed with
// prefix sums so each threshold costs O(1).
Span mse_range(const ValueHistogram& h, bool symmetric) {
  const auto& c = h.counts();
  const int n = ValueHistogram::kBins;
  const double w = h.bin_width(), r = h.range();
  std::vector<double> s0(n + 1, 0), s1(n + 1, 0), s2(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    const double x = -r + (i + 0.5) * w, k = static_cast<double>(c[i]);
    s0[i + 1] = s0[i] + k;
    s1[i + 1] = s1[i] + k * x;
    s2[i + 1] = s2[i] + k * x * x;
  }
  // First bin whose centre is >= x.
  auto first_at_or_above = [&](double x) { return std::clamp<long>(static_cast<long>(std::ceil((x + r) / w - 0.5)), 0, n); };
  auto error = [&](Span s) {
    double a = s.lo, b = s.hi, step;
    if (symmetric) {
      b = std::max(-a, b);
      a = -b;
      step = b / 127.0;
    } else {
      step = (b - a) / 255.0;
    }
    const long ia = first_at_or_above(a), ib = first_at_or_above(b);  // below: [0, ia), above: [ib', n)
    long above = ib;
    while (above < n && -r + (above + 0.5) * w <= b) ++above;
    const double below_err = s2[ia] - 2 * a * s1[ia] + a * a * s0[ia];
    const double above_err = (s2[n] - s2[above]) - 2 * b * (s1[n] - s1[above]) + b * b * (s0[n] - s0[above]);
    const double inside = s0[above] - s0[ia];
    return below_err + above_err + inside * step * step / 12.0;
  };
  const int top = last_nonzero(magnitudes(h));
  Span best = {h.min(), h.max()};
  double best_err = error(best);
  for (int j = 0; j <= top; ++j) {
    const Span s = clip_at(h, (j + 1) * w);
    const double e = error(s);
    if (e < best_err) {
      best_err = e;
      best = s;
    }
  }
  return best;
}

// KL(P || Q) of the magnitudes clipped to the first `kept` bins (the rest added to the last)
// against their quantisation to `levels` bins, each spread back over its non-empty bins.
double clipped_divergence(const std::vector<double>& a, int kept, int levels, double total) {
  double outliers = 0;
  for (int j = kept; j < kAbsBins; ++j) outliers += a[j];
  const double q_total = total - outliers;
  if (q_total <= 0) return std::numeric_limits<double>::infinity();
  double kl = 0;
  for (int k = 0; k < levels; ++k) {
    const long start = static_cast<long>(k) * kept / levels, end = static_cast<long>(k + 1) * kept / levels;
    double sum = 0;
    int nonzero = 0;
    for (long j = start; j < end; ++j)
      if (a[j] > 0) {
        sum += a[j];
        ++nonzero;
      }
    for (long j = start; j < end; ++j) {
      const double p = a[j] + (j == kept - 1 ? outliers : 0.0);
      if (p <= 0) continue;
      const double q = a[j] > 0 ? sum / nonzero : 0.0;
      const double pn = p / total, qn = std::max(q / q_total, 1e-12);
      kl += pn * std::log(pn / qn);
    }
  }
  return kl;
}

Span entropy_range(const ValueHistogram& h, bool symmetric) {
  std::vector<double> a = magnitudes(h);
  // The zero bin of a ReLU output holds half the values; smeared over its quantised bin's
  // neighbours it would dominate the divergence and favour the narrowest range. As NVIDIA's
  // pytorch-quantization does, it counts as its neighbour.
  if (a.size() > 1) a[0] = a[1];
  const int top = last_nonzero(a);
  // Levels on the magnitude side: 128 as TensorRT for a symmetric range, else the positive
  // side's share of the 255 steps (255 for a non-negative value).
  int levels = 128;
  if (!symmetric && h.max() > 0) {
    const double share = h.max() / (h.max() - std::min(0.0f, h.min()));
    levels = std::clamp(static_cast<int>(std::lround(255 * share)), 128, 255);
  }
  if (top + 1 <= levels) return {h.min(), h.max()};
  double total = 0;
  for (double v : a) total += v;
  // Coarse pass every 8 bins, then every bin around the best.
  int best = top + 1;
  double best_kl = clipped_divergence(a, best, levels, total);
  for (int kept = levels; kept <= top + 1; kept += 8) {
    const double kl = clipped_divergence(a, kept, levels, total);
    if (kl < best_kl) best_kl = kl, best = kept;
  }
  const int center = best;
  for (int kept = std::max(levels, center - 8); kept <= std::min(top + 1, center + 8); ++kept) {
    const double kl = clipped_divergence(a, kept, levels, total);
    if (kl < best_kl) best_kl = kl, best = kept;
  }
  return clip_at(h, best * h.bin_width());
}

}  // namespace

std::pair<float, float> clipping_range(const ValueHistogram& h, CalibrationMethod method, double percentile,
                                       bool symmetric) {
  if (method == CalibrationMethod::MinMax || h.counts().empty() || h.range() == 0.0 || !std::isfinite(h.min()) ||
      !std::isfinite(h.max()))
    return {h.min(), h.max()};
  Span s{h.min(), h.max()};
  switch (method) {
    case CalibrationMethod::Percentile: s = percentile_range(h, percentile); break;
    case CalibrationMethod::Entropy: s = entropy_range(h, symmetric); break;
    case CalibrationMethod::Mse: s = mse_range(h, symmetric); break;
    case CalibrationMethod::MinMax: break;
  }
  return {static_cast<float>(s.lo), static_cast<float>(s.hi)};
}

}  // namespace npu::compiler
