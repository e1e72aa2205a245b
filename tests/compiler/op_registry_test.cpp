// The NPU op families (compiler/backend/op_registry.h): every op the partitioner may put on the
// NPU belongs to exactly one family, and the families the back end makes itself are never asked.
#include <catch2/catch.hpp>

#include "compiler/backend/op_registry.h"
#include "compiler/backend/rowwise_params.h"
#include "compiler/core/npu_ops.h"

using namespace npu::compiler;

namespace {

int families_taking(const Node& n) {
  int count = 0;
  for (const NpuOpFamily* f : npu_op_families()) count += f->takes(n) ? 1 : 0;
  return count;
}

Node node(const std::string& op, const std::string& domain = "") {
  Node n;
  n.op_type = op;
  n.domain = domain;
  return n;
}

}  // namespace

TEST_CASE("every NPU op belongs to exactly one op family", "[compiler][registry]") {
  std::vector<std::string> ops = {"FusedConv", "FusedGemm", "MaxPool", "AveragePool", "Resize", "Upsample", "MatMul",
                                  "Softmax", "LogSoftmax", "LayerNormalization", "Where"};
  for (const auto* set : {&unary_ops(), &binary_ops(), &move_ops(), &reduce_ops()}) ops.insert(ops.end(), set->begin(), set->end());
  for (const auto& op : ops) {
    INFO(op);
    CHECK(families_taking(node(op)) == 1);
    const NpuOpFamily* f = npu_op_family(node(op));
    REQUIRE(f);
    CHECK(f->rejection);
    CHECK(f->generate);
  }
  CHECK(npu_op_family(node("NonMaxSuppression")) == nullptr);
  const NpuOpFamily* converter = npu_op_family(node("Quantize", "npusim"));
  REQUIRE(converter);
  CHECK(converter->rejection == nullptr);  // made after partitioning, never asked about
  CHECK(std::string(npu_op_family(node("FusedConv"))->name) == "conv");
  CHECK(npu_op_family(node("FusedConv"))->demand);  // the conv tiler prices its plans itself
}
