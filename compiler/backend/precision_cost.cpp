#include "compiler/backend/precision_cost.h"

#include <algorithm>

#include "compiler/backend/codegen.h"
#include "compiler/backend/layout.h"
#include "compiler/backend/precision_converters.h"
#include "compiler/quant/quant_simulation.h"
#include "compiler/quant/quantization_stage.h"
#include "costmodel/program_estimate.h"

namespace npu::compiler {

namespace {

// When the layer's last instruction ends on the estimated timeline.
double layer_end_cycle(const cost::ProgramEstimate& est, std::size_t step_first, const LayerRecord& layer) {
  double last = 0;
  for (const std::uint32_t i : container::owned_instructions(layer, step_first + est.instructions.size()))
    last = std::max(last, est.instructions[i - step_first].end_cycle);
  return last;
}

}  // namespace

PrecisionCostModel::PrecisionCostModel(const Graph& graph, const HardwareConfig& config, const CompileOptions& options,
                                       const std::vector<std::string>& candidates)
    : graph_(graph), config_(config), options_(options) {
  options_.explain = false;
  options_.dump_dir.clear();
  options_.precision = Precision::Int8;
  const std::set<std::string> all(candidates.begin(), candidates.end());
  std::array<std::set<std::string>, 2> alternate;  // every other candidate, in graph order
  std::size_t k = 0;
  for (const auto& n : graph.nodes)
    if (all.count(n.name)) alternate[k++ % 2].insert(n.name);

  const Measured int8 = measure({});
  const Measured fp16 = measure(all);
  int8_cycles_ = int8.layer_cycles;
  fp16_cycles_ = fp16.layer_cycles;
  double q_cycles = 0, q_bytes = 0, dq_cycles = 0, dq_bytes = 0;
  for (const Measured& m : {fp16, measure(alternate[0]), measure(alternate[1])}) {
    for (const auto& [value, c] : m.quantize_cycles) {
      quantize_cycles_.emplace(value, c);
      q_cycles += c;
      q_bytes += static_cast<double>(graph.tensor(value).elements());
    }
    for (const auto& [value, c] : m.dequantize_cycles) {
      dequantize_cycles_.emplace(value, c);
      dq_cycles += c;
      dq_bytes += static_cast<double>(graph.tensor(value).elements());
    }
  }
  quantize_per_byte_ = q_bytes > 0 ? q_cycles / q_bytes : 0;
  dequantize_per_byte_ = dq_bytes > 0 ? dq_cycles / dq_bytes : quantize_per_byte_;
  if (q_bytes == 0) quantize_per_byte_ = dequantize_per_byte_;
}

PrecisionCostModel::Measured PrecisionCostModel::measure(const std::set<std::string>& fp16) const {
  Graph g = graph_;
  for (auto& n : g.nodes)
    if (fp16.count(n.name)) n.set_string("precision", "fp16");
  int transposes = 0;
  convert_layout(g, transposes);
  std::map<std::string, std::pair<std::string, std::string>> converters;  // node -> (op, value)
  if (!fp16.empty()) {
    insert_precision_converters(g);
    for (const auto& n : g.nodes)
      if (is_precision_converter(n)) converters[n.name] = {n.op_type, n.inputs[0]};
  }
  CompiledModel model;
  generate_code(g, config_, options_, model, &int8_params_);
  Measured m;
  for (const auto& step : model.steps) {
    if (step.kind != Step::Kind::Npu) continue;
    const auto& s = step.npu;
    const auto est = cost::estimate_program(model.program.code, s.first_instruction, s.end_instruction, config_);
    m.total_cycles += est.cycles;
    // Each layer is charged the time by which it moves the step's end: its end past the latest
    // end of the layers before it (they overlap; the charges add up to the step's cycles). An
    // fp16 layer's extra MAC cycles, a converter's round trip through DDR and the stalls they
    // cause all land there, where a busiest-unit count would miss the serialisation.
    double reached = 0;
    for (const auto& layer : model.layers) {
      if (layer.device != "npu" || layer.first_instruction < s.first_instruction ||
          layer.end_instruction > s.end_instruction || layer.end_instruction <= layer.first_instruction)
        continue;
      const double end = layer_end_cycle(est, s.first_instruction, layer);
      const double c = std::max(0.0, end - reached);
      reached = std::max(reached, end);
      auto conv = converters.find(layer.name);
      if (conv == converters.end()) m.layer_cycles[layer.name] += c;
      else (conv->second.first == "Quantize" ? m.quantize_cycles : m.dequantize_cycles)[conv->second.second] += c;
    }
  }
  return m;
}

double PrecisionCostModel::program_cycles(const std::set<std::string>& fp16) const { return measure(fp16).total_cycles; }

double PrecisionCostModel::cycles(const std::set<std::string>& fp16) const {
  const auto modes = resolve_layer_modes(graph_, fp16);
  std::map<std::string, LayerMode> produced;
  for (std::size_t i = 0; i < graph_.nodes.size(); ++i)
    for (const auto& o : graph_.nodes[i].outputs) produced[o] = modes[i];
  auto lookup = [](const std::map<std::string, double>& m, const std::string& key, double otherwise) {
    auto it = m.find(key);
    return it == m.end() ? otherwise : it->second;
  };
  double total = 0;
  std::set<std::string> quantized, dequantized;
  for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
    const Node& n = graph_.nodes[i];
    if (n.device != Node::Device::Npu) continue;
    const double int8 = lookup(int8_cycles_, n.name, 0);
    total += modes[i] == LayerMode::Fp16 ? lookup(fp16_cycles_, n.name, int8) : int8;
    for (const auto& v : n.inputs) {
      auto p = produced.find(v);
      if (v.empty() || graph_.is_constant(v) || p == produced.end() || !graph_.tensor(v).quant.valid()) continue;
      const double elements = static_cast<double>(graph_.tensor(v).elements());
      if (modes[i] == LayerMode::Fp16 && p->second == LayerMode::Int8 && dequantized.insert(v).second)
        total += lookup(dequantize_cycles_, v, dequantize_per_byte_ * elements);
      else if (modes[i] == LayerMode::Int8 && p->second == LayerMode::Fp16 && quantized.insert(v).second)
        total += lookup(quantize_cycles_, v, quantize_per_byte_ * elements);
    }
  }
  return total;
}

}  // namespace npu::compiler
