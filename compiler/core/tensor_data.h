// A dense tensor of one element type, row-major: the values the reference evaluators compute
// and the parameters a node carries as a constant input (node_parameters.h).
#pragma once
#include <cstdint>
#include <vector>

namespace npu::compiler {

using Shape = std::vector<std::int64_t>;

template <typename T>
struct TensorData {
  Shape shape;
  std::vector<T> data;
  std::int64_t elements() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};
using IntTensor = TensorData<std::int64_t>;
using FloatTensor = TensorData<float>;

}  // namespace npu::compiler
