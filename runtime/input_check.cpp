#include "runtime/input_check.h"

#include <cstring>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "isa/fp16.h"  // isa/fp16.h: the rounding the simulator uses

namespace npu::runtime {

namespace {

std::string origin_of(const std::map<std::string, std::string>& origins, const std::string& name) {
  const auto it = origins.find(name);
  return it == origins.end() ? "" : " from " + it->second;
}

bool shape_matches(const std::vector<std::int64_t>& expected, const std::vector<std::int64_t>& got) {
  if (expected.size() != got.size()) return false;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (expected[i] >= 0 && expected[i] != got[i]) return false;
  return true;
}

}  // namespace

void check_inputs(const std::vector<TensorDesc>& expected, const std::map<std::string, HostTensor>& given,
                  const std::map<std::string, std::string>& origins) {
  std::string names;
  for (const auto& d : expected) names += (names.empty() ? "" : ", ") + d.name;
  for (const auto& [name, tensor] : given) {
    bool known = false;
    for (const auto& d : expected) known |= d.name == name;
    if (!known) throw std::runtime_error(fmt::format("'{}' is not an input of the model (inputs: {})", name, names));
  }
  for (const auto& d : expected) {
    const auto it = given.find(d.name);
    if (it == given.end())
      throw std::runtime_error(fmt::format("missing input '{}': expected {}", d.name, describe(d)));
    const HostTensor& t = it->second;
    if (!d.constrained) continue;
    if (t.dtype != d.dtype || !shape_matches(d.shape, t.shape))
      throw std::runtime_error(fmt::format("input '{}'{}: expected {}, got {}[{}]", d.name, origin_of(origins, d.name),
                                           describe(d), element_type_name(t.dtype), shape_text(t.shape)));
  }
}

HostTensor random_input(const TensorDesc& desc, std::uint64_t seed) {
  for (auto d : desc.shape)
    if (d < 0)
      throw std::runtime_error(fmt::format("input '{}' has a dynamic shape {}: give it as a file (--input {}=FILE)",
                                           desc.name, shape_text(desc.shape), desc.name));
  HostTensor t = make_host_tensor(desc.dtype, desc.shape);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  const std::size_t elem = element_bytes(desc.dtype);
  for (std::uint64_t i = 0; i < t.element_count(); ++i) {
    std::uint8_t* p = t.bytes.data() + i * elem;
    switch (desc.dtype) {
      case ElementType::Float32: { const float v = static_cast<float>(real(rng)); std::memcpy(p, &v, 4); break; }
      case ElementType::Float64: { const double v = real(rng); std::memcpy(p, &v, 8); break; }
      case ElementType::Float16: {
        const std::uint16_t v = isa::float_to_half(static_cast<float>(real(rng)));
        std::memcpy(p, &v, 2);
        break;
      }
      case ElementType::Bool: *p = static_cast<std::uint8_t>(rng() & 1); break;
      default: {
        const std::uint64_t v = rng() % 4;  // little-endian: the low bytes hold the value
        std::memcpy(p, &v, elem);
      }
    }
  }
  return t;
}

std::map<std::string, HostTensor> generate_inputs(const std::vector<TensorDesc>& inputs, std::uint64_t seed) {
  std::map<std::string, HostTensor> out;
  for (std::size_t i = 0; i < inputs.size(); ++i) out[inputs[i].name] = random_input(inputs[i], seed + i);
  return out;
}

}  // namespace npu::runtime
