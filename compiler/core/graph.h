// The compiler's one graph IR: every pass reads and writes this. Tensors carry shape, element
// type, layout, quantisation parameters and (for weights) their data; nodes carry an ONNX-style
// op type with attributes. Fused NPU layers are nodes of domain "npusim" (see fusion.h).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/core/compile_options.h"

namespace npu::compiler {

// ONNX TensorProto element types we care about; other values pass through unchanged.
enum ElemType : int {
  kUndefined = 0, kFloat = 1, kUint8 = 2, kInt8 = 3, kUint16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7, kBool = 9,
  kFloat16 = 10, kDouble = 11
};
const char* elem_type_name(int elem_type);

// real = scale * (q - zero_point). Weights are per output channel (channel_scales), zp 0.
struct QuantParams {
  float scale = 0.0f;  // 0: not quantised
  std::int32_t zero_point = 0;
  std::vector<float> channel_scales;
  bool valid() const { return scale > 0.0f || !channel_scales.empty(); }
};

struct Tensor {
  std::string name;
  int elem_type = kFloat;
  std::vector<std::int64_t> shape;
  bool shape_known = false;
  std::vector<std::string> dim_names;  // symbolic names of dynamic dims ("" when fixed)
  // NPU values: the physical order of the logical axes in DDR, outermost first, set by the
  // layout pass (tensor_layout.h); empty: row-major logical order.
  std::vector<int> order;
  // NPU values the host hands over or reads back: the layout of the host's (ONNX, row-major)
  // tensor, set by the layout pass: "NCHW" for a 4-D value stored NHWC (the runtime
  // transposes), "NHWC" for an NHWC image the NPU reads or writes as it is, otherwise the
  // stored layout's name (tensor_layout.h layout_name()). Empty for values only the NPU sees.
  std::string host_layout;
  QuantParams quant;
  bool is_constant = false;
  // Constant data: float types in `floats`, integer and bool types in `ints`.
  std::vector<float> floats;
  std::vector<std::int64_t> ints;

  std::int64_t elements() const;
};

struct Attribute {
  // Tensor: a numeric TensorProto (ConstantOfShape's value, ...), its values in floats or ints.
  enum class Kind : std::uint8_t { Int, Float, String, Ints, Floats, Strings, Tensor, Opaque };
  Kind kind = Kind::Int;
  std::int64_t i = 0;
  float f = 0.0f;
  std::string s;
  std::vector<std::int64_t> ints;
  std::vector<float> floats;
  std::vector<std::string> strings;
  std::vector<std::int64_t> tensor_shape;  // Tensor
  int tensor_elem_type = 0;                // Tensor
  // Attributes read from a file keep their serialized onnx::AttributeProto for re-export; passes
  // that change an attribute replace it whole (Node::set_*), which drops these bytes.
  std::string onnx_bytes;  // Opaque: a serialized onnx::AttributeProto kept for re-export
};

// The domain of a TFLite operator with no ONNX equivalent (frontend/tflite/): only LiteRT runs it.
constexpr const char* kTfliteOnlyDomain = "tflite";

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;                  // "" = ONNX, "npusim" = fused NPU layer, kTfliteOnlyDomain
  std::vector<std::string> inputs;     // "" = absent optional input
  std::vector<std::string> outputs;
  std::map<std::string, Attribute> attributes;
  std::vector<std::string> fused_nodes;  // original ONNX node names merged into this one
  enum class Device : std::uint8_t { Unassigned, Npu, Cpu } device = Device::Unassigned;
  std::string fallback_reason;

  bool has(const std::string& a) const { return attributes.count(a) != 0; }
  std::int64_t get_int(const std::string& a, std::int64_t fallback) const;
  float get_float(const std::string& a, float fallback) const;
  std::string get_string(const std::string& a, const std::string& fallback) const;
  std::vector<std::int64_t> get_ints(const std::string& a,
                                     std::vector<std::int64_t> fallback = {}) const;
  void set_int(const std::string& a, std::int64_t v);
  void set_float(const std::string& a, float v);
  void set_string(const std::string& a, const std::string& v);
  void set_ints(const std::string& a, const std::vector<std::int64_t>& v);
  void set_floats(const std::string& a, const std::vector<float>& v);
};

struct Graph {
  std::string name;
  std::string source;  // file it came from, for messages
  std::int64_t opset = 13;
  std::map<std::string, Tensor> tensors;
  std::vector<Node> nodes;  // topological order
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  // Values whose int8 range a QDQ model fixes (qdq_import.h): calibration does not override them.
  std::map<std::string, std::pair<float, float>> qdq_ranges;
  // Integer graph inputs the front end made float (frontend/integer_masks.cpp: an attention mask
  // only ever cast to float): the host converts them at the boundary, and generated calibration
  // samples still give them integer values.
  std::set<std::string> integer_valued_inputs;

  Tensor& tensor(const std::string& name);  // throws CompileError when unknown
  const Tensor& tensor(const std::string& name) const;
  bool has_tensor(const std::string& name) const { return tensors.count(name) != 0; }
  bool is_constant(const std::string& name) const;
  // Index of the node producing `tensor`, or -1 (graph input, constant, absent).
  int producer(const std::string& tensor) const;
  std::vector<int> consumers(const std::string& tensor) const;
  bool is_graph_output(const std::string& tensor) const;
  Tensor& add_constant(const std::string& name, std::vector<std::int64_t> shape,
                       std::vector<float> values);
  Tensor& add_int_constant(const std::string& name, std::vector<std::int64_t> shape,
                           std::vector<std::int64_t> values, int elem_type = kInt64);
  std::string unique_name(const std::string& base) const;
  // A new computed value named after `base` (unique), its shape known when given; its name.
  std::string add_value(const std::string& base, int elem_type, std::optional<std::vector<std::int64_t>> shape = {});
  // A new 1-D int64 constant named after `base` (unique: a Reshape's shape, a Slice's starts); its name.
  std::string add_int_vector(const std::string& base, std::vector<std::int64_t> values);
  // A node a rewrite makes in place of `from`: named from.name + suffix (unique), recording `from`
  // as the source node it came from.
  Node derived_node(const std::string& op, const Node& from, const std::string& suffix, std::vector<std::string> inputs,
                    std::vector<std::string> outputs) const;
  // Re-sorts nodes topologically (passes may append); throws on a cycle.
  void sort_topologically();
};

std::string shape_string(const std::vector<std::int64_t>& shape);

// A Concat of 4-D values of known shapes along their channel axis (1), every part computed (none
// a constant): what convs can read in parts and the scratchpad can assemble in place.
bool is_channel_concat(const Graph& graph, const Node& node);

// Every tensor of `g` within `max_bytes` as FP32, or a CompileError naming it: checked where
// shapes come from a file and again after shape inference, before anything allocates by them.
void check_tensor_sizes(const Graph& g, std::uint64_t max_bytes);

}  // namespace npu::compiler
