#include "compiler/pipeline.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "compiler/backend/integer_boundary.h"
#include "compiler/backend/layout.h"
#include "compiler/backend/partition.h"
#include "compiler/backend/precision_converters.h"
#include "compiler/backend/precision_cost.h"
#include "compiler/frontend/model_import.h"
#include "compiler/frontend/onnx_io.h"
#include "compiler/frontend/opset_upgrade.h"
#include "compiler/frontend/passes.h"
#include "compiler/frontend/shape_inference.h"
#include "compiler/frontend/tflite/tflite_import.h"
#include "compiler/passes/passes.h"
#include "compiler/quant/host_node_runner.h"
#include "compiler/quant/qdq_import.h"
#include "compiler/quant/quant_simulation.h"
#include "compiler/quant/quantize.h"
#include "compiler/quant/weight_bits.h"

namespace npu::compiler {


namespace {

// Domains whose ops something can run: ONNX's (NPU or the CPU fallback), ONNX Runtime's own
// (CPU fallback), and the compiler's internal ops.
bool runnable_domain(const std::string& d) {
  return d.empty() || d == "ai.onnx" || d == "npusim" || d == "ai.onnx.ml" || d == "com.microsoft" ||
         d == "ai.onnx.preview.training" || d == kTfliteOnlyDomain;
}

// An op nobody can run is one line naming the node, before anything is planned around it.
void check_runnable(const Graph& g, std::vector<std::string>* warnings) {
  for (const auto& n : g.nodes)
    if (n.domain == kTfliteOnlyDomain && warnings && n.op_type != "IF" && n.op_type != "WHILE")  // partition says why
      warnings->push_back(g.source + ": node '" + n.name + "' (TFLite " + n.op_type +
                          ") has no ONNX equivalent: it is placed on the CPU and timed by its output size; a timing-only "
                          "run works, a functional run stops at it");
  for (const auto& n : g.nodes) {
    if (!runnable_domain(n.domain))
      throw CompileError(g.source + ": node '" + n.name + "' (" + n.op_type + ") is of domain '" + n.domain +
                         "', which neither the NPU nor the CPU fallback (ONNX Runtime) runs");
    for (const auto* names : {&n.inputs, &n.outputs})
      for (const auto& v : *names)
        if (!v.empty() && g.tensor(v).elem_type == 8)
          throw CompileError(g.source + ": node '" + n.name + "' (" + n.op_type + ") uses string tensor '" + v +
                             "'; npusim holds numeric tensors only");
  }
}

// A shape still dynamic after folding: a warning naming the tensor and the node that made it
// so (its consumers fall back to the CPU), or with --strict an error.
void report_dynamic_shapes(const Graph& g, const CompileOptions& options, std::vector<std::string>* warnings) {
  for (const auto& d : find_dynamic_shapes(g)) {
    if (options.strict) throw CompileError("--strict: " + describe(d, g.source));
    if (warnings) warnings->push_back(describe(d, g.source) + "; the nodes that read it run on the CPU");
  }
}

}  // namespace

Graph import_and_optimize(const std::string& onnx_path, const CompileOptions& options,
                          std::vector<PassSummary>& summaries, Graph* before_fusion,
                          std::vector<std::string>* warnings) {
  std::function<void(const Graph&)> copy;
  if (before_fusion) copy = [before_fusion](const Graph& g) { *before_fusion = g; };
  return import_and_optimize(onnx_path, options, summaries, copy, warnings);
}

Graph import_and_optimize(const std::string& onnx_path, const CompileOptions& options,
                          std::vector<PassSummary>& summaries, const std::function<void(const Graph&)>& at_fusion,
                          std::vector<std::string>* warnings) {
  PassPipeline pipeline(options, summaries);
  Graph g = import_model(onnx_path, options.input_shapes, options.max_tensor_bytes);
  pipeline.record("import", g, g.nodes.size(),
                  std::to_string(g.inputs.size()) + " inputs, " + std::to_string(g.outputs.size()) +
                      " outputs, opset " + std::to_string(g.opset));
  if (!options.input_values.empty())
    pipeline.run("input-values", g, [&](Graph& x) { return fix_input_values(x, options.input_values); });
  if (has_dynamic_quantization(g)) pipeline.run("dynamic-quantization", g, dynamic_quantization_to_float);
  // Before static shapes (an STFT needs no signal length), and once more after them for a DFT
  // whose input shape only they find.
  if (has_spectral_transforms(g)) pipeline.run("spectral-transforms", g, spectral_transforms_as_products);
  pipeline.run("static-shapes", g, fold_static_shapes);
  if (has_spectral_transforms(g))
    pipeline.run("spectral-transforms", g, [](Graph& x) {
      const std::string detail = spectral_transforms_as_products(x);
      fold_static_shapes(x);
      return detail;
    });
  if (std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return n.has("tflite_model") && n.domain.empty(); }))
    pipeline.run("tflite-control-flow", g, restore_tflite_control_flow);
  if (g.opset < kCanonicalOpset) {
    pipeline.run("opset-upgrade", g, [&](Graph& x) {
      const auto from = x.opset;
      std::string why = upgrade_opset(x);
      if (!why.empty()) {
        if (warnings)
          warnings->push_back(x.source + ": kept opset " + std::to_string(from) + ": ONNX's version converter refused (" +
                              why + ")");
        return "kept opset " + std::to_string(from) + ": " + why;
      }
      return "opset " + std::to_string(from) + " -> " + std::to_string(x.opset) + "; " + fold_static_shapes(x);
    });
  }
  if (std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear"; }))
    pipeline.run("qdq-import", g, import_qdq);
  check_runnable(g, warnings);
  report_dynamic_shapes(g, options, warnings);
  if (std::any_of(g.nodes.begin(), g.nodes.end(), is_recurrent))
    pipeline.run("recurrent-lowering", g, lower_recurrent_layers);
  pipeline.run("dead-node-removal", g, remove_dead_nodes);
  // Each rewrite leaves Identity nodes and unused constants behind for dead-node removal.
  auto then_clean = [](std::string (*pass)(Graph&)) {
    return [pass](Graph& x) {
      auto d = pass(x);
      remove_dead_nodes(x);
      return d;
    };
  };
  if (has_position_functions(g)) pipeline.run("position-tables", g, then_clean(position_functions_as_tables));
  if (options.precision == Precision::Int8 && has_constant_masks(g))
    pipeline.run("constant-masks", g, then_clean(constant_masks_as_sums));
  if (has_integer_masks(g)) pipeline.run("integer-masks", g, then_clean(float_masks_from_integers));
  pipeline.run("canonicalize", g, then_clean(canonicalize_arithmetic));
  pipeline.run("activation-patterns", g, then_clean(fuse_activation_patterns));
  if (has_mean_of_squares(g)) pipeline.run("stable-variance", g, then_clean(stabilise_variance));
  pipeline.run("layernorm-pattern", g, then_clean(fuse_layernorm_pattern));
  if (has_repeated_kv_heads(g)) pipeline.run("grouped-kv-heads", g, then_clean(share_grouped_kv_heads));
  if (has_negations(g)) pipeline.run("rotate-half", g, then_clean(rotate_half_as_products));
  if (has_one_hot_products(g)) pipeline.run("one-hot-gather", g, then_clean(one_hot_products_to_gathers));
  pipeline.run("batchnorm-folding", g, then_clean(fold_batchnorm));
  if (has_batched_images(g)) pipeline.run("batch-split", g, split_batch_into_images);
  if (pools_a_concat(g)) pipeline.run("concat-pooling", g, then_clean(pool_concat_parts));
  pipeline.run("npu-lowering", g, lower_for_npu);
  if (at_fusion) at_fusion(g);
  pipeline.run("fusion", g, [](Graph& x) {
    auto d = fuse_layers(x);
    remove_dead_nodes(x);
    infer_shapes(x);
    return d;
  });
  return g;
}

