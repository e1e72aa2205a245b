// A whole model through the session without the compiler: a hand-written program whose two
// NPU steps (ReLU, Clip in int8) sandwich a CPU step (Neg on the FP32 evaluator, or Sin on
// ONNX Runtime).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <iterator>

#include <onnx/onnx_pb.h>

#include "hwconfig/hardware_config.h"
#include "isa/assembler.h"
#include "report/model_report.h"
#include "runtime/session.h"

using namespace npu;
using namespace npu::runtime;

namespace {

const char* kProgram = R"(
.tensor name=x   role=input        dtype=int8 shape=1x2x2x4 layout=NHWC host_layout=NCHW addr=0x1000 scale=0.5 zero_point=0
.tensor name=h   role=intermediate dtype=int8 shape=1x2x2x4 layout=NHWC host_layout=NCHW addr=0x2000 scale=0.5 zero_point=0
.tensor name=y   role=intermediate dtype=int8 shape=1x2x2x4 layout=NHWC host_layout=NCHW addr=0x3000 scale=0.5 zero_point=0
.tensor name=out role=output       dtype=int8 shape=1x2x2x4 layout=NHWC host_layout=NCHW addr=0x4000 scale=0.5 zero_point=0
  load channel=0 ddr_addr=0x1000 sram_addr=0 len0=16 push=vector
  clip dtype=0 dst_addr=64 src_addr=0 count=16 lo=0 hi=127 pop=load push=store
  store channel=0 ddr_addr=0x2000 sram_addr=64 len0=16 pop=vector
  halt
  load channel=0 ddr_addr=0x3000 sram_addr=0 len0=16 push=vector
  clip dtype=0 dst_addr=64 src_addr=0 count=16 lo=-2 hi=127 pop=load push=store
  store channel=0 ddr_addr=0x4000 sram_addr=64 len0=16 pop=vector
  halt
)";

void add_value(onnx::ValueInfoProto* v, const std::string& name) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (int d : {1, 4, 2, 2}) t->mutable_shape()->add_dim()->set_dim_value(d);
}

std::vector<std::uint8_t> cpu_step_model(const std::string& op) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  auto* g = model.mutable_graph();
  g->set_name("cpu_step");
  auto* node = g->add_node();
  node->set_op_type(op);
  node->set_name("neg");
  node->add_input("h");
  node->add_output("y");
  add_value(g->add_input(), "h");
  add_value(g->add_output(), "y");
  const std::string bytes = model.SerializeAsString();
  return {bytes.begin(), bytes.end()};
}

container::CompiledModel sandwich_model(const std::string& cpu_op = "Neg") {
  container::CompiledModel m;
  m.program = isa::assemble(kProgram, "sandwich.npuasm");
  container::Step relu, neg, clip;
  relu.npu = {0, 4, {"x"}, {"h"}};
  neg.kind = container::Step::Kind::Cpu;
  neg.cpu = {cpu_step_model(cpu_op), {"h"}, {"y"}, {"neg"}, 16};
  clip.npu = {4, 8, {"y"}, {"out"}};
  m.steps = {relu, neg, clip};
  m.layers = {{"relu", "Relu", "npu", 0, 0, 4, 32, {"relu"}, {}},
              {"neg", "Neg", "cpu", 0, 0, 0, 0, {"neg"}, {}},
              {"clip", "Clip", "npu", 0, 4, 8, 32, {"clip"}, {}}};
  m.fallbacks = {{"neg", "Neg", "no NPU kernel for Neg"}};
  m.model_inputs = {"x"};
  m.model_outputs = {"out"};
  m.npu_cpu_transitions = 2;
  return m;
}

HardwareConfig test_config() {
  return load_hardware_config(std::string(NPUSIM_SOURCE_DIR) + "/configs/default.yaml");
}

HostTensor ramp() {
  HostTensor x = make_host_tensor(ElementType::Float32, {1, 4, 2, 2});
  for (int i = 0; i < 16; ++i) x.data<float>()[i] = 0.5f * static_cast<float>(i) - 4.0f;
  return x;
}

