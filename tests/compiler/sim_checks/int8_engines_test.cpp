// Programs for several engines (engines.count > 1, layers split across them by output rows or
// output channels, syncs between them) compute what one engine computes: the tiny model's INT8
// values equal the integer reference bit for bit under every split rule. This one runs in the
// sanitizer stage; the CNN-sized checks (tests/compiler/engine_checks) run in the Release stage.
#include <catch2/catch.hpp>

#include "tests/compiler/sim_checks/sim_check_helpers.h"

using namespace npu;
using namespace npu::compiler;
using namespace npu::compiler::sim_checks;

TEST_CASE("int8 on 2 and 4 engines: the tiny model equals the integer reference bit for bit", "[compiler][sim][int8][engines]") {
  const std::string model = std::string(NPUSIM_SOURCE_DIR) + "/models/tiny_convnet.onnx";
  for (int engines : {2, 4})
    for (EngineSplitMode split : {EngineSplitMode::Auto, EngineSplitMode::Rows, EngineSplitMode::Channels})
      check_bit_exact(model, "default.yaml", BitExactSetup{0, engines, split});
}
