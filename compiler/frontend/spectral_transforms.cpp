// ONNX's STFT and DFT of a real signal (the audio front ends of speech models: a log-mel
// spectrogram before the encoder) as the linear maps they are:
//   STFT(signal [B, L] or [B, L, 1], frame_step s, window w [N] and/or frame_length N)
//     -> Reshape [B, 1, L] -> Conv1d(2*bins filters of N taps, stride s) -> [B, 2*bins, frames]
//     -> Reshape [B, bins, 2, frames] -> Transpose -> [B, frames, bins, 2]
//   filter 2k = w[n] cos(2 pi k n / N), filter 2k+1 = -w[n] sin(2 pi k n / N): real and
//   imaginary part of bin k, interleaved as the output's last axis wants them;
//   DFT(x [..., N, 1] along axis -2, dft_length L)
//     -> Squeeze -> MatMul by the [N, 2*bins] matrix of the same terms -> Reshape [..., bins, 2]
//   (samples past L dropped, a signal shorter than L zero-padded: rows of zeros or none).
// bins = N/2 + 1 one-sided, N otherwise. The conv then takes the NPU's Conv1d lowering (a window
// past the kernel field over stride-sized blocks); the MatMul is a gemm by constant weights.
// Left as they are (the CPU runs them): complex input, inverse transforms, a DFT over another
// axis, and a frame step, window or length not known at compile time.
#include <cmath>

#include "compiler/frontend/passes.h"

namespace npu::compiler {
namespace {

constexpr double kPi = 3.14159265358979323846;

bool constant_int(const Graph& g, const Node& n, std::size_t i, std::int64_t& v) {
  if (i >= n.inputs.size() || n.inputs[i].empty() || !g.is_constant(n.inputs[i])) return false;
  const Tensor& t = g.tensor(n.inputs[i]);
  if (t.elements() != 1 || t.ints.size() != 1) return false;
  v = t.ints[0];
  return true;
}

bool absent(const Node& n, std::size_t i) { return i >= n.inputs.size() || n.inputs[i].empty(); }

// Coefficient (n, 2k + part) of the transform of size `length`: cos for part 0, -sin for part 1.
double term(std::int64_t n, std::int64_t k, int part, std::int64_t length) {
  const double angle = 2.0 * kPi * static_cast<double>((k * n) % length) / static_cast<double>(length);
  return part == 0 ? std::cos(angle) : -std::sin(angle);
}

class SpectralRewrite {
 public:
  explicit SpectralRewrite(Graph& g) : g_(g) {}

  std::string run() {
    std::vector<Node> out;
    for (auto& n : g_.nodes) {
      if (n.domain.empty() && n.op_type == "STFT" && stft(n, out)) continue;
      if (n.domain.empty() && n.op_type == "DFT" && dft(n, out)) continue;
      out.push_back(std::move(n));
    }
    g_.nodes = std::move(out);
    return std::to_string(stfts_) + " STFT as a Conv1d, " + std::to_string(dfts_) + " DFT as a MatMul";
  }

 private:
  std::string ints(const std::string& base, std::vector<std::int64_t> v) { return g_.add_int_vector(base, std::move(v)); }
  Node node(const std::string& op, const Node& from, const std::string& suffix, std::vector<std::string> in,
            std::vector<std::string> outs) {
    return g_.derived_node(op, from, suffix, std::move(in), std::move(outs));
  }

