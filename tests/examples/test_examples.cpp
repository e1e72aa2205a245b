// The hand-written programs in examples/ compute what a plain C++ reference computes,
// bit-exactly, and take the same cycles with and without --timing-only.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "hwconfig/hardware_config.h"
#include "isa/assembler.h"
#include "isa/fp16.h"
#include "runtime/program_io.h"
#include "sim/simulator.h"

using namespace npu;

namespace {

isa::Program load_example(const std::string& name) {
  const std::string path = std::string(NPUSIM_SOURCE_DIR) + "/examples/" + name;
  std::ifstream in(path);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return isa::assemble(text.str(), path);
}

HardwareConfig config(const std::string& name) {
  return load_hardware_config(std::string(NPUSIM_SOURCE_DIR) + "/configs/" + name);
}

const isa::TensorEntry& tensor(const isa::Program& p, const std::string& name) {
  for (const auto& t : p.tensors)
    if (t.name == name) return t;
  FAIL("no tensor " << name);
  throw;
}

template <typename T>
std::vector<T> read(const sim::DdrImage& ddr, const isa::TensorEntry& t) {
  std::vector<T> v(t.size_bytes / sizeof(T));
  ddr.read(t.ddr_addr, v.data(), t.size_bytes);
  return v;
}

struct Run {
  sim::SimResult result;
  sim::DdrImage ddr;
};

Run run(const isa::Program& program, const HardwareConfig& cfg, bool timing_only, std::uint64_t seed) {
  Run r;
  r.ddr.place(program);
  runtime::place_inputs(program, {}, seed, r.ddr);
  sim::SimOptions options;
  options.timing_only = timing_only;
  r.result = sim::simulate(program, cfg, r.ddr, options);
  return r;
}

}  // namespace

TEST_CASE("double-buffered INT8 GEMM equals the C++ reference bit-exactly") {
  const auto program = load_example("gemm_int8_double_buffered.npuasm");
  for (const char* cfg_name : {"default.yaml", "tiny-8x8.yaml", "seed-5.7tops.yaml"}) {
    INFO(cfg_name);
    auto r = run(program, config(cfg_name), false, 7);
    const auto a = read<std::int8_t>(r.ddr, tensor(program, "A"));
    const auto b = read<std::int8_t>(r.ddr, tensor(program, "B"));
    const auto c = read<std::int32_t>(r.ddr, tensor(program, "C"));
    std::vector<std::int32_t> expected(128 * 64, 0);
    for (int i = 0; i < 128; ++i)
      for (int j = 0; j < 64; ++j)
        for (int k = 0; k < 64; ++k) expected[i * 64 + j] += std::int32_t(a[i * 64 + k]) * b[k * 64 + j];
    CHECK(c == expected);
    CHECK(r.result.macs == 128ull * 64 * 64);
  }
}

TEST_CASE("double buffering overlaps loads with compute") {
  const auto program = load_example("gemm_int8_double_buffered.npuasm");
  const auto r = run(program, config("tiny-8x8.yaml"), true, 1).result;
  const auto sum = r.load.busy_cycles + r.compute.busy_cycles + r.store.busy_cycles;
  CHECK(r.cycles < sum);
  CHECK(r.cycles >= std::max({r.load.busy_cycles, r.compute.busy_cycles, r.store.busy_cycles}));
}

TEST_CASE("conv tile + bias + ReLU + requantise equals the C++ reference bit-exactly") {
  const auto program = load_example("conv_bias_relu_requant.npuasm");
  auto r = run(program, config("default.yaml"), false, 11);
  const auto in = read<std::int8_t>(r.ddr, tensor(program, "input"));
  const auto w = read<std::int8_t>(r.ddr, tensor(program, "weights"));
  const auto bias = read<std::int32_t>(r.ddr, tensor(program, "bias"));
  const auto rq = read<std::int32_t>(r.ddr, tensor(program, "requant_params"));
  const auto out = read<std::int8_t>(r.ddr, tensor(program, "output"));
  const int H = 16, W = 16, C = 16, K = 32, zero_point = -5;
  std::vector<std::int8_t> expected(H * W * K);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int k = 0; k < K; ++k) {
        std::int64_t acc = 0;
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx) {
            const int iy = y + ky - 1, ix = x + kx - 1;
            for (int c = 0; c < C; ++c) {
              const int v = (iy < 0 || iy >= H || ix < 0 || ix >= W) ? 0 : in[(iy * W + ix) * C + c];
              acc += v * w[((ky * 3 + kx) * C + c) * K + k];
            }
          }
        acc += bias[k];
        const std::int64_t mult = rq[2 * k], shift = rq[2 * k + 1];
        std::int64_t q = (acc * mult + (std::int64_t{1} << (shift - 1))) >> shift;
        q = std::clamp<std::int64_t>(q + zero_point, zero_point, 127);
        expected[(y * W + x) * K + k] = static_cast<std::int8_t>(q);
      }
  CHECK(out == expected);
  // The reference is not trivially saturated: both clamp ends and the middle occur.
  CHECK(std::count(out.begin(), out.end(), zero_point) > 0);
  CHECK(std::count_if(out.begin(), out.end(), [](int v) { return v > 0 && v < 127; }) > 1000);
}

