// What `npusim generate` prints: per step (the prefill, each decode step) its cache length, the
// simulated latency, its DDR bound (constant bytes + past K/V over the bandwidth) and the share
// of the bound it reaches, the token it chose; then time to first token, tokens per second and
// energy per token. The same as JSON, and the steps as a Chrome/Perfetto trace.
#pragma once
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/generation.h"

namespace npu::report {

std::string format_generation(const runtime::GenerationResult& result);
nlohmann::json generation_json(const runtime::GenerationResult& result);
// One slice per step on one track, one after another in simulated time, each step's figures
// as its args.
void write_generation_trace(const runtime::GenerationResult& result, std::ostream& out);

}  // namespace npu::report
