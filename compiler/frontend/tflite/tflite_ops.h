// One TFLite operator into IR nodes (ONNX-style ops): each builtin the importer takes, and
// MediaPipe's Convolution2DTransposeBias custom op.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "compiler/frontend/tflite/tflite_builder.h"
#include "compiler/frontend/tflite/tflite_schema_generated.h"  // flatc, at build time

namespace npu::compiler::tflite_import {

// Resource variables of the subgraph: resource tensor -> shared name, and each variable's value
// as the operators so far leave it.
struct Variables {
  std::map<int, std::string> handles;
  std::map<std::string, std::string> current;  // shared name -> IR value (TFLite order)
  std::vector<std::string> read_first;         // state inputs, in order of first read
  std::vector<std::string> assigned;           // state outputs, in order of first assignment
  // Variables stored quantized (a streaming INT8 model's int8 state): their host side stays int8,
  // read through a DequantizeLinear and written back through a QuantizeLinear with these params.
  std::map<std::string, TensorInfo> quantized;
};

// What a caller passes for one input of a subgraph: a value of the enclosing graph, by name, or a
// constant, whose data the subgraph then holds as its own.
struct BoundInput {
  std::string name;
  const TensorInfo* constant = nullptr;
};

// The file's other subgraphs, for IF and WHILE (tflite_import.cpp supplies them).
struct Subgraphs {
  // Subgraph `index` translated into a graph of its own: its inputs are `inputs` (empty: each
  // input a graph input named after its tensor), float values in TFLite's order; a name passed
  // twice is one input; its outputs are the values of its output tensors in TFLite's order.
  // Throws CompileError(where + ...) for a bad index.
  std::function<Graph(int index, const std::vector<BoundInput>& inputs, const std::string& where)> translate;
  // Subgraph `index`'s decoded tensors.
  std::function<const std::vector<TensorInfo>&(int index, const std::string& where)> tensors;
};

// BuiltinOperator of an operator code (codes below 127 may sit only in the deprecated field).
int builtin_code(const tflite::OperatorCode& code);

struct Operator {
  const tflite::Operator& op;
  const tflite::Model& model;            // the file's, for an operator copied out whole
  const std::vector<std::uint8_t>& file;
  int code;                  // BuiltinOperator
  std::string custom_code;   // for CUSTOM
  std::vector<int> inputs;   // -1: absent optional input
  std::vector<int> outputs;
  std::string where;         // "<file>: operator 12 (CONV_2D, output 'x')", for messages
  int subgraph = 0;          // the subgraph the operator belongs to
  const Subgraphs* subgraphs = nullptr;
  int input(std::size_t k) const { return k < inputs.size() ? inputs[k] : -1; }
};

// One line naming the operator and what is wrong with it.
[[noreturn]] inline void fail(const Operator& op, const std::string& what) { throw CompileError(op.where + ": " + what); }

// Throws CompileError(where + ...) for an op or option it does not take.
void translate_operator(Builder& b, const Operator& op, Variables& variables);

// The operator as one node of domain kTfliteOnlyDomain that LiteRT runs (tflite_single_op.h).
void opaque_operator(Builder& b, const Operator& op);

// IF and WHILE (tflite_control_flow.cpp): ONNX If and Loop nodes the front end's passes fold and
// unroll, or the operator for LiteRT.
void translate_if(Builder& b, const Operator& op);
void translate_while(Builder& b, const Operator& op);

}  // namespace npu::compiler::tflite_import