TEST_CASE("fp16 attention head (layernorm, gemm with B transposed, softmax, gelu) equals a double reference") {
  const auto program = load_example("attention_fp16.npuasm");
  auto r = run(program, config("default.yaml"), false, 5);
  const auto x = read<std::uint16_t>(r.ddr, tensor(program, "X"));
  const auto params = read<float>(r.ddr, tensor(program, "params"));
  const auto y = read<float>(r.ddr, tensor(program, "Y"));
  const int S = 16, D = 32;
  // The reference rounds to fp16 where the program stores fp16 (Xn and P), in double elsewhere.
  auto fp16 = [](double v) { return static_cast<double>(isa::half_to_float(isa::float_to_half(static_cast<float>(v)))); };
  std::vector<double> xn(S * D), p(S * S);
  for (int i = 0; i < S; ++i) {
    double mean = 0, var = 0;
    for (int c = 0; c < D; ++c) mean += isa::half_to_float(x[i * D + c]) / D;
    for (int c = 0; c < D; ++c) var += std::pow(isa::half_to_float(x[i * D + c]) - mean, 2) / D;
    for (int c = 0; c < D; ++c)
      xn[i * D + c] = fp16((isa::half_to_float(x[i * D + c]) - mean) / std::sqrt(var + 1e-5) * params[c] + params[D + c]);
  }
  for (int i = 0; i < S; ++i) {
    std::vector<double> s(S);
    double m = -1e300, sum = 0;
    for (int j = 0; j < S; ++j) {
      for (int c = 0; c < D; ++c) s[j] += xn[i * D + c] * xn[j * D + c];
      s[j] /= std::sqrt(32.0);
      m = std::max(m, s[j]);
    }
    for (int j = 0; j < S; ++j) sum += std::exp(s[j] - m);
    for (int j = 0; j < S; ++j) p[i * S + j] = fp16(std::exp(s[j] - m) / sum);
  }
  for (int i = 0; i < S; ++i)
    for (int c = 0; c < D; ++c) {
      double o = 0;
      for (int j = 0; j < S; ++j) o += p[i * S + j] * xn[j * D + c];
      const double want = 0.5 * o * std::erfc(-o / std::sqrt(2.0));
      CAPTURE(i, c);
      CHECK(y[i * D + c] == Approx(want).epsilon(2e-3).margin(2e-3));
    }
  // Not trivially zero: the rows are normalised, so outputs of both signs occur.
  CHECK(std::count_if(y.begin(), y.end(), [](float v) { return v < -0.01f; }) > 10);
  CHECK(std::count_if(y.begin(), y.end(), [](float v) { return v > 0.5f; }) > 10);
}

TEST_CASE("timing-only runs of the examples give identical cycles") {
  for (const char* name : {"gemm_int8_double_buffered.npuasm", "conv_bias_relu_requant.npuasm", "attention_fp16.npuasm"}) {
    const auto program = load_example(name);
    for (const char* cfg_name : {"default.yaml", "tiny-8x8.yaml", "ideal-32x32-ws.yaml"}) {
      INFO(name << " on " << cfg_name);
      const auto functional = run(program, config(cfg_name), false, 3).result;
      const auto timing = run(program, config(cfg_name), true, 3).result;
      CHECK(functional.cycles == timing.cycles);
      CHECK(functional.load.busy_cycles == timing.load.busy_cycles);
      CHECK(functional.compute.busy_cycles == timing.compute.busy_cycles);
      CHECK(functional.ddr_bytes_read == timing.ddr_bytes_read);
    }
  }
}
