// INT8 programs on the SystemC model store exactly the bytes of the compiler's integer
// reference: every value the NPU writes to DDR (intermediates too, not just the outputs), so a
// mismatch names the first layer that differs.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "compiler/pipeline.h"
#include "container/compiled_model.h"
#include "sim/simulator.h"
#include "tests/compiler/sim_checks/sim_check_helpers.h"
#include "tests/compiler/test_graphs.h"
#include "tests/support/integer_reference.h"

using namespace npu;
using namespace npu::compiler;
using namespace npu::compiler::sim_checks;

namespace {

const isa::TensorEntry* find_entry(const isa::Program& p, const std::string& name) {
  for (const auto& t : p.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

// Compiles `model` for INT8 on `config`, runs it on the simulator and on the integer reference
// from the same quantised input, and compares every NPU-computed value byte for byte.
void check_bit_exact(const std::string& model, const std::string& config_name) {
  INFO(model << " on " << config_name);
  HardwareConfig config = load_hardware_config(config_path(config_name));
  CompileOptions options;
  options.precision = Precision::Int8;
  options.store_all_values = true;  // intermediates kept on chip are stored too, to compare them
  CompiledModel m;
  Graph g = lower_graph(model, options, m);
  generate_code(g, config, options, m);
  REQUIRE(m.fallbacks.empty());

  Int8Values inputs;
  sim::DdrImage ddr;
  ddr.place(m.program);
  unsigned seed = 11;
  for (const auto& name : g.inputs) {
    const isa::TensorEntry* e = find_entry(m.program, name);
    REQUIRE(e);
    auto bytes = quantize_to_nhwc(testing::random_tensor(g.tensor(name).shape, seed++), g.tensor(name).quant);
    REQUIRE(bytes.size() == e->size_bytes);
    ddr.write(e->ddr_addr, bytes.data(), bytes.size());
    inputs[name] = std::move(bytes);
  }
  Int8Values expected = run_integer_reference(g, inputs);
  sim::SimResult r = sim::simulate(m.program, config, ddr);
  CHECK(r.cycles > 0);

  // A channel concatenation whose readers take its parts in place is never written: its
  // readers' outputs check it.
  auto stored = [&](const isa::TensorEntry& e) {
    for (const auto& in : m.program.code)
      if (in.opcode == isa::Opcode::Store) {
        const auto a = static_cast<std::uint64_t>(in.get(isa::Field::ddr_addr));
        if (a >= e.ddr_addr && a < e.ddr_addr + e.size_bytes) return true;
      }
    return false;
  };
  std::size_t compared = 0, virtual_concats = 0;
  for (const Node& n : g.nodes) {
    const std::string& value = n.outputs[0];
    const isa::TensorEntry* e = find_entry(m.program, value);
    REQUIRE(e);
    if (n.op_type == "Concat" && !stored(*e)) {
      ++virtual_concats;
      continue;
    }
    const auto& want = expected.at(value);
    REQUIRE(want.size() == e->size_bytes);
    std::vector<std::int8_t> got(want.size());
    ddr.read(e->ddr_addr, got.data(), got.size());
    std::size_t differ = 0, first = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i] && differ++ == 0) first = i;
    INFO("layer '" << n.name << "' (" << n.get_string("pattern", n.op_type) << ") value '" << value << "': " << differ
                   << " of " << got.size() << " bytes differ, first at " << first << " (sim "
                   << int{got[first]} << ", reference " << int{want[first]} << ")");
    REQUIRE(differ == 0);
    ++compared;
  }
  CHECK(compared + virtual_concats == g.nodes.size());
}

}  // namespace

TEST_CASE("int8 tiny model: simulated NPU equals the integer reference bit for bit", "[compiler][sim][int8]") {
  const std::string model = std::string(NPUSIM_SOURCE_DIR) + "/models/tiny_convnet.onnx";
  check_bit_exact(model, "default.yaml");
  check_bit_exact(model, "tiny-8x8.yaml");  // 64 KiB of SRAM: every layer is tiled
}

#ifdef NPUSIM_SMALL_MODELS_DIR
// ResNet-18 (residual qadd, max pool, gemm), MobileNetV2 (depthwise, Relu6 clamps, unfused
// Add) and the YOLO-style net (SiLU tables, concat, nearest resize) at 64x64 inputs.
TEST_CASE("int8 CNNs at 64x64: simulated NPU equals the integer reference bit for bit", "[compiler][sim][int8]") {
  for (const char* name : {"resnet18", "mobilenetv2", "yolo_style"}) {
    std::string model = std::string(NPUSIM_SMALL_MODELS_DIR) + "/" + name + ".onnx";
    if (!std::ifstream(model)) {
      WARN(model << " missing (generated at build time by scripts/make_models.py): not checked");
      continue;
    }
    check_bit_exact(model, "default.yaml");
  }
}
#endif
