#include "compiler/frontend/tflite/tflite_tensors.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>

namespace npu::compiler::tflite_import {
namespace {

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while ((mantissa & 0x400u) == 0);
      bits = sign | static_cast<std::uint32_t>(127 - 15 - e) << 23 | (mantissa & 0x3ffu) << 13;
    }
  } else if (exponent == 31) {
    bits = sign | 0x7f800000u | mantissa << 13;
  } else {
    bits = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

int element_type(tflite::TensorType type) {
  switch (type) {
    case tflite::TensorType_FLOAT32: return kFloat;
    case tflite::TensorType_FLOAT16: return kFloat16;
    case tflite::TensorType_FLOAT64: return kDouble;
    case tflite::TensorType_INT8: return kInt8;
    case tflite::TensorType_UINT8: return kUint8;
    case tflite::TensorType_INT16: return 5;
    case tflite::TensorType_UINT16: return 4;
    case tflite::TensorType_INT32: return kInt32;
    case tflite::TensorType_UINT32: return 12;
    case tflite::TensorType_INT64: return kInt64;
    case tflite::TensorType_BOOL: return kBool;
    case tflite::TensorType_INT4:
    case tflite::TensorType_INT2: return kInt8;  // sub-byte weights, unpacked to one value each
    case tflite::TensorType_UINT4: return kUint8;
    case tflite::TensorType_RESOURCE:
    case tflite::TensorType_VARIANT: return -1;
    default: return -2;
  }
}

// Elements packed per byte: INT4/UINT4 two (low nibble first), INT2 four; 1 otherwise.
int elements_per_byte(tflite::TensorType type) {
  return type == tflite::TensorType_INT2 ? 4 : (type == tflite::TensorType_INT4 || type == tflite::TensorType_UINT4) ? 2 : 1;
}

std::int64_t unpack_sub_byte(const std::uint8_t* data, std::size_t k, tflite::TensorType type) {
  const int per_byte = elements_per_byte(type), bits = 8 / per_byte;
  const unsigned raw = (data[k / static_cast<std::size_t>(per_byte)] >> (bits * static_cast<int>(k % static_cast<std::size_t>(per_byte)))) &
                       ((1u << bits) - 1u);
  if (type == tflite::TensorType_UINT4) return raw;
  return static_cast<std::int64_t>(raw) - ((raw >> (bits - 1)) ? (1 << bits) : 0);  // sign-extend
}

std::size_t element_bytes(tflite::TensorType type) {
  switch (type) {
    case tflite::TensorType_FLOAT64:
    case tflite::TensorType_INT64: return 8;
    case tflite::TensorType_FLOAT32:
    case tflite::TensorType_INT32:
    case tflite::TensorType_UINT32: return 4;
    case tflite::TensorType_FLOAT16:
    case tflite::TensorType_INT16:
    case tflite::TensorType_UINT16: return 2;
    default: return 1;
  }
}

template <typename T>
T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Values of a SparseIndexVector (Int32Vector, Uint16Vector or Uint8Vector).
std::vector<std::int64_t> index_vector(tflite::SparseIndexVector type, const void* table) {
  std::vector<std::int64_t> out;
  auto copy = [&](const auto* v) {
    if (v && v->values()) out.assign(v->values()->begin(), v->values()->end());
  };
  switch (type) {
    case tflite::SparseIndexVector_Int32Vector: copy(static_cast<const tflite::Int32Vector*>(table)); break;
    case tflite::SparseIndexVector_Uint16Vector: copy(static_cast<const tflite::Uint16Vector*>(table)); break;
    case tflite::SparseIndexVector_Uint8Vector: copy(static_cast<const tflite::Uint8Vector*>(table)); break;
    default: break;
  }
  return out;
}

// The dense layout of a sparse constant (TFLite's SparsityParameters: the dimensions are
// traversed in traversal_order, original dimensions first, then block dimensions, each either
// dense or compressed as CSR segments and indices): the position in the dense tensor of each
// stored value, in storage order.
std::vector<std::int64_t> sparse_positions(const tflite::SparsityParameters& sp, const std::vector<std::int64_t>& shape,
                                           std::int64_t elements, const std::string& where) {
  const auto* traversal = sp.traversal_order();
  const auto* metadata = sp.dim_metadata();
  const std::size_t rank = shape.size();
  if (!traversal || !metadata || traversal->size() < rank || metadata->size() != traversal->size())
    throw CompileError(where + ": sparsity: traversal_order and dim_metadata must cover every dimension");
  const std::size_t levels = traversal->size();
  std::vector<int> block_map;
  if (sp.block_map()) block_map.assign(sp.block_map()->begin(), sp.block_map()->end());
  if (block_map.size() != levels - rank) throw CompileError(where + ": sparsity: block_map does not match the block dimensions");
  struct Level {
    bool dense;
    std::int64_t size;
    std::vector<std::int64_t> segments, indices;
  };
  std::vector<Level> level(levels);
  std::vector<std::int64_t> block_size(levels - rank, 1);
  for (std::size_t l = 0; l < levels; ++l) {
    const auto* m = metadata->Get(static_cast<flatbuffers::uoffset_t>(l));
    if (!m) throw CompileError(where + ": sparsity: dim_metadata " + std::to_string(l) + " is missing");
    level[l].dense = m->format() == tflite::DimensionType_DENSE;
    level[l].size = m->dense_size();
    if (!level[l].dense) {
      level[l].segments = index_vector(m->array_segments_type(), m->array_segments());
      level[l].indices = index_vector(m->array_indices_type(), m->array_indices());
    }
    const int dim = traversal->Get(static_cast<flatbuffers::uoffset_t>(l));
    if (dim < 0 || static_cast<std::size_t>(dim) >= levels) throw CompileError(where + ": sparsity: traversal_order entry out of range");
    if (static_cast<std::size_t>(dim) >= rank) {
      if (!level[l].dense && level[l].size == 0) throw CompileError(where + ": sparsity: a block dimension has no size");
      block_size[static_cast<std::size_t>(dim) - rank] = level[l].size;
    }
  }
  for (int b : block_map)
    if (b < 0 || static_cast<std::size_t>(b) >= rank) throw CompileError(where + ": sparsity: block_map entry out of range");
  std::vector<std::int64_t> positions, at(levels);
  std::function<void(std::size_t, std::int64_t)> walk = [&](std::size_t l, std::int64_t prev) {
    if (l == levels) {
      std::vector<std::int64_t> index(rank, 0);
      std::size_t i = 0;
      for (; i < rank; ++i) index[static_cast<std::size_t>(traversal->Get(static_cast<flatbuffers::uoffset_t>(i)))] = at[i];
      for (; i < levels; ++i) {
        const std::size_t b = static_cast<std::size_t>(traversal->Get(static_cast<flatbuffers::uoffset_t>(i))) - rank;
        const auto d = static_cast<std::size_t>(block_map[b]);
        index[d] = index[d] * block_size[b] + at[i];
      }
      std::int64_t linear = 0;
      for (std::size_t d = 0; d < rank; ++d) {
        if (index[d] < 0 || index[d] >= shape[d]) throw CompileError(where + ": sparsity: an index lies outside the tensor");
        linear = linear * shape[d] + index[d];
      }
      if (static_cast<std::int64_t>(positions.size()) >= elements)
        throw CompileError(where + ": sparsity: more stored values than the tensor has elements");
      positions.push_back(linear);
      return;
    }
    const Level& lv = level[l];
    if (lv.dense) {
      for (std::int64_t i = 0; i < lv.size; ++i) {
        at[l] = i;
        walk(l + 1, prev * lv.size + i);
      }
      return;
    }
    if (prev < 0 || static_cast<std::size_t>(prev) + 1 >= lv.segments.size())
      throw CompileError(where + ": sparsity: array_segments too short");
    for (std::int64_t i = lv.segments[static_cast<std::size_t>(prev)]; i < lv.segments[static_cast<std::size_t>(prev) + 1]; ++i) {
      if (i < 0 || static_cast<std::size_t>(i) >= lv.indices.size()) throw CompileError(where + ": sparsity: array_indices too short");
      at[l] = lv.indices[static_cast<std::size_t>(i)];
      walk(l + 1, i);
    }
  };
  walk(0, 0);
  return positions;
}

}  // namespace

