// Token generation with a decoder exported as two graphs, as Hugging Face Optimum and the
// PyTorch exporter give them: a prefill graph (the prompt's token ids -> logits and each layer's
// present K/V) and a decode graph (one token id and each layer's past K/V -> logits and the
// present K/V, one entry longer). The loop runs the prefill, then one decode step per generated
// token, each step's present K/V becoming the next step's past.
//
// Graph roles are told by the ONNX declarations: integer inputs named like "mask" are attention
// masks (all ones), like "position" position ids (the tokens' positions), the other integer
// input the token ids; the decode graph's float inputs are the past K/V, paired in order with its
// outputs after the first (the logits); the prefill's outputs after the first are its present
// K/V. A decode graph whose past length is dynamic is compiled once per cache length (the cache
// grows by one entry a step, in place in DDR, as NPU runtimes with static shapes compile it);
// one with a fixed past length only runs a step at that length.
//
// Each step's bound is what it must read from DDR at least: the program's constant bytes
// (weights, tables) plus the past K/V as the NPU stores it, over the DDR bandwidth.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compiler/compile.h"
#include "hwconfig/hardware_config.h"
#include "runtime/input_check.h"

namespace npu::runtime {

struct GenerationOptions {
  int prompt = 0;       // prompt tokens; 0: the prefill graph's fixed length
  int tokens = 8;       // tokens generated (decode steps)
  bool timing_only = false;
  std::uint64_t seed = kDefaultInputSeed;  // the prompt's token ids, uniform over the vocabulary
  std::string device = "sim";
};

struct GenerationStep {
  std::string phase;     // "prefill" | "decode"
  int past = 0;          // K/V entries the step reads (0 for the prefill)
  int new_tokens = 0;    // tokens it processes
  double latency_us = 0;      // simulated, NPU and host
  double npu_us = 0;
  std::uint64_t cycles = 0;
  std::uint64_t weight_bytes = 0;  // the program's constant data
  std::uint64_t kv_bytes = 0;      // the past K/V as the NPU stores it
  double bound_us = 0;             // (weight_bytes + kv_bytes) / DDR bandwidth
  double energy_uj = -1;           // -1: the config has no energy table
  std::int64_t token = -1;         // the token it chose (argmax of its last logits row); -1 timing-only
  // Its last logits row's five largest values and their tokens, largest first (functional runs).
  std::vector<std::pair<std::int64_t, float>> top;
};

struct GenerationResult {
  std::string prefill_model, decode_model, precision;
  int prompt = 0, vocabulary = 0;
  bool timing_only = false;
  std::vector<std::int64_t> prompt_ids;  // empty when timing only
  std::vector<GenerationStep> steps;     // the prefill, then each decode step
  double ddr_gbps = 0;
  double time_to_first_token_us() const;  // the prefill (it gives the first token)
  double decode_us() const;               // every decode step
  double tokens_per_second() const;       // decode steps per second
  double energy_per_token_uj() const;     // decode energy per generated token; -1 without energy
  std::vector<std::string> notes;
};

// Throws std::runtime_error naming the graph and what is wrong: no token-id input, a past input
// with no present output to come from (or the counts differ), a past length fixed at another
// length than the cache holds, a cache larger than the DDR.
GenerationResult generate(const std::string& prefill_path, const std::string& decode_path, const HardwareConfig& config,
                          const compiler::CompileOptions& options, const GenerationOptions& generation);

}  // namespace npu::runtime
