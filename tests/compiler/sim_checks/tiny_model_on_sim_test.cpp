// The tiny model compiled for INT8 and FP16 runs on the SystemC model; its output agrees with
// the FP32 evaluator (cosine similarity), which checks codegen, tiling and tokens.
#include <catch2/catch.hpp>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "compiler/frontend/onnx_io.h"
#include "compiler/quant/quant_math.h"
#include "compiler/reference/float_evaluator.h"
#include "container/compiled_model.h"
#include "isa/fp16.h"
#include "sim/simulator.h"
#include "tests/compiler/sim_checks/sim_check_helpers.h"
#include "tests/compiler/test_graphs.h"

using namespace npu;
using namespace npu::compiler;
using namespace npu::compiler::sim_checks;

namespace {

// Host NCHW float -> DDR bytes in the entry's layout and dtype.
void write_input(sim::DdrImage& ddr, const isa::TensorEntry& e, const FloatTensor& x) {
  std::int64_t C = x.shape[1], H = x.shape[2], W = x.shape[3];
  std::vector<std::uint8_t> bytes;
  for (std::int64_t h = 0; h < H; ++h)
    for (std::int64_t w = 0; w < W; ++w)
      for (std::int64_t c = 0; c < C; ++c) {
        float v = x.data[(c * H + h) * W + w];
        if (e.dtype == isa::DType::Int8) {
          bytes.push_back(static_cast<std::uint8_t>(quantize_value(v, e.scale, e.zero_point)));
        } else {
          std::uint16_t b = isa::float_to_half(v);
          bytes.push_back(static_cast<std::uint8_t>(b & 0xff));
          bytes.push_back(static_cast<std::uint8_t>(b >> 8));
        }
      }
  ddr.write(e.ddr_addr, bytes.data(), bytes.size());
}

std::vector<float> read_output(const sim::DdrImage& ddr, const isa::TensorEntry& e) {
  std::vector<std::uint8_t> bytes(e.size_bytes);
  ddr.read(e.ddr_addr, bytes.data(), bytes.size());
  std::vector<float> out;
  if (e.dtype == isa::DType::Int8) {
    for (auto b : bytes) out.push_back(dequantize_value(static_cast<std::int8_t>(b), e.scale, e.zero_point));
  } else {
    for (std::size_t i = 0; i + 1 < bytes.size(); i += 2)
      out.push_back(isa::half_to_float(static_cast<std::uint16_t>(bytes[i] | (bytes[i + 1] << 8))));
  }
  return out;
}

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ab += static_cast<double>(a[i]) * b[i];
    aa += static_cast<double>(a[i]) * a[i];
    bb += static_cast<double>(b[i]) * b[i];
  }
  return ab / std::sqrt(aa * bb + 1e-30);
}

}  // namespace

TEST_CASE("the tiny model runs on the simulated NPU, INT8 and FP16", "[compiler][sim]") {
  const std::string model = std::string(NPUSIM_SOURCE_DIR) + "/models/tiny_convnet.onnx";
  HardwareConfig config = load_hardware_config(std::string(NPUSIM_SOURCE_DIR) + "/configs/default.yaml");
  Graph g = import_onnx(model);
  FloatTensor x = testing::random_tensor({1, 3, 32, 32}, 99);
  auto expected = evaluate_graph(g, {{"input", x}}).at(g.outputs[0]).data;
  for (Precision p : {Precision::Fp16, Precision::Int8}) {
    INFO((p == Precision::Int8 ? "int8" : "fp16"));
    CompileOptions o;
    o.precision = p;
    CompiledModel m = compile(model, config, o);
    sim::DdrImage ddr;
    ddr.place(m.program);
    write_input(ddr, entry(m.program, "input"), x);
    sim::SimResult r = sim::simulate(m.program, config, ddr);
    CHECK(r.cycles > 0);
    auto got = read_output(ddr, entry(m.program, m.model_outputs[0]));
    REQUIRE(got.size() == expected.size());
    double cs = cosine(got, expected);
    CHECK(cs >= (p == Precision::Int8 ? 0.99 : 0.999));
  }
}

// Hidden (run with "[.models]"): the generated models from `scripts/make_models.py --out DIR`
// with NPUSIM_MODELS_DIR=DIR compile and run; prints cosine similarity to the reference.
TEST_CASE("generated models run on the simulated NPU", "[.models]") {
  const char* dir = std::getenv("NPUSIM_MODELS_DIR");
  if (!dir) return;
  HardwareConfig config = load_hardware_config(std::string(NPUSIM_SOURCE_DIR) + "/configs/default.yaml");
  for (const char* name : {"resnet18", "mobilenetv2", "yolo_style", "resnet50"}) {
    std::string path = std::string(dir) + "/" + name + ".onnx";
    Graph g = import_onnx(path);
    FloatTensor x = testing::random_tensor(g.tensor(g.inputs[0]).shape, 7);
    auto values = evaluate_graph(g, {{g.inputs[0], x}});
    for (Precision p : {Precision::Fp16, Precision::Int8}) {
      CompileOptions o;
      o.precision = p;
      auto t0 = std::chrono::steady_clock::now();
      CompiledModel m = compile(path, config, o);
      double compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      sim::DdrImage ddr;
      ddr.place(m.program);
      write_input(ddr, entry(m.program, g.inputs[0]), x);
      sim::SimResult r = sim::simulate(m.program, config, ddr);
      double worst = 1;
      for (const auto& out : m.model_outputs) {
        auto got = read_output(ddr, entry(m.program, out));
        // outputs are NHWC in DDR: compare against the reference transposed the same way
        FloatTensor ref = values.at(out);
        std::vector<float> ref_nhwc = ref.data;
        if (ref.shape.size() == 4) {
          std::int64_t C = ref.shape[1], H = ref.shape[2], W = ref.shape[3];
          for (std::int64_t c = 0; c < C; ++c)
            for (std::int64_t h = 0; h < H; ++h)
              for (std::int64_t w = 0; w < W; ++w) ref_nhwc[(h * W + w) * C + c] = ref.data[(c * H + h) * W + w];
        }
        worst = std::min(worst, cosine(got, ref_nhwc));
      }
      std::printf("%-12s %s: compile %.2fs, %zu instructions, %zu fallbacks, %llu cycles, cosine %.5f\n", name,
                  p == Precision::Int8 ? "int8" : "fp16", compile_s, m.program.code.size(), m.fallbacks.size(),
                  static_cast<unsigned long long>(r.cycles), worst);
    }
  }
}
