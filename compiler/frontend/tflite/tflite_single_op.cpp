#include "compiler/frontend/tflite/tflite_single_op.h"

#include <map>
#include <memory>

#include "compiler/core/graph.h"

namespace npu::compiler::tflite_import {
namespace {

// Copies parts of one model into another: tensors with their buffers, operator codes, and whole
// subgraphs an operator calls (IF branches, WHILE cond and body, CALL_ONCE init), each copied once.
class Copier {
 public:
  Copier(const std::vector<std::uint8_t>& file, const tflite::Model& model, const std::string& where)
      : file_(file), model_(model), where_(where) {
    out_.version = 3;
    out_.description = "npusim: one operator for LiteRT";
    out_.buffers.push_back(std::make_unique<tflite::BufferT>());  // buffer 0: the empty sentinel
    out_.subgraphs.push_back(std::make_unique<tflite::SubGraphT>());  // the operator's own
  }

  tflite::ModelT& model() { return out_; }

  // Tensor `t` of source subgraph `from`, appended to `to` (once per `to`).
  int tensor(int from, int t, tflite::SubGraphT& to, std::map<int, int>& index) {
    if (t < 0) return -1;
    if (const auto found = index.find(t); found != index.end()) return found->second;
    const auto* tensors = model_.subgraphs()->Get(static_cast<flatbuffers::uoffset_t>(from))->tensors();
    if (!tensors || static_cast<flatbuffers::uoffset_t>(t) >= tensors->size())
      throw CompileError(where_ + ": subgraph " + std::to_string(from) + " has no tensor " + std::to_string(t));
    std::unique_ptr<tflite::TensorT> tensor(tensors->Get(static_cast<flatbuffers::uoffset_t>(t))->UnPack());
    // A union whose type is set but whose table is absent passes the verifier; packing it would
    // dereference nothing.
    if (tensor->quantization && tensor->quantization->details.type != tflite::QuantizationDetails_NONE &&
        !tensor->quantization->details.value)
      throw CompileError(where_ + ": a tensor's quantisation details name a type but hold no table");
    if (tensor->sparsity)
      for (const auto& d : tensor->sparsity->dim_metadata)
        if (d && ((d->array_segments.type != tflite::SparseIndexVector_NONE && !d->array_segments.value) ||
                  (d->array_indices.type != tflite::SparseIndexVector_NONE && !d->array_indices.value)))
          throw CompileError(where_ + ": a tensor's sparsity names an index vector type but holds none");
    if (tensor->buffer > 0) tensor->buffer = buffer(tensor->buffer);
    const int k = static_cast<int>(to.tensors.size());
    to.tensors.push_back(std::move(tensor));
    index[t] = k;
    return k;
  }

  // Operator `op` of source subgraph `from`, appended to `to`.
  void op(int from, const tflite::Operator& op, tflite::SubGraphT& to, std::map<int, int>& index) {
    std::unique_ptr<tflite::OperatorT> copy(op.UnPack());
    if (copy->builtin_options.type != tflite::BuiltinOptions_NONE && !copy->builtin_options.value)
      throw CompileError(where_ + ": builtin_options names a type but holds no table");
    if (op.builtin_options_2_type() != tflite::BuiltinOptions2_NONE)
      throw CompileError(where_ + ": StableHLO operators are not supported");
    copy->opcode_index = code(op.opcode_index());
    for (auto& t : copy->inputs) t = tensor(from, t, to, index);
    for (auto& t : copy->outputs) t = tensor(from, t, to, index);
    for (auto& t : copy->intermediates) t = tensor(from, t, to, index);
    if (auto* o = copy->builtin_options.AsIfOptions()) {
      o->then_subgraph_index = subgraph(o->then_subgraph_index);
      o->else_subgraph_index = subgraph(o->else_subgraph_index);
    } else if (auto* w = copy->builtin_options.AsWhileOptions()) {
      w->cond_subgraph_index = subgraph(w->cond_subgraph_index);
      w->body_subgraph_index = subgraph(w->body_subgraph_index);
    } else if (auto* c = copy->builtin_options.AsCallOnceOptions()) {
      c->init_subgraph_index = subgraph(c->init_subgraph_index);
    }
    to.operators.push_back(std::move(copy));
  }

