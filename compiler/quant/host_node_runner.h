// Calibration's way past a node the FP32 evaluator has no kernel for: the node alone as a CPU
// step (a one-node ONNX model, exported once per node) run by CompileOptions::host_runner
// (ONNX Runtime, installed by the runtime). Its outputs then feed the nodes after it, so the
// one op costs only itself: it runs on the CPU, everything around it is measured.
#pragma once
#include "compiler/core/graph.h"
#include "compiler/reference/float_evaluator.h"

namespace npu::compiler {

// A NodeRunner for evaluate_graph_visiting over `graph` (which must outlive it); empty when
// `runner` is. Calls are serialised: calibration runs samples on several threads, and the
// runner need not be thread-safe. A failure is a CompileError naming the node and the runner's
// reason.
NodeRunner host_node_runner(const Graph& graph, const HostStepRunner& runner);

}  // namespace npu::compiler
