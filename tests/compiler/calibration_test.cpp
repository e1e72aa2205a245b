// Calibration methods against histograms whose answer is known by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "compiler/compile.h"
#include "compiler/core/quant_options.h"
#include "compiler/quant/calibration_statistics.h"
#include "compiler/quant/quant_math.h"
#include "compiler/quant/quantize.h"

using namespace npu::compiler;

namespace {

ValueHistogram histogram_of(const std::vector<float>& v) {
  ValueHistogram h = ValueHistogram::with_bins();
  h.add(v.data(), v.size());
  return h;
}

std::vector<float> uniform(std::size_t n, float lo, float hi) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(n);
  return v;
}

}  // namespace

TEST_CASE("calibration: the histogram spans a power of two and merges exactly in any order", "[calibration]") {
  ValueHistogram h = histogram_of({-1.0f, 0.5f, 3.0f});
  CHECK(h.range() == 4.0);  // the smallest 2^e covering 3
  CHECK(h.min() == -1.0f);
  CHECK(h.max() == 3.0f);
  CHECK(h.total() == 3);
  // -1 lands in bin (−1 + 4) / 8 * 4096 = 1536.
  CHECK(h.counts()[1536] == 1);

  const auto a = uniform(1000, -1.0f, 1.0f), b = uniform(700, -5.0f, 2.0f);
  ValueHistogram ab = histogram_of(a), ba = histogram_of(b);
  ab.merge(histogram_of(b));
  ba.merge(histogram_of(a));
  std::vector<float> both = a;
  both.insert(both.end(), b.begin(), b.end());
  const ValueHistogram once = histogram_of(both);
  CHECK(ab.counts() == ba.counts());
  CHECK(ab.counts() == once.counts());
  CHECK(ab.range() == 8.0);
  CHECK(ab.min() == -5.0f);
  CHECK(ab.total() == 1700);
}

TEST_CASE("calibration: minmax and percentile 100 keep every value", "[calibration]") {
  const ValueHistogram h = histogram_of({-2.0f, 0.25f, 7.5f});
  CHECK(clipping_range(h, CalibrationMethod::MinMax, 99.99, false) == std::pair<float, float>(-2.0f, 7.5f));
  const auto p = clipping_range(h, CalibrationMethod::Percentile, 100.0, false);
  CHECK(p.first == -2.0f);
  CHECK(p.second == 7.5f);
}

TEST_CASE("calibration: percentile clips each tail at its share of the values", "[calibration]") {
  // 10000 values k / 1000, k = 0..9999: 1 % per tail is 100 values, so [0.1, 9.9].
  const ValueHistogram h = histogram_of(uniform(10000, 0.0f, 10.0f));
  const double w = h.bin_width();  // 16 / 4096
  const auto r = clipping_range(h, CalibrationMethod::Percentile, 99.0, false);
  CHECK(std::fabs(r.first - 0.1) <= w);
  CHECK(std::fabs(r.second - 9.9) <= w);
}

TEST_CASE("calibration: mse picks the threshold minimising clipping plus rounding error", "[calibration]") {
  // N values in [0, 1) and one outlier at c: for a threshold t in [1, c) the error is
  // (c - t)^2 + N (t / 255)^2 / 12, smallest at t = c / (1 + N / (12 * 255^2)).
  const std::size_t n = 1000000;
  std::vector<float> v = uniform(n, 0.0f, 1.0f);
  v.push_back(100.0f);
  const ValueHistogram h = histogram_of(v);
  const double w = h.bin_width();
  const double c = std::floor((100.0 + h.range()) / w) * w - h.range() + w / 2;  // the outlier's bin centre
  const double expected = c / (1.0 + static_cast<double>(n) / (12.0 * 255.0 * 255.0));
  const auto r = clipping_range(h, CalibrationMethod::Mse, 99.99, false);
  CHECK(r.first == Approx(0.0).margin(1e-6));
  CHECK(std::fabs(r.second - expected) <= 2 * w);
  CHECK(expected == Approx(43.8).margin(0.1));
  // Symmetric: the step is t / 127 over [-t, t], so t = c / (1 + N / (12 * 127^2)).
  const double sym = c / (1.0 + static_cast<double>(n) / (12.0 * 127.0 * 127.0));
  CHECK(std::fabs(clipping_range(h, CalibrationMethod::Mse, 99.99, true).second - sym) <= 2 * w);
}