bool process_has_loaded(const std::string& library) {
  std::ifstream maps("/proc/self/maps");
  const std::string text((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
  REQUIRE(text.find("libsystemc") != std::string::npos);  // the map lists what is loaded
  return text.find(library) != std::string::npos;
}

}  // namespace

TEST_CASE("session: boundary descriptors are ONNX views", "[session]") {
  Session session(sandwich_model(), test_config());
  REQUIRE(session.inputs().size() == 1);
  CHECK(describe(session.inputs()[0]) == "float32[1x4x2x2] NCHW");
  CHECK(describe(session.outputs()[0]) == "float32[1x4x2x2] NCHW");
}

TEST_CASE("session: NPU -> CPU -> NPU gives the right numbers and counts the crossings", "[session]") {
  const auto config = test_config();
  Session session(sandwich_model(), config);
  const auto result = session.run({{"x", ramp()}});
  REQUIRE(result.outputs.size() == 1);
  const HostTensor& out = result.outputs[0].second;
  CHECK(result.outputs[0].first == "out");
  REQUIRE(out.shape == std::vector<std::int64_t>{1, 4, 2, 2});
  for (int i = 0; i < 16; ++i) {
    const float x = 0.5f * static_cast<float>(i) - 4.0f;
    CHECK(out.data<float>()[i] == std::max(-std::max(x, 0.0f), -1.0f));
  }

  const auto r = npu::report::build_model_report(session.model(), config, result.record);
  CHECK(r.transitions == 2);
  CHECK(r.transfer_bytes == 32);  // h out to the CPU, y back in
  CHECK(r.io_bytes == 32);        // x in, out back
  REQUIRE(r.conversions.size() == 4);
  CHECK(r.conversions[0].text() == "input x: converted float32 NCHW → int8 NHWC (quantised, scale 0.5, zp 0), 16 bytes");
  CHECK(r.conversions[1].role == "to cpu");
  CHECK(r.conversions[2].role == "to npu");
  CHECK(r.conversions[3].role == "output");
  CHECK(r.host.transition_us == Approx(2 * config.host.transition_us));
  CHECK(r.host.compute_us == Approx(16 / (config.host.gflops * 1e3)));
  CHECK(r.host.transfer_us == Approx(32 / (config.host.memcpy_gbps * 1e3)));
  CHECK(r.latency_us() == Approx(r.npu.latency_us + r.host.total_us()));
  REQUIRE(r.steps.size() == 3);
  CHECK(r.npu.cycles == r.steps[0].cycles + r.steps[2].cycles);

  REQUIRE(r.layers.size() == 3);
  CHECK(r.layers[0].ddr_bytes == 32);
  CHECK(r.layers[0].cycles > 0);
  CHECK(r.layers[0].cycles <= r.steps[0].cycles);
  CHECK(r.layers[2].start_cycle > r.layers[0].start_cycle + r.steps[0].cycles);  // host time lies between
  CHECK(r.layers[1].device == "cpu");
  CHECK(r.layers[1].host_us == Approx(r.host.compute_us));

  const auto json = npu::report::model_report_json(r, config);
  CHECK(json["layers"].size() == 3);
  CHECK(json["layers"][0]["device"] == "npu");
  CHECK(json["transitions"] == 2);
  CHECK(json["fallbacks"][0]["node"] == "neg");
  CHECK(json["load"]["busy_cycles"].get<std::uint64_t>() > 0);
  CHECK(npu::report::format_model_report(r, config).find("relu") != std::string::npos);
}

TEST_CASE("session: timing only gives the same cycles and no outputs", "[session]") {
  const auto config = test_config();
  Session functional(sandwich_model(), config);
  SessionOptions options;
  options.timing_only = true;
  Session timing(sandwich_model(), config, options);
  const auto a = functional.run({{"x", ramp()}});
  const auto b = timing.run({{"x", ramp()}});
  CHECK(b.outputs.empty());
  CHECK(a.record.npu.cycles == b.record.npu.cycles);
  CHECK(a.record.transfer_bytes == b.record.transfer_bytes);
  CHECK(b.record.conversions.empty());
}

TEST_CASE("session: bad inputs are one-line errors", "[session]") {
  Session session(sandwich_model(), test_config());
  REQUIRE_THROWS_WITH(session.run({}), "missing input 'x': expected float32[1x4x2x2] NCHW");
  REQUIRE_THROWS_WITH(session.run({{"x", make_host_tensor(ElementType::Int64, {1, 4, 2, 2})}}),
                      "input 'x': expected float32[1x4x2x2] NCHW, got int64[1x4x2x2]");
}

TEST_CASE("session: an unknown device is named", "[session]") {
  SessionOptions options;
  options.device = "tpu";
  REQUIRE_THROWS_WITH(Session(sandwich_model(), test_config(), options), "unknown device 'tpu' (devices: sim)");
}

// Python only where it is needed (runtime/python_bridge.h). Each test case is its own process.
TEST_CASE("session: a CPU step the FP32 evaluator covers loads no Python", "[session][python]") {
  Session session(sandwich_model("Neg"), test_config());
  const auto result = session.run({{"x", ramp()}});
  CHECK(result.outputs.at(0).second.data<float>()[15] == -1.0f);
  CHECK_FALSE(process_has_loaded("libpython"));
  CHECK_FALSE(process_has_loaded("libnpusim_python_bridge"));
}

TEST_CASE("session: a CPU step beyond the evaluator runs on ONNX Runtime through the bridge", "[session][python]") {
  // LpNormalization (L2 over the last axis) has no FP32 evaluator kernel.
  Session session(sandwich_model("LpNormalization"), test_config());
  CHECK_FALSE(process_has_loaded("libpython"));
  const auto result = session.run({{"x", ramp()}});
  const HostTensor& out = result.outputs.at(0).second;
  auto relu_out = [](int i) { return std::max(0.5f * static_cast<float>(i) - 4.0f, 0.0f); };
  for (int i = 0; i < 16; ++i) {
    // int8 at scale 0.5 on both sides of the CPU step; Clip's lower bound is q = -2. ONNX
    // Runtime maps a zero pair to zeros.
    const float a = relu_out(i), b = relu_out(i ^ 1), norm = std::sqrt(a * a + b * b);
    const float normalised = norm > 0.0f ? a / norm : 0.0f;
    const float y = 0.5f * std::max(std::nearbyint(normalised / 0.5f), -2.0f);
    CHECK(out.data<float>()[i] == y);
  }
  CHECK(process_has_loaded("libnpusim_python_bridge"));
  CHECK(process_has_loaded("libpython"));
}
