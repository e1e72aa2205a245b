// One TFLite operator into IR nodes (ONNX-style ops): each builtin the importer takes, and
// MediaPipe's Convolution2DTransposeBias custom op.
#pragma once
#include <cstdint>
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
};

struct Operator {
  const tflite::Operator& op;
  const tflite::Model& model;            // the file's, for an operator copied out whole
  const std::vector<std::uint8_t>& file;
  int code;                  // BuiltinOperator
  std::string custom_code;   // for CUSTOM
  std::vector<int> inputs;   // -1: absent optional input
  std::vector<int> outputs;
  std::string where;         // "<file>: operator 12 (CONV_2D, output 'x')", for messages
  int input(std::size_t k) const { return k < inputs.size() ? inputs[k] : -1; }
};

// Throws CompileError(where + ...) for an op or option it does not take.
void translate_operator(Builder& b, const Operator& op, Variables& variables);

}  // namespace npu::compiler::tflite_import
