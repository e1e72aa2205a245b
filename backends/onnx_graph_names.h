// Tracing the layer names a device runtime reports (OpenVINO's performance counters, ONNX
// Runtime's profiler) back to the ONNX nodes they came from, so that `npusim compare
// --per-layer` can set measured nodes against simulated layers.
#pragma once
#include <map>
#include <set>
#include <string>

namespace npu::backends {

// What runtime names can be traced back to.
struct OnnxGraphNames {
  std::set<std::string> nodes;                  // node names
  std::map<std::string, std::string> producer;  // tensor name -> the node that produces it
};
// Throws "<path>: ..." when the file is not an ONNX model.
OnnxGraphNames read_onnx_graph_names(const std::string& path);

// The ONNX node a runtime layer name stands for: the name itself, the producer of a tensor of
// that name, or (unless `whole_name_only`) the same after dropping trailing "/segment"s
// (OpenVINO names the parts it splits an ONNX node into "<node>/<part>", ONNX Runtime a node it
// fused another into "<node>/MatMulAddFusion") or a trailing "_nchwc" (ONNX Runtime's NCHWc
// layout pass names each node it converts after its output tensor: "<tensor>_nchwc", the
// activation it fused in included). Empty when none.
std::string onnx_node_of(const std::string& runtime_name, const OnnxGraphNames& onnx, bool whole_name_only = false);

}  // namespace npu::backends
