#include "compiler/quant/host_node_runner.h"

#include <map>
#include <memory>
#include <mutex>

#include "compiler/frontend/onnx_io.h"

namespace npu::compiler {

namespace {

struct NodeSteps {
  std::mutex mutex;
  std::map<std::size_t, CpuStep> steps;  // by node index, exported on first use
};

}  // namespace

NodeRunner host_node_runner(const Graph& g, const HostStepRunner& runner) {
  if (!runner) return {};
  auto cache = std::make_shared<NodeSteps>();
  return [&g, runner, cache](std::size_t index, const std::vector<const FloatTensor*>& inputs) {
    const Node& n = g.nodes.at(index);
    const std::string what = g.source + ": node '" + n.name + "' (" + n.op_type + ") on the host: ";
    std::lock_guard<std::mutex> lock(cache->mutex);
    auto it = cache->steps.find(index);
    if (it == cache->steps.end()) {
      Subgraph sub = export_subgraph(g, {static_cast<int>(index)}, "calibration_" + n.name);
      CpuStep step;
      step.onnx_model = std::move(sub.onnx_model);
      step.inputs = std::move(sub.inputs);
      step.outputs = std::move(sub.outputs);  // the outputs some node reads (or graph outputs)
      step.node_names = {n.name};
      it = cache->steps.emplace(index, std::move(step)).first;
    }
    const CpuStep& step = it->second;
    std::vector<HostStepInput> feed;
    for (const auto& name : step.inputs) {
      const FloatTensor* value = nullptr;
      for (std::size_t i = 0; i < n.inputs.size() && i < inputs.size(); ++i)
        if (n.inputs[i] == name) value = inputs[i];
      if (!value) throw CompileError(what + "no value for its input '" + name + "'");
      feed.push_back({g.tensor(name).elem_type, value});
    }
    std::vector<FloatTensor> produced;
    try {
      produced = runner(step, feed);
    } catch (const std::exception& e) {
      throw CompileError(what + e.what());
    }
    if (produced.size() != step.outputs.size())
      throw CompileError(what + "returned " + std::to_string(produced.size()) + " outputs for " +
                         std::to_string(step.outputs.size()));
    std::vector<FloatTensor> outputs(n.outputs.size());  // unread outputs stay empty
    for (std::size_t k = 0; k < step.outputs.size(); ++k)
      for (std::size_t o = 0; o < n.outputs.size(); ++o)
        if (n.outputs[o] == step.outputs[k]) outputs[o] = produced[k];
    return outputs;
  };
}

}  // namespace npu::compiler