  bool stft(const Node& n, std::vector<Node>& out) {
    if (n.inputs.empty() || n.outputs.empty()) return false;
    const Tensor& x = g_.tensor(n.inputs[0]);
    if (x.elem_type != kFloat || (x.shape_known && !(x.shape.size() == 2 || (x.shape.size() == 3 && x.shape[2] == 1))))
      return false;
    std::int64_t step = 0, length = 0;
    if (!constant_int(g_, n, 1, step) || step < 1) return false;
    std::vector<float> window;
    if (!absent(n, 2)) {
      if (!g_.is_constant(n.inputs[2])) return false;
      const Tensor& w = g_.tensor(n.inputs[2]);
      if (w.shape.size() != 1 || w.floats.size() != static_cast<std::size_t>(w.elements())) return false;
      window = w.floats;
    }
    if (!absent(n, 3) && !constant_int(g_, n, 3, length)) return false;
    if (length == 0) length = static_cast<std::int64_t>(window.size());
    if (length < 1 || (!window.empty() && static_cast<std::int64_t>(window.size()) != length)) return false;
    if (x.shape_known && x.shape[1] < length)
      throw CompileError(g_.source + ": node '" + n.name + "' (STFT): the frame length (" + std::to_string(length) +
                         ") is longer than the signal (" + std::to_string(x.shape[1]) + " samples)");
    if (window.empty()) window.assign(static_cast<std::size_t>(length), 1.0f);
    const std::int64_t bins = n.get_int("onesided", 1) ? length / 2 + 1 : length;
    std::vector<float> filters(static_cast<std::size_t>(2 * bins * length));
    for (std::int64_t k = 0; k < bins; ++k)
      for (int part = 0; part < 2; ++part)
        for (std::int64_t t = 0; t < length; ++t)
          filters[static_cast<std::size_t>((2 * k + part) * length + t)] =
              static_cast<float>(window[static_cast<std::size_t>(t)] * term(t, k, part, length));
    const std::string weights = g_.unique_name(n.name + "_dft_filters");
    g_.add_constant(weights, {2 * bins, 1, length}, std::move(filters));
    const std::string signal = g_.add_value(n.name + "_signal", kFloat);
    out.push_back(node("Reshape", n, "_signal", {n.inputs[0], ints(n.name + "_signal_shape", {0, 1, -1})}, {signal}));
    const std::string spectra = g_.add_value(n.name + "_filtered", kFloat);
    Node conv = node("Conv", n, "_filters", {signal, weights}, {spectra});
    conv.set_ints("kernel_shape", {length});
    conv.set_ints("strides", {step});
    conv.set_ints("pads", {0, 0});
    out.push_back(conv);
    const std::string parts = g_.add_value(n.name + "_parts", kFloat);
    out.push_back(node("Reshape", n, "_parts", {spectra, ints(n.name + "_parts_shape", {0, bins, 2, -1})}, {parts}));
    Node frames_first = node("Transpose", n, "_frames_first", {parts}, {n.outputs[0]});
    frames_first.set_ints("perm", {0, 3, 1, 2});
    out.push_back(frames_first);
    ++stfts_;
    return true;
  }

  bool dft(const Node& n, std::vector<Node>& out) {
    if (n.inputs.empty() || n.outputs.empty() || n.get_int("inverse", 0) != 0) return false;
    const Tensor& x = g_.tensor(n.inputs[0]);
    if (x.elem_type != kFloat || !x.shape_known || x.shape.size() < 3 || x.shape.back() != 1) return false;
    const auto rank = static_cast<std::int64_t>(x.shape.size());
    std::int64_t axis = n.get_int("axis", 1);
    if (g_.opset >= 20) {  // the axis became input 2 (default -2)
      axis = -2;
      if (!absent(n, 2) && !constant_int(g_, n, 2, axis)) return false;
    }
    if (axis < 0) axis += rank;
    if (axis != rank - 2) return false;
    const std::int64_t samples = x.shape[static_cast<std::size_t>(axis)];
    std::int64_t length = samples;
    if (!absent(n, 1) && !constant_int(g_, n, 1, length)) return false;
    if (length < 1) return false;
    const std::int64_t bins = n.get_int("onesided", 0) ? length / 2 + 1 : length;
    std::vector<float> matrix(static_cast<std::size_t>(samples * 2 * bins), 0.0f);
    for (std::int64_t t = 0; t < std::min(samples, length); ++t)
      for (std::int64_t k = 0; k < bins; ++k)
        for (int part = 0; part < 2; ++part)
          matrix[static_cast<std::size_t>(t * 2 * bins + 2 * k + part)] = static_cast<float>(term(t, k, part, length));
    const std::string weights = g_.unique_name(n.name + "_dft_matrix");
    g_.add_constant(weights, {samples, 2 * bins}, std::move(matrix));
    const std::string real = g_.add_value(n.name + "_real", kFloat);
    out.push_back(node("Squeeze", n, "_real", {n.inputs[0], ints(n.name + "_complex_axis", {rank - 1})}, {real}));
    const std::string product = g_.add_value(n.name + "_product", kFloat);
    out.push_back(node("MatMul", n, "_terms", {real, weights}, {product}));
    std::vector<std::int64_t> shape(static_cast<std::size_t>(rank - 2), 0);
    shape.push_back(bins);
    shape.push_back(2);
    out.push_back(node("Reshape", n, "_parts", {product, ints(n.name + "_parts_shape", shape)}, {n.outputs[0]}));
    ++dfts_;
    return true;
  }

  Graph& g_;
  int stfts_ = 0, dfts_ = 0;
};

}  // namespace

bool has_spectral_transforms(const Graph& g) {
  for (const auto& n : g.nodes)
    if (n.domain.empty() && (n.op_type == "STFT" || n.op_type == "DFT")) return true;
  return false;
}

std::string spectral_transforms_as_products(Graph& g) { return SpectralRewrite(g).run(); }

}  // namespace npu::compiler