NpuQuestions npu_questions(const HardwareConfig* config, const CompileOptions& options) {
  NpuQuestions npu;
  npu.fp16_rejection = [](const Graph& g, const Node& n) { return npu_rejection(g, n, Precision::Fp16); };
  if (config)
    npu.promotion_cost = [config, options](const Graph& g,
                                           const std::vector<std::string>& candidates) -> std::unique_ptr<PromotionCost> {
      try {
        return std::make_unique<PrecisionCostModel>(g, *config, options, candidates);
      } catch (const CompileError&) {  // a what-if program that cannot be generated: rank by sensitivity alone
        return nullptr;
      }
    };
  return npu;
}

Graph lower_graph(const std::string& onnx_path, const CompileOptions& options, CompiledModel& model,
                  const HardwareConfig* config) {
  model.precision = options.precision;
  Calibration calibration;
  const auto calibrate_unfused = [&](const Graph& unfused) {
    if (options.precision == Precision::Int8) calibration = calibrate(unfused, options, model.warnings);
  };
  Graph g = import_and_optimize(onnx_path, options, model.passes, calibrate_unfused, &model.warnings);
  model.model_inputs = g.inputs;
  model.model_outputs = g.outputs;
  PassPipeline pipeline(options, model.passes);

  std::size_t before = g.nodes.size();
  model.fallbacks = assign_devices(g, options.precision, options.strict);
  pipeline.record("partition", g, before,
                  std::to_string(g.nodes.size() - model.fallbacks.size()) + " npu, " +
                      std::to_string(model.fallbacks.size()) + " cpu nodes");

  if (options.precision == Precision::Int8) {
    if (options.quant.weights == WeightOnly::Int4)
      pipeline.run("int4-weights", g, [](Graph& x) { return mark_int4_weights(x); });
    before = g.nodes.size();
    pipeline.record("quantization", g, before, quantize_graph(g, calibration, options, model, npu_questions(config, options)));
    if (std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear"; }))
      pipeline.run("integer-boundary", g, [&](Graph& x) { return fold_integer_boundary(x, model); });
    if (options.strict) reject_cpu_fallbacks(g, model.fallbacks);
  }

  int transposes = 0;
  pipeline.run("layout", g, [&](Graph& x) { return convert_layout(x, transposes); });
  if (!model.quantization.fp16_layers.empty()) pipeline.run("precision-converters", g, insert_precision_converters);
  return g;
}

SensitivityReport quantization_sensitivity(const std::string& onnx_path, const CompileOptions& options,
                                           std::string& scheme, std::vector<std::string>& warnings) {
  CompileOptions plain = options;
  plain.precision = Precision::Int8;
  plain.quant.mixed = false;
  plain.quant.keep_fp16.clear();
  CompiledModel model;
  std::vector<PassSummary> passes;
  Calibration calibration;
  Graph g = import_and_optimize(
      onnx_path, plain, passes, [&](const Graph& unfused) { calibration = calibrate(unfused, plain, model.warnings); },
      &model.warnings);
  model.fallbacks = assign_devices(g, Precision::Int8, plain.strict);
  quantize_graph(g, calibration, plain, model, npu_questions(nullptr, plain));
  // Judged as compile --strict judges (the simulation below keeps the float conversions).
  if (plain.strict) require_npu_after_integer_boundary(g, model);
  const std::vector<TensorMap>& samples = calibration.samples;
  scheme = model.quantization.scheme;
  warnings = model.warnings;
  QuantSimulator sim(g, host_node_runner(g, options.host_runner));
  return analyse_sensitivity(sim, samples, npu_questions(nullptr, plain).fp16_rejection);
}


std::string format_summary(const PassSummary& s) {
  return s.pass + ": " + std::to_string(s.nodes_before) + " -> " + std::to_string(s.nodes_after) +
         " nodes" + (s.detail.empty() ? "" : " (" + s.detail + ")");
}

}  // namespace npu::compiler
