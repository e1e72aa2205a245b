// One operator of a TFLite model as a model of its own: the operator, the tensors it reads and
// writes, its constants' buffers and its operator code, with its non-constant inputs as the
// subgraph's inputs, and the subgraphs it calls (IF branches, WHILE cond and body) copied whole.
// LiteRT runs it where npusim has no equivalent op (the CPU step of an
// operator of domain kTfliteOnlyDomain, and INT8 calibration through the host runner).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/frontend/tflite/tflite_schema_generated.h"  // flatc, at build time

namespace npu::compiler::tflite_import {

// `inputs`: the operator's input tensors in the order the new subgraph takes them (non-constant
// ones; the constants are copied in). Throws CompileError(where + ...) when a constant's data
// lies outside `file`.
// `subgraph`: the one `op` belongs to.
std::vector<std::uint8_t> single_operator_model(const std::vector<std::uint8_t>& file, const tflite::Model& model, int subgraph,
                                                const tflite::Operator& op, const std::vector<int>& inputs,
                                                const std::string& where);

}  // namespace npu::compiler::tflite_import
