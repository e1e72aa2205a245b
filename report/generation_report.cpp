#include "report/generation_report.h"

#include <fmt/format.h>

namespace npu::report {
namespace {

// The share of the DDR bound a step reaches: bound / latency (1 = as fast as its bytes allow).
double of_bound(const runtime::GenerationStep& s) { return s.latency_us > 0 ? s.bound_us / s.latency_us : 0.0; }

std::string step_name(const runtime::GenerationStep& s, std::size_t index) {
  return s.phase == "prefill" ? std::string("prefill") : fmt::format("decode {}", index);
}

}  // namespace

std::string format_generation(const runtime::GenerationResult& r) {
  std::string out = fmt::format("generate {} + {} | {} | prompt {} tokens, {} decode steps, vocabulary {} | DDR {:g} GB/s\n",
                                r.prefill_model, r.decode_model, r.precision, r.prompt, r.steps.size() - 1,
                                r.vocabulary, r.ddr_gbps);
  out += fmt::format("{:<10} {:>6} {:>7} {:>12} {:>11} {:>11} {:>11} {:>8} {:>10} {:>7}\n", "step", "past", "tokens",
                     "latency us", "weights B", "K/V B", "bound us", "of bound", "energy uJ", "token");
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const auto& s = r.steps[i];
    out += fmt::format("{:<10} {:>6} {:>7} {:>12.3f} {:>11} {:>11} {:>11.3f} {:>8.2f} {:>10} {:>7}\n", step_name(s, i),
                       s.past, s.new_tokens, s.latency_us, s.weight_bytes, s.kv_bytes, s.bound_us, of_bound(s),
                       s.energy_uj < 0 ? std::string("-") : fmt::format("{:.3f}", s.energy_uj),
                       s.token < 0 ? std::string("-") : std::to_string(s.token));
  }
  out += fmt::format("time to first token {:.3f} us (the prefill) | decode {:.3f} us for {} tokens: {:.0f} tokens/s",
                     r.time_to_first_token_us(), r.decode_us(), r.steps.size() - 1, r.tokens_per_second());
  const double e = r.energy_per_token_uj();
  out += e < 0 ? std::string("\n") : fmt::format(" | {:.3f} uJ per token\n", e);
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  return out;
}

nlohmann::json generation_json(const runtime::GenerationResult& r) {
  nlohmann::json j;
  j["prefill_model"] = r.prefill_model;
  j["decode_model"] = r.decode_model;
  j["precision"] = r.precision;
  j["prompt"] = r.prompt;
  j["vocabulary"] = r.vocabulary;
  j["timing_only"] = r.timing_only;
  j["ddr_gbps"] = r.ddr_gbps;
  j["prompt_ids"] = r.prompt_ids;
  j["steps"] = nlohmann::json::array();
  for (const auto& s : r.steps) {
    nlohmann::json step = {{"phase", s.phase},       {"past", s.past},         {"tokens", s.new_tokens},
                           {"latency_us", s.latency_us}, {"npu_us", s.npu_us},     {"cycles", s.cycles},
                           {"weight_bytes", s.weight_bytes}, {"kv_bytes", s.kv_bytes}, {"bound_us", s.bound_us},
                           {"of_bound", of_bound(s)}};
    if (s.energy_uj >= 0) step["energy_uj"] = s.energy_uj;
    if (s.token >= 0) step["token"] = s.token;
    if (!s.top.empty()) {
      step["top_tokens"] = nlohmann::json::array();
      step["top_logits"] = nlohmann::json::array();
      for (const auto& [token, logit] : s.top) {
        step["top_tokens"].push_back(token);
        step["top_logits"].push_back(logit);
      }
    }
    j["steps"].push_back(step);
  }
  j["time_to_first_token_us"] = r.time_to_first_token_us();
  j["decode_us"] = r.decode_us();
  j["tokens_per_s"] = r.tokens_per_second();
  if (r.energy_per_token_uj() >= 0) j["energy_per_token_uj"] = r.energy_per_token_uj();
  j["notes"] = r.notes;
  return j;
}

void write_generation_trace(const runtime::GenerationResult& r, std::ostream& out) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"ph", "M"}, {"pid", 1}, {"name", "process_name"}, {"args", {{"name", "npusim generate"}}}});
  events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", 1}, {"name", "thread_name"}, {"args", {{"name", "steps"}}}});
  double at = 0;
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const auto& s = r.steps[i];
    nlohmann::json args = {{"past", s.past}, {"tokens", s.new_tokens}, {"bound_us", s.bound_us},
                           {"of_bound", of_bound(s)}, {"weight_bytes", s.weight_bytes}, {"kv_bytes", s.kv_bytes}};
    if (s.token >= 0) args["token"] = s.token;
    events.push_back({{"ph", "X"}, {"pid", 1}, {"tid", 1}, {"name", step_name(s, i)}, {"ts", at}, {"dur", s.latency_us},
                      {"args", args}});
    at += s.latency_us;
  }
  out << nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump() << "\n";
}

}  // namespace npu::report
