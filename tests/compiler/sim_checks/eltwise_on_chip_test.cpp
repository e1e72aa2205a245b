// Element-wise layers and a channel Concat read and write values the step scheduler keeps on
// chip: in a DenseNet-style pre-activation (a Concat of two conv outputs, its per-channel scale
// and shift, then ReLU, before a padded conv, so nothing folds into a conv) the Concat copies
// its parts inside the scratchpad (the ISA's copy) and no layer from the Concat to the conv
// moves DDR bytes but its constants; the model's outputs are still the integer reference's
// bytes, and so is every intermediate value (check_bit_exact, which stores them all too).
#include <catch2/catch.hpp>
#include <filesystem>

#include "compiler/frontend/onnx_io.h"
#include "tests/compiler/sim_checks/sim_check_helpers.h"
#include "tests/compiler/test_graphs.h"

using namespace npu;
using namespace npu::compiler;
using namespace npu::compiler::sim_checks;
using testing::GraphBuilder;

namespace {

// stem -> two convs concatenated (64 channels) -> Mul, Add (per channel), Relu -> 3x3 conv.
std::string write_model(GraphBuilder& b) {
  const std::string x = b.input("x", {1, 8, 12, 12});
  b.same_conv(x, 8, 32, "stem", 3);
  b.node("Relu", {b.out("stem")}, "stem_relu");
  b.same_conv(b.out("stem_relu"), 32, 32, "grow", 3);
  b.node("Concat", {b.out("stem_relu"), b.out("grow")}, "cat").set_int("axis", 1);
  b.node("Mul", {b.out("cat"), b.random_constant("scale", {1, 64, 1, 1}, 0.5f, 1.5f)}, "norm_scale");
  b.node("Add", {b.out("norm_scale"), b.random_constant("shift", {1, 64, 1, 1}, -0.2f, 0.2f)}, "norm_shift");
  b.node("Relu", {b.out("norm_shift")}, "norm_relu");
  b.same_conv(b.out("norm_relu"), 64, 16, "head", 3);
  Graph g0 = b.finish({b.out("head")});
  const auto path = std::filesystem::temp_directory_path() / "npusim_eltwise_on_chip.onnx";
  write_onnx(g0, path.string());
  return path.string();
}

}  // namespace

TEST_CASE("int8 Concat and element-wise layers between two convs keep their values on chip", "[compiler][sim][int8]") {
  GraphBuilder b(47);
  const std::string path = write_model(b);
  for (const char* preset : {"default.yaml", "snapdragon-8-elite-htp-fitted.yaml"}) {
    INFO(preset);
    const HardwareConfig config = load_hardware_config(config_path(preset));
    Int8Compiled compiled = compile_int8(path, config);
    const CompiledModel& m = compiled.model;
    int on_chip = 0, copies = 0;
    for (const LayerRecord& l : m.layers) {
      INFO(l.name << " " << l.op);
      if (l.name == "cat") {
        CHECK(l.planned_ddr_bytes == 0);
        for (std::uint32_t i = l.first_instruction; i < l.end_instruction; ++i)
          copies += m.program.code[i].opcode == isa::Opcode::Copy;
      }
      if (l.name.rfind("norm_", 0) == 0) CHECK(l.planned_ddr_bytes <= 256);  // its constant at most
      on_chip += l.name == "cat" || l.name.rfind("norm_", 0) == 0;
    }
    CHECK(on_chip == 4);
    CHECK(copies == 2);

    check_outputs_against_reference(compiled, config, 17);
  }
  // Every intermediate value stored as well (check_bit_exact), its bytes equal too.
  check_bit_exact(path, "snapdragon-8-elite-htp-fitted.yaml");
  std::filesystem::remove(path);
}

