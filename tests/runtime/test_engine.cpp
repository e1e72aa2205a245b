// The engine (runtime/engine.h): one default seed, input i from seed + i, the ONNX file's
// declarations applied, notes only when an app asks for them, and one latency however the run
// is started.
#include <catch2/catch.hpp>

#include <algorithm>

#include "hwconfig/hardware_config.h"
#include "runtime/engine.h"

using namespace npu;
using namespace npu::runtime;

namespace {

std::string source_path(const std::string& relative) { return std::string(NPUSIM_SOURCE_DIR) + "/" + relative; }

HardwareConfig default_config() { return load_hardware_config(source_path("configs/default.yaml")); }

// Five inputs of three kinds (int64 ids, float32 caches), all of its steps on the CPU.
const std::string kDecoder = source_path("models/exported/gpt_tiny_decode.onnx");
const std::string kTiny = source_path("models/tiny_convnet.onnx");

bool same_bytes(const std::map<std::string, HostTensor>& a, const std::map<std::string, HostTensor>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, t] : a)
    if (!b.count(name) || b.at(name).bytes != t.bytes || b.at(name).shape != t.shape) return false;
  return true;
}

}  // namespace

TEST_CASE("generated inputs: one default seed, input i drawn from seed + i") {
  STATIC_REQUIRE(kDefaultInputSeed == 1);
  const auto config = default_config();
  Engine engine(compile_model(kDecoder, config, {}), config);
  const auto& inputs = engine.inputs();
  REQUIRE(inputs.size() == 5);
  const auto generated = generate_inputs(inputs, 7);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    CHECK(generated.at(inputs[i].name).bytes == random_input(inputs[i], 7 + i).bytes);
  CHECK(same_bytes(generated, generate_inputs(inputs, 7)));
  CHECK_FALSE(same_bytes(generated, generate_inputs(inputs, 8)));
}

TEST_CASE("compile reads the ONNX file's declarations and places the model with them") {
  const auto config = default_config();
  const auto model = compile_model(kDecoder, config, {});
  REQUIRE(model.declared);
  Engine engine(model, config);
  CHECK(engine.inputs().front().name == "input_ids");
  CHECK(engine.inputs().front().dtype == ElementType::Int64);
  CHECK(model.declared->inputs.size() == engine.inputs().size());

  // A .npuprog carries no ONNX declarations.
  const std::string saved = std::string(NPUSIM_BINARY_DIR) + "/engine_test_tiny.npuprog";
  auto copy = *compile_model(kTiny, config, {}).compiled;
  save_compiled_model(copy, saved);
  const auto loaded = compile_model(saved, config, {});
  CHECK_FALSE(loaded.declared);
  CHECK(loaded.compiled->program.code.size() == copy.program.code.size());
}

TEST_CASE("notes say where inputs came from only when the app asks, in its own words") {
  const auto config = default_config();
  Engine engine(compile_model(kTiny, config, {}), config);
  RunRequest quiet;
  quiet.timing_only = true;
  const auto plain = engine.run(quiet).record.notes;
  CHECK(std::none_of(plain.begin(), plain.end(), [](const std::string& n) { return n.rfind("input ", 0) == 0; }));

  RunRequest noted = quiet;
  noted.seed = 5;
  noted.notes.how_to_give = [](const std::string& input) { return "give " + input + " yourself"; };
  const auto notes = engine.run(noted).record.notes;
  REQUIRE_FALSE(notes.empty());
  CHECK(notes.front() == "input input: random float32[1x3x32x32] NCHW (seed 5; give input yourself)");

  RunRequest given = noted;
  given.inputs = generate_inputs(engine.inputs(), 5);
  given.notes.given_from = "a test";
  CHECK(engine.run(given).record.notes.front() == "input input: from a test");
  given.input_files["input"] = "x.npy";
  CHECK(engine.run(given).record.notes.front() == "input input: from x.npy");
}

TEST_CASE("one latency: compile_and_run, a placed engine run twice, functional or timing-only") {
  const auto config = default_config();
  for (const auto& path : {kTiny, kDecoder}) {
    const auto once = compile_and_run(path, config, {}).result.record.latency_us();
    Engine engine(compile_model(path, config, {}), config);
    CHECK(engine.run(timing_only_run()).record.latency_us() == once);
    CHECK(engine.run(timing_only_run()).record.latency_us() == once);
    CHECK(engine.run({}).record.latency_us() == once);
    CHECK(engine.stream({}).infer_us == once);
  }
}

TEST_CASE("the same seed gives the same outputs, another seed other ones") {
  const auto config = default_config();
  Engine engine(compile_model(kTiny, config, {}), config);
  RunRequest request;
  request.seed = 3;
  const auto a = engine.run(request).outputs, b = engine.run(request).outputs;
  request.seed = 4;
  const auto c = engine.run(request).outputs;
  REQUIRE(a.size() == 1);
  CHECK(a[0].second.bytes == b[0].second.bytes);
  CHECK(a[0].second.bytes != c[0].second.bytes);
}
