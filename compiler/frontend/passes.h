// The front end's graph passes: static shapes and constant folding to a fixed point, dead-node
// removal, canonical arithmetic, activation and LayerNorm patterns. Each returns a one-line
// detail for its PassSummary; the pipeline (pipeline.h) counts nodes and dumps the graph.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "compiler/core/graph.h"

namespace npu::compiler {

// Evaluates nodes whose inputs are all constant (and Shape/Size of statically shaped values);
// integer tensors exactly (constant_evaluator.h).
std::string fold_constants(Graph& graph);

// --input-value NAME=VALUE: each named one-element graph input becomes a constant of that value
// and stops being an input; returns "name = value, ...". CompileError naming the spec otherwise.
std::string fix_input_values(Graph& graph, const std::vector<std::string>& specs);

// One --input-value spec "NAME=VALUE" as (name, value); true/false are 1/0. CompileError
// prefixed with `origin` when it is not of that form or VALUE is not a finite number.
std::pair<std::string, double> parse_input_value(const std::string& spec, const std::string& origin);

// Replaces each If node whose condition is constant by the nodes of the branch it takes
// (if_folding.cpp); returns how many. A condition of more than one element is a CompileError.
int fold_known_ifs(Graph& graph);

// Replaces each Loop whose trip count is constant (at most 256, and at most 20000 nodes
// unrolled) and whose body keeps its condition true by its body repeated that many times, and
// each Scan over statically shaped inputs likewise (loop_unrolling.cpp); returns how many.
int unroll_static_loops(Graph& graph);

// The static-shape front end: shape inference, constant folding, known If nodes inlined, static
// Loops unrolled, constant parameter inputs to
// attributes (node_parameters.h) and no-op removal (a Reshape to the same shape becomes an
// Identity) repeated to a fixed point.
std::string fold_static_shapes(Graph& graph);

// A tensor still without a static shape, and the node that made it so (`node` empty: a value
// with no shape from outside, e.g. a graph input).
struct DynamicShape {
  std::string tensor, node, op, reason;
};
// One entry per origin (the tensors downstream of it are not listed again), in graph order.
std::vector<DynamicShape> find_dynamic_shapes(const Graph& graph);
// "<source>: tensor 'x' has a dynamic shape after folding: node 'n' (NonZero) makes it dynamic: ..."
std::string describe(const DynamicShape& dynamic, const std::string& source);

// Drops Identity/Dropout, nodes whose outputs nothing reads, and unused constants.
std::string remove_dead_nodes(Graph& graph);

// Div/Sub by constants -> Mul/Add, constants second, chains of Mul (or Add) by constants merged,
// x*1 and x+0 -> Identity (passes/canonicalize.cpp).
std::string canonicalize_arithmetic(Graph& graph);

// Decomposed SiLU, HardSwish, GELU (erf and tanh forms) and Mish -> one node each
// (passes/activation_patterns.cpp).
std::string fuse_activation_patterns(Graph& graph);

// Embeddings as one-hot products, Equal(ids, iota) -> Cast -> MatMul(table), -> Clip(ids, -1, V)
// -> Gather(table with a zero row appended) -> Reshape: the same values for every id, in range
// or not (frontend/one_hot_gather.cpp). The pipeline runs it only where there is one.
bool has_one_hot_products(const Graph& graph);
std::string one_hot_products_to_gathers(Graph& graph);

// ONNX Runtime's quantize_dynamic: DynamicQuantizeLinear back to float, ConvInteger /
// MatMulInteger as float Conv / MatMul by the int8 weights minus their zero points, and
// DynamicQuantizeLSTM as an LSTM with dequantised weights (frontend/dynamic_quantization.cpp).
bool has_dynamic_quantization(const Graph& graph);
std::string dynamic_quantization_to_float(Graph& graph);

// STFT and DFT of a real signal -> Conv1d and MatMul by their constant cos/sin terms
// (frontend/spectral_transforms.cpp). Before static shapes: the rewrite needs no signal length.
bool has_spectral_transforms(const Graph& graph);
std::string spectral_transforms_as_products(Graph& graph);

// A float value computed position by position from an integer input p (transformers' rotary
// cos/sin of inv_freq x float(position_ids)) -> Gather(a table of its values for p = 0 .. N-1, p)
// (frontend/position_tables.cpp). Before integer-masks; the pipeline runs it only where an
// integer input and a Cast are.
bool has_position_functions(const Graph& graph);
std::string position_functions_as_tables(Graph& graph);

// int8 programs: Where(constant bool c, x, fill beyond +-1e4) (GPT-2's causal mask) -> x + M,
// M = 0 where c keeps x and the fill elsewhere (frontend/constant_masks.cpp).
bool has_constant_masks(const Graph& graph);
std::string constant_masks_as_sums(Graph& graph);

// Attention masks from integer inputs (frontend/integer_masks.cpp): an integer graph input only
// ever cast to float (through shape-only ops) becomes a float input recorded in
// Graph::integer_valued_inputs, and Where(Cast(x, bool) or Equal(x, c), fill, y) becomes products.
// The pipeline runs it only where there is a Cast, a Where or a ScatterND.
bool has_integer_masks(const Graph& graph);
std::string float_masks_from_integers(Graph& graph);

// Grouped-query attention's K/V heads repeated for their query heads (Reshape(Expand(Unsqueeze)))
// and read by an attention MatMul -> that MatMul per K/V group on the unrepeated heads, the query
// heads of a group as its rows (frontend/grouped_kv_heads.cpp). The pipeline runs it only where
// there is an Expand.
bool has_repeated_kv_heads(const Graph& graph);
std::string share_grouped_kv_heads(Graph& graph);

// Rotary embeddings' rotate_half, Concat(Neg(Slice(x, upper half)), Slice(x, lower half)) on the
// last axis -> MatMul(x, a constant signed permutation) (frontend/rotate_half.cpp). The pipeline
// runs it only where there is a Neg.
bool has_negations(const Graph& graph);
std::string rotate_half_as_products(Graph& graph);

// ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div[/Mul/Add] -> LayerNormalization (opset 17).
std::string fuse_layernorm_pattern(Graph& graph);

// Variance written as mean(x^2) - mean(x)^2 becomes mean((x - mean(x))^2), which fp16 keeps
// (stable_variance.cpp); returns how many.
std::string stabilise_variance(Graph& graph);
// Whether `graph` has a mean of squares (ReduceSum/ReduceMean of x*x) for that pass to look at.
bool has_mean_of_squares(const Graph& graph);

}  // namespace npu::compiler