TEST_CASE("an int8 table layer with its operand on chip loads only its table", "[compiler][sim][int8]") {
  GraphBuilder b(53);
  const std::string x = b.input("x", {1, 8, 10, 10});
  b.same_conv(x, 8, 32, "stem", 3);
  Node& pool = b.node("MaxPool", {b.out("stem")}, "pool");  // so the Sigmoid does not fuse into the conv
  pool.set_ints("kernel_shape", {3, 3});
  pool.set_ints("pads", {1, 1, 1, 1});
  b.node("Sigmoid", {b.out("pool")}, "gate");
  b.same_conv(b.out("gate"), 32, 8, "head", 3);
  Graph g0 = b.finish({b.out("head")});
  const auto path = (std::filesystem::temp_directory_path() / "npusim_table_on_chip.onnx").string();
  write_onnx(g0, path);
  const HardwareConfig config = load_hardware_config(config_path("default.yaml"));
  Int8Compiled compiled = compile_int8(path, config);
  const CompiledModel& m = compiled.model;
  int tables = 0;
  for (const LayerRecord& l : m.layers) {
    if (l.name != "gate") continue;
    CHECK(l.planned_ddr_bytes == 0);  // the 256-byte table is a constant load, as for every table layer
    for (std::uint32_t i = l.first_instruction; i < l.end_instruction; ++i) {
      const isa::Instruction& in = m.program.code[i];
      CHECK((in.opcode == isa::Opcode::Lut || in.opcode == isa::Opcode::Load));
      if (in.opcode == isa::Opcode::Load) CHECK(in.get(isa::Field::len0) * in.get(isa::Field::count1) == 256);
      tables += in.opcode == isa::Opcode::Load;
    }
  }
  CHECK(tables == 1);
  check_outputs_against_reference(compiled, config, 19);
  check_bit_exact(path, "default.yaml");
  std::filesystem::remove(path);
}

TEST_CASE("int8 RMSNorm's 1 / rms and a broadcast row stay on chip for the element-wise layers reading them",
          "[compiler][sim][int8]") {
  // Llama's RMSNorm as exported (Pow, ReduceMean, Add, Sqrt, Div, Mul by the scalar, Mul by the
  // weight), then query heads times a row of their width (a rotary table's cos row).
  GraphBuilder b(59);
  const std::string x = b.input("x", {1, 1, 64});
  b.node("MatMul", {x, b.random_constant("w_in", {64, 64})}, "h");
  b.node("Pow", {b.out("h"), b.constant("two", {}, {2.0f})}, "sq");
  b.node("ReduceMean", {b.out("sq")}, "ms").set_ints("axes", {-1});
  b.node("Add", {b.out("ms"), b.constant("eps", {}, {1e-6f})}, "ms_eps");
  b.node("Sqrt", {b.out("ms_eps")}, "rms");
  b.node("Div", {b.constant("one", {}, {1.0f}), b.out("rms")}, "inv_rms");
  b.node("Mul", {b.out("h"), b.out("inv_rms")}, "normed");
  b.node("Mul", {b.out("normed"), b.random_constant("gamma", {64}, 0.5f, 1.5f)}, "scaled");
  b.node("MatMul", {b.out("scaled"), b.random_constant("w_q", {64, 256})}, "q");
  b.node("Reshape", {b.out("q"), b.int_constant("heads", {4}, {1, 4, 1, 64})}, "q_heads");
  b.node("MatMul", {b.out("scaled"), b.random_constant("w_row", {64, 64})}, "row");
  b.node("Reshape", {b.out("row"), b.int_constant("row_shape", {4}, {1, 1, 1, 64})}, "row4");
  b.node("Mul", {b.out("q_heads"), b.out("row4")}, "rotated");
  Graph g0 = b.finish({b.out("rotated")});
  g0.opset = 17;
  const auto path = (std::filesystem::temp_directory_path() / "npusim_broadcast_on_chip.onnx").string();
  write_onnx(g0, path);
  const HardwareConfig config = load_hardware_config(config_path("npu-40tops-55gbps.yaml"));
  Int8Compiled compiled = compile_int8(path, config);
  int checked = 0;
  for (const LayerRecord& l : compiled.model.layers) {
    INFO(l.name << " " << l.op);
    if (l.name == "normed" || l.name == "rotated") {  // both operands read where they lie on chip
      for (std::uint32_t i = l.first_instruction; i < l.end_instruction; ++i)
        CHECK(compiled.model.program.code[i].opcode != isa::Opcode::Load);
      ++checked;
    }
  }
  CHECK(checked == 2);
  check_outputs_against_reference(compiled, config, 23);
  check_bit_exact(path, "npu-40tops-55gbps.yaml");
  std::filesystem::remove(path);
}
