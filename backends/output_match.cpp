#include "backends/output_match.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "isa/fp16.h"

namespace npu::backends {

namespace {

std::vector<double> as_doubles(const runtime::HostTensor& t) {
  std::vector<double> v(t.element_count());
  for (std::size_t i = 0; i < v.size(); ++i) {
    switch (t.dtype) {
      case runtime::ElementType::Float32: v[i] = t.data<float>()[i]; break;
      case runtime::ElementType::Float16: v[i] = isa::half_to_float(t.data<std::uint16_t>()[i]); break;
      case runtime::ElementType::Float64: v[i] = t.data<double>()[i]; break;
      case runtime::ElementType::Int8: v[i] = t.data<std::int8_t>()[i]; break;
      case runtime::ElementType::UInt8: v[i] = t.data<std::uint8_t>()[i]; break;
      case runtime::ElementType::Int16: v[i] = t.data<std::int16_t>()[i]; break;
      case runtime::ElementType::UInt16: v[i] = t.data<std::uint16_t>()[i]; break;
      case runtime::ElementType::Int32: v[i] = t.data<std::int32_t>()[i]; break;
      case runtime::ElementType::UInt32: v[i] = t.data<std::uint32_t>()[i]; break;
      case runtime::ElementType::Int64: v[i] = static_cast<double>(t.data<std::int64_t>()[i]); break;
      case runtime::ElementType::UInt64: v[i] = static_cast<double>(t.data<std::uint64_t>()[i]); break;
      case runtime::ElementType::Bool: v[i] = t.bytes[i] ? 1.0 : 0.0; break;
    }
  }
  return v;
}

}  // namespace

OutputMatch match_output(const std::string& name, const runtime::HostTensor& reference, const runtime::HostTensor& value) {
  OutputMatch m;
  m.output = name;
  if (reference.element_count() != value.element_count()) {
    m.problem = fmt::format("shape {} vs reference {}", runtime::shape_text(value.shape), runtime::shape_text(reference.shape));
    return m;
  }
  const auto a = as_doubles(reference), b = as_doubles(value);
  double dot = 0, na = 0, nb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
    m.max_abs_error = std::max(m.max_abs_error, std::abs(a[i] - b[i]));
  }
  m.cosine = (na == 0 && nb == 0) ? 1.0 : (na == 0 || nb == 0) ? 0.0 : dot / std::sqrt(na * nb);
  return m;
}

LatencyStats latency_stats(std::vector<double> runs_us) {
  LatencyStats s;
  s.runs_us = runs_us;
  if (runs_us.empty()) return s;
  std::sort(runs_us.begin(), runs_us.end());
  const std::size_t n = runs_us.size();
  s.median_us = n % 2 ? runs_us[n / 2] : (runs_us[n / 2 - 1] + runs_us[n / 2]) / 2;
  const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(n)));
  s.p90_us = runs_us[std::max<std::size_t>(rank, 1) - 1];
  return s;
}

}  // namespace npu::backends
