#include "compiler/backend/op_registry.h"

namespace npu::compiler {

const std::vector<const NpuOpFamily*>& npu_op_families() {
  static const std::vector<const NpuOpFamily*> families = {
      &converter_family(), &conv_family(),    &pool_family(),    &resize_family(),
      &move_family(),      &matmul_family(),  &rowwise_family(), &eltwise_family(),
  };
  return families;
}

const NpuOpFamily* npu_op_family(const Node& node) {
  for (const NpuOpFamily* f : npu_op_families())
    if (f->takes(node)) return f;
  return nullptr;
}

}  // namespace npu::compiler