std::vector<TensorInfo> read_tensors(const std::vector<std::uint8_t>& file, const tflite::Model& model,
                                     const tflite::SubGraph& subgraph, const std::string& origin, std::uint64_t max_tensor_bytes,
                                     std::int64_t dynamic_size) {
  std::vector<TensorInfo> out;
  const auto* tensors = subgraph.tensors();
  if (!tensors) return out;
  std::map<std::string, int> seen;
  for (flatbuffers::uoffset_t i = 0; i < tensors->size(); ++i) {
    const tflite::Tensor* t = tensors->Get(i);
    TensorInfo info;
    info.name = t->name() && t->name()->size() ? t->name()->str() : "tensor_" + std::to_string(i);
    if (seen[info.name]++) info.name += "_" + std::to_string(i);
    const std::string where = origin + ": tensor " + std::to_string(i) + " ('" + info.name + "')";
    info.elem_type = element_type(t->type());
    if (info.elem_type == -2)
      throw CompileError(where + ": element type " + std::string(tflite::EnumNameTensorType(t->type())) +
                         " is not supported (float, int and bool tensors only)");
    if (t->shape())
      for (auto d : *t->shape()) {
        if (d < 0) throw CompileError(where + ": negative dimension " + std::to_string(d));
        info.shape.push_back(d);
      }
    if (const auto* signature = t->shape_signature(); dynamic_size >= 0 && signature && signature->size() == info.shape.size())
      for (flatbuffers::uoffset_t d = 0; d < signature->size(); ++d)
        if (signature->Get(d) == -1) info.shape[d] = dynamic_size;
    info.variable = t->is_variable();
    if (const auto* q = t->quantization()) {
      if (q->scale()) info.scales.assign(q->scale()->begin(), q->scale()->end());
      if (const auto* zp = q->zero_point()) {
        // flatbuffers' verifier checks this vector's alignment to 4 bytes only; every writer aligns
        // it to 8, and reading one that is not is undefined behaviour.
        if (reinterpret_cast<std::uintptr_t>(zp->Data()) % alignof(std::int64_t) != 0)
          throw CompileError(where + ": zero_point vector is not 8-byte aligned (not written by a flatbuffers builder)");
        info.zero_points.resize(zp->size());
        if (zp->size()) std::memcpy(info.zero_points.data(), zp->Data(), zp->size() * sizeof(std::int64_t));
      }
      info.quant_axis = q->quantized_dimension();
      if (info.scales.size() > 1 &&
          (info.quant_axis < 0 || static_cast<std::size_t>(info.quant_axis) >= info.shape.size() ||
           info.shape[static_cast<std::size_t>(info.quant_axis)] != static_cast<std::int64_t>(info.scales.size())))
        throw CompileError(where + ": " + std::to_string(info.scales.size()) + " scales do not match quantized_dimension " +
                           std::to_string(info.quant_axis) + " of shape " + shape_string(info.shape));
      for (float s : info.scales)
        if (!(s > 0.0f) || !std::isfinite(s)) throw CompileError(where + ": quantisation scale " + std::to_string(s) + " is not a positive number");
      for (auto z : info.zero_points)  // within the quantised type's own range (int32 biases, int8 values, ...)
        if (z < std::numeric_limits<std::int32_t>::min() || z > std::numeric_limits<std::int32_t>::max() ||
            (info.elem_type == kInt8 && (z < -128 || z > 127)) || (info.elem_type == kUint8 && (z < 0 || z > 255)))
          throw CompileError(where + ": zero point " + std::to_string(z) + " is outside the range of its " +
                             elem_type_name(info.elem_type) + " values");
    }
    // Bounded before anything is allocated by it: the file's shapes are not trusted.
    const std::int64_t most = static_cast<std::int64_t>(max_tensor_bytes / 4);
    std::int64_t elements = 1;
    for (auto d : info.shape) {
      if (d != 0 && elements > most / d)
        throw CompileError(where + ": shape " + shape_string(info.shape) + " is larger than npusim handles (" +
                           std::to_string(max_tensor_bytes >> 20) + " MiB as FP32)");
      elements *= d;
    }
    // Buffer 0 is the empty sentinel; data may sit in the buffer or, for files over 2 GB, at an
    // offset from the file's start.
    const std::uint8_t* data = nullptr;
    std::size_t size = 0;
    if (t->buffer() > 0) {
      if (!model.buffers() || t->buffer() >= model.buffers()->size())
        throw CompileError(where + ": buffer " + std::to_string(t->buffer()) + " does not exist");
      const tflite::Buffer* b = model.buffers()->Get(t->buffer());
      if (b && b->data() && b->data()->size()) {
        data = b->data()->data();
        size = b->data()->size();
      } else if (b && b->offset() > 1) {
        if (b->offset() > file.size() || b->size() > file.size() - b->offset())
          throw CompileError(where + ": buffer " + std::to_string(t->buffer()) + " lies outside the file");
        data = file.data() + b->offset();
        size = b->size();
      }
    }
    if (data && size) {
      info.constant = true;
      if (info.elem_type < 0) throw CompileError(where + ": a resource tensor cannot hold data");
      const std::size_t es = element_bytes(t->type());
      std::vector<std::int64_t> positions;
      std::size_t stored = static_cast<std::size_t>(elements);
      if (t->sparsity()) {
        positions = sparse_positions(*t->sparsity(), info.shape, elements, where);
        stored = positions.size();
      }
      const auto per_byte = static_cast<std::size_t>(elements_per_byte(t->type()));
      if (per_byte > 1 && !positions.empty()) throw CompileError(where + ": sparse sub-byte weights are not supported");
      if (size < (stored * es + per_byte - 1) / per_byte)
        throw CompileError(where + ": buffer holds " + std::to_string(size) + " bytes, the tensor needs " +
                           std::to_string((stored * es + per_byte - 1) / per_byte));
      const bool floating = info.elem_type == kFloat || info.elem_type == kFloat16 || info.elem_type == kDouble;
      auto place = [&](auto& target, std::size_t k, auto v) {
        target[positions.empty() ? k : static_cast<std::size_t>(positions[k])] = v;
      };
      if (floating) {
        info.floats.assign(static_cast<std::size_t>(elements), 0.0f);
        for (std::size_t k = 0; k < stored; ++k) {
          const std::uint8_t* p = data + k * es;
          place(info.floats, k,
                info.elem_type == kFloat     ? load<float>(p)
                : info.elem_type == kFloat16 ? half_to_float(load<std::uint16_t>(p))
                                             : static_cast<float>(load<double>(p)));
        }
        info.elem_type = kFloat;  // FP16 and FP64 weights are widened here
      } else {
        info.ints.assign(static_cast<std::size_t>(elements), 0);
        for (std::size_t k = 0; k < stored; ++k) {
          const std::uint8_t* p = data + k * es;
          std::int64_t v = 0;
          if (per_byte > 1) {
            place(info.ints, k, unpack_sub_byte(data, k, t->type()));
            continue;
          }
          switch (t->type()) {
            case tflite::TensorType_INT8: v = load<std::int8_t>(p); break;
            case tflite::TensorType_UINT8:
            case tflite::TensorType_BOOL: v = *p; break;
            case tflite::TensorType_INT16: v = load<std::int16_t>(p); break;
            case tflite::TensorType_UINT16: v = load<std::uint16_t>(p); break;
            case tflite::TensorType_INT32: v = load<std::int32_t>(p); break;
            case tflite::TensorType_UINT32: v = load<std::uint32_t>(p); break;
            default: v = load<std::int64_t>(p); break;
          }
          place(info.ints, k, v);
        }
      }
    }
    out.push_back(std::move(info));
  }
  // Block-wise quantised weights (scales in another tensor, one per block of `block_size`
  // along the last axis): dequantised here to float constants.
  for (flatbuffers::uoffset_t i = 0; i < tensors->size(); ++i) {
    const auto* q = tensors->Get(i)->quantization();
    const auto* block = q ? q->details_as_BlockwiseQuantization() : nullptr;
    if (!block) continue;
    TensorInfo& w = out[i];
    const std::string where = origin + ": tensor " + std::to_string(i) + " ('" + w.name + "')";
    const int si = block->scales(), zi = block->zero_points();
    if (!w.constant || w.ints.empty() || w.shape.empty() || block->block_size() <= 0 || si < 0 ||
        static_cast<std::size_t>(si) >= out.size() || !out[static_cast<std::size_t>(si)].constant ||
        (zi >= 0 && (static_cast<std::size_t>(zi) >= out.size() || !out[static_cast<std::size_t>(zi)].constant)))
      throw CompileError(where + ": block-wise quantisation needs constant weights, a positive block_size and constant scales");
    const TensorInfo& scales = out[static_cast<std::size_t>(si)];
    const std::int64_t inner = w.shape.back(), blocks = (inner + block->block_size() - 1) / block->block_size();
    if (static_cast<std::int64_t>(scales.floats.size()) * inner != static_cast<std::int64_t>(w.ints.size()) * blocks)
      throw CompileError(where + ": " + std::to_string(scales.floats.size()) + " block scales do not match shape " +
                         shape_string(w.shape) + " in blocks of " + std::to_string(block->block_size()));
    std::vector<float> values(w.ints.size());
    for (std::size_t k = 0; k < values.size(); ++k) {
      const std::size_t row = k / static_cast<std::size_t>(inner), col = k % static_cast<std::size_t>(inner);
      const std::size_t b = row * static_cast<std::size_t>(blocks) + col / static_cast<std::size_t>(block->block_size());
      const std::int64_t zp = zi >= 0 ? out[static_cast<std::size_t>(zi)].ints.at(b) : 0;
      values[k] = scales.floats[b] * static_cast<float>(w.ints[k] - zp);
    }
    w.floats = std::move(values);
    w.ints.clear();
    w.scales.clear();
    w.zero_points.clear();
    w.elem_type = kFloat;
  }
  return out;
}

}  // namespace npu::compiler::tflite_import