TEST_CASE("calibration: entropy clips a far, thin tail and keeps a ReLU output's range", "[calibration]") {
  // 100000 N(0, 1) values and ten at +-12: 128 levels over [-12, 12] would leave the bulk
  // (99.7 % within +-3) a quarter of them; the KL threshold lands in the bulk's tail instead.
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(100000);
  for (auto& x : v) x = normal(rng);
  for (int i = 0; i < 5; ++i) v.push_back(12.0f), v.push_back(-12.0f);
  const ValueHistogram h = histogram_of(v);
  const auto r = clipping_range(h, CalibrationMethod::Entropy, 99.99, true);
  CHECK(r.second >= 2.5f);
  CHECK(r.second <= 6.0f);
  CHECK(r.first == Approx(-r.second));

  // Half zeros, half uniform in [0, 4): the zero spike must not pull the threshold in.
  std::vector<float> relu(50000, 0.0f);
  const auto pos = uniform(50000, 0.0f, 4.0f);
  relu.insert(relu.end(), pos.begin(), pos.end());
  const auto k = clipping_range(histogram_of(relu), CalibrationMethod::Entropy, 99.99, false);
  CHECK(k.first == 0.0f);
  CHECK(k.second >= 3.9f);
}

TEST_CASE("calibration: options parse with one line naming a bad value", "[calibration]") {
  CHECK(parse_calibration_method("entropy") == CalibrationMethod::Entropy);
  CHECK_THROWS_WITH(parse_calibration_method("kl"), Catch::Contains("--calib-method 'kl'"));
  CHECK(parse_accuracy_target("cosine=0.99").value == 0.99);
  CHECK(parse_accuracy_target("sqnr=30").metric == AccuracyTarget::Metric::SqnrDb);
  CHECK_THROWS_WITH(parse_accuracy_target("cosine=2"), Catch::Contains("--accuracy-target 'cosine=2'"));
  CHECK_THROWS_WITH(parse_accuracy_target("top1=0.9"), Catch::Contains("--accuracy-target"));
}

TEST_CASE("weights already on an int8 grid keep their integers: 8-bit, and 7-bit reduce_range per channel", "[quantize]") {
  using npu::compiler::quantize_weights;
  // Two output channels of four weights (conv layout [oc][inner]) on grids 0.01 x [-64, 63]
  // (ONNX Runtime's reduce_range: max |q| 64) and 0.5 x [-63, 63].
  const std::vector<int> ints = {-64, 3, 63, -5, 63, -63, 1, 0};
  const float steps[2] = {0.01f, 0.5f};
  std::vector<float> w;
  for (std::size_t i = 0; i < ints.size(); ++i) w.push_back(steps[i / 4] * static_cast<float>(ints[i]));
  const auto q = quantize_weights(w, 2, 4);
  for (std::size_t i = 0; i < ints.size(); ++i) CHECK(q.values[i] == ints[i]);
  CHECK(q.channel_scales[0] == Approx(0.01f));
  CHECK(q.channel_scales[1] == Approx(0.5f));
  // Float weights off every grid get max / 127 per channel.
  const auto f = quantize_weights({0.3f, -1.27f, 0.011f, 0.77f, 2.54f, 0.1f, -0.003f, 1.3f}, 2, 4);
  CHECK(f.channel_scales[0] == Approx(0.01f));
  CHECK(f.channel_scales[1] == Approx(0.02f));
  CHECK(f.values[1] == -127);
}

TEST_CASE("int8 add of an operand whose scale dwarfs the output's saturates, not overflows", "[calibration][int8]") {
  // Attention scores (scale 0.02) plus a mask of 0 or float32's lowest (scale 1.3e36, 0 at code
  // 127): the mask's multiplier is beyond every field, clamped; 0 adds nothing, the fill
  // saturates the sum.
  const double mask_scale = 3.4028235e38 / 255.0, scores_scale = 0.02;
  const QBinaryParams q = make_qbinary(0, false, scores_scale, 0, mask_scale, 127, scores_scale, 0);
  CHECK(q.b_multiplier == kQBinaryMultiplierMax);
  CHECK(quantized_binary(50, 127, q) == 50);     // unmasked: the score itself
  CHECK(quantized_binary(50, -128, q) == -128);  // masked: the lowest code
  const QaddParams a = make_qadd(scores_scale, 0, mask_scale, 127, scores_scale, 0);
  CHECK(a.b_multiplier == std::numeric_limits<std::int32_t>::max());
  CHECK(quantized_add(50, 127, a) == 50);
  CHECK(quantized_add(50, -128, a) == -128);
  // The sum on a coarser grid than the scores' (0.078, the scores' range widened to 20 below its
  // top): the scores keep their multiplier (0.3), the fill still saturates.
  const QaddParams c = make_qadd(scores_scale, 0, mask_scale, 127, 0.078, 0);
  CHECK(quantized_add(50, 127, c) == 13);
  CHECK(quantized_add(-50, 127, c) == -13);
  CHECK(quantized_add(50, -128, c) == -128);
  const QBinaryParams d = make_qbinary(0, false, scores_scale, 0, mask_scale, 127, 0.078, 0);
  CHECK(quantized_binary(50, 127, d) == 13);
  CHECK(quantized_binary(50, -128, d) == -128);
}
