#include "compiler/frontend/tflite/tflite_single_op.h"

#include <map>
#include <memory>

#include "compiler/core/graph.h"

namespace npu::compiler::tflite_import {

std::vector<std::uint8_t> single_operator_model(const std::vector<std::uint8_t>& file, const tflite::Model& model,
                                                const tflite::Operator& op, const std::vector<int>& inputs,
                                                const std::string& where) {
  // StableHLO options hold int64 vectors the verifier does not check for alignment; no
  // translation reads them, and neither does this copy.
  if (op.builtin_options_2_type() != tflite::BuiltinOptions2_NONE)
    throw CompileError(where + ": StableHLO operators are not supported");
  const tflite::SubGraph& source = *model.subgraphs()->Get(0);
  tflite::ModelT out;
  out.version = 3;
  out.description = "npusim: one operator for LiteRT";
  out.buffers.push_back(std::make_unique<tflite::BufferT>());  // buffer 0: the empty sentinel
  std::unique_ptr<tflite::OperatorCodeT> code(model.operator_codes()->Get(op.opcode_index())->UnPack());
  out.operator_codes.push_back(std::move(code));
  auto subgraph = std::make_unique<tflite::SubGraphT>();
  std::map<int, int> index;
  auto take = [&](int t) -> int {
    if (t < 0) return -1;
    if (const auto found = index.find(t); found != index.end()) return found->second;
    std::unique_ptr<tflite::TensorT> tensor(source.tensors()->Get(static_cast<flatbuffers::uoffset_t>(t))->UnPack());
    // A union whose type is set but whose table is absent passes the verifier; packing it would
    // dereference nothing.
    if (tensor->quantization && tensor->quantization->details.type != tflite::QuantizationDetails_NONE &&
        !tensor->quantization->details.value)
      throw CompileError(where + ": a tensor's quantisation details name a type but hold no table");
    if (tensor->sparsity)
      for (const auto& d : tensor->sparsity->dim_metadata)
        if (d && ((d->array_segments.type != tflite::SparseIndexVector_NONE && !d->array_segments.value) ||
                  (d->array_indices.type != tflite::SparseIndexVector_NONE && !d->array_indices.value)))
          throw CompileError(where + ": a tensor's sparsity names an index vector type but holds none");
    if (tensor->buffer > 0) {
      const tflite::Buffer* b = model.buffers()->Get(tensor->buffer);
      auto copy = std::make_unique<tflite::BufferT>();
      if (b->data()) {
        copy->data.assign(b->data()->begin(), b->data()->end());
      } else if (b->offset() > 1) {  // a large model's data after the flatbuffer
        if (b->offset() > file.size() || b->size() > file.size() - b->offset())
          throw CompileError(where + ": a buffer lies outside the file");
        copy->data.assign(file.begin() + static_cast<long>(b->offset()), file.begin() + static_cast<long>(b->offset() + b->size()));
      }
      tensor->buffer = static_cast<std::uint32_t>(out.buffers.size());
      out.buffers.push_back(std::move(copy));
    }
    const int k = static_cast<int>(subgraph->tensors.size());
    subgraph->tensors.push_back(std::move(tensor));
    index[t] = k;
    return k;
  };
  std::unique_ptr<tflite::OperatorT> copy(op.UnPack());
  if (copy->builtin_options.type != tflite::BuiltinOptions_NONE && !copy->builtin_options.value)
    throw CompileError(where + ": builtin_options names a type but holds no table");
  copy->opcode_index = 0;
  for (auto& t : copy->inputs) t = take(t);
  for (auto& t : copy->outputs) t = take(t);
  for (auto& t : copy->intermediates) t = take(t);
  for (int t : inputs) subgraph->inputs.push_back(index.at(t));
  subgraph->outputs = copy->outputs;
  subgraph->operators.push_back(std::move(copy));
  out.subgraphs.push_back(std::move(subgraph));
  flatbuffers::FlatBufferBuilder fbb;
  tflite::FinishModelBuffer(fbb, tflite::Model::Pack(fbb, &out));
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

}  // namespace npu::compiler::tflite_import