 private:
  std::uint32_t buffer(std::uint32_t b) {
    if (const auto found = buffers_.find(b); found != buffers_.end()) return found->second;
    if (!model_.buffers() || b >= model_.buffers()->size()) throw CompileError(where_ + ": buffer " + std::to_string(b) + " does not exist");
    const tflite::Buffer* source = model_.buffers()->Get(b);
    auto copy = std::make_unique<tflite::BufferT>();
    if (source->data()) {
      copy->data.assign(source->data()->begin(), source->data()->end());
    } else if (source->offset() > 1) {  // a large model's data after the flatbuffer
      if (source->offset() > file_.size() || source->size() > file_.size() - source->offset())
        throw CompileError(where_ + ": a buffer lies outside the file");
      copy->data.assign(file_.begin() + static_cast<long>(source->offset()),
                        file_.begin() + static_cast<long>(source->offset() + source->size()));
    }
    const auto k = static_cast<std::uint32_t>(out_.buffers.size());
    out_.buffers.push_back(std::move(copy));
    buffers_[b] = k;
    return k;
  }

  std::uint32_t code(std::uint32_t c) {
    if (const auto found = codes_.find(c); found != codes_.end()) return found->second;
    if (!model_.operator_codes() || c >= model_.operator_codes()->size())
      throw CompileError(where_ + ": opcode_index " + std::to_string(c) + " has no operator code");
    const auto k = static_cast<std::uint32_t>(out_.operator_codes.size());
    out_.operator_codes.emplace_back(model_.operator_codes()->Get(c)->UnPack());
    codes_[c] = k;
    return k;
  }

  // Source subgraph `s` copied whole; its index in the new model.
  int subgraph(int s) {
    if (const auto found = subgraphs_.find(s); found != subgraphs_.end()) return found->second;
    if (s < 0 || !model_.subgraphs() || static_cast<flatbuffers::uoffset_t>(s) >= model_.subgraphs()->size())
      throw CompileError(where_ + ": the operator calls subgraph " + std::to_string(s) + ", which does not exist");
    const int k = static_cast<int>(out_.subgraphs.size());
    subgraphs_[s] = k;
    out_.subgraphs.push_back(std::make_unique<tflite::SubGraphT>());
    const tflite::SubGraph& source = *model_.subgraphs()->Get(static_cast<flatbuffers::uoffset_t>(s));
    auto copy = std::make_unique<tflite::SubGraphT>();
    std::map<int, int> index;
    // Every tensor, in order: the subgraph's inputs and outputs keep their meaning.
    if (source.tensors())
      for (flatbuffers::uoffset_t t = 0; t < source.tensors()->size(); ++t) tensor(s, static_cast<int>(t), *copy, index);
    if (source.operators())
      for (const auto* o : *source.operators()) op(s, *o, *copy, index);
    if (source.inputs()) copy->inputs.assign(source.inputs()->begin(), source.inputs()->end());
    if (source.outputs()) copy->outputs.assign(source.outputs()->begin(), source.outputs()->end());
    if (source.name()) copy->name = source.name()->str();
    out_.subgraphs[static_cast<std::size_t>(k)] = std::move(copy);
    return k;
  }

  const std::vector<std::uint8_t>& file_;
  const tflite::Model& model_;
  std::string where_;
  tflite::ModelT out_;
  std::map<std::uint32_t, std::uint32_t> buffers_, codes_;
  std::map<int, int> subgraphs_;
};

}  // namespace

std::vector<std::uint8_t> single_operator_model(const std::vector<std::uint8_t>& file, const tflite::Model& model, int subgraph,
                                                const tflite::Operator& op, const std::vector<int>& inputs,
                                                const std::string& where) {
  // StableHLO options hold int64 vectors the verifier does not check for alignment; no
  // translation reads them, and neither does this copy.
  if (op.builtin_options_2_type() != tflite::BuiltinOptions2_NONE)
    throw CompileError(where + ": StableHLO operators are not supported");
  Copier copier(file, model, where);
  auto main = std::make_unique<tflite::SubGraphT>();
  std::map<int, int> index;
  copier.op(subgraph, op, *main, index);
  for (int t : inputs) main->inputs.push_back(index.at(t));
  main->outputs = main->operators.back()->outputs;
  copier.model().subgraphs[0] = std::move(main);
  flatbuffers::FlatBufferBuilder fbb;
  tflite::FinishModelBuffer(fbb, tflite::Model::Pack(fbb, &copier.model()));
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

}  // namespace npu::compiler::tflite_import
