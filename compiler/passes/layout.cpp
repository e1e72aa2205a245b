// NHWC inside the NPU: channels innermost is what the conv instruction's im2col, the
// per-channel vector parameters and channel concat by strided DMA all need. The IR keeps
// logical NCHW shapes; `layout` says how the bytes are stored. Every 4-D value that crosses
// between the NPU and the host (graph input/output, CPU step) is one explicit NCHW<->NHWC
// transpose, done by the runtime on the transfer and counted here.
#include <set>

#include "compiler/passes/passes.h"

namespace npu::compiler {

std::string convert_layout(Graph& g, int& transposes) {
  transposes = 0;
  std::set<std::string> npu_values, host_values;
  for (const auto& n : g.nodes) {
    auto& side = n.device == Node::Device::Npu ? npu_values : host_values;
    for (const auto& v : n.inputs) if (!v.empty() && !g.is_constant(v)) side.insert(v);
    for (const auto& v : n.outputs) if (!v.empty()) side.insert(v);
  }
  host_values.insert(g.inputs.begin(), g.inputs.end());
  host_values.insert(g.outputs.begin(), g.outputs.end());
  int nhwc = 0;
  for (const auto& v : npu_values) {
    Tensor& t = g.tensor(v);
    if (t.shape.size() != 4) continue;
    t.layout = Layout::NHWC;
    ++nhwc;
    if (host_values.count(v)) ++transposes;
  }
  return std::to_string(nhwc) + " NPU values NHWC, " + std::to_string(transposes) +
         " NCHW<->NHWC transposes at the NPU boundary";
}

}  // namespace npu::compiler
