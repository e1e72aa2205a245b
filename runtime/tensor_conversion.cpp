#include "runtime/tensor_conversion.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "isa/fp16.h"  // isa/fp16.h: the rounding the simulator uses

namespace npu::runtime {

namespace {

// Whether the host's tensor is the NCHW view of NHWC bytes (transposed on the way), or the
// same bytes (copied), as the program's tensor table records; anything else is an error.
bool transposes_nchw(const isa::TensorEntry& e) {
  if (e.host_layout.empty())
    throw std::runtime_error(fmt::format("tensor '{}': the program records no host layout for it, so it cannot "
                                         "cross to the host (compile the model again)", e.name));
  if (e.host_layout == e.layout) return false;
  if (const auto strides = isa::strided_layout_strides(e.layout); !strides.empty()) {
    if (strides.size() != e.shape.size() || (e.host_layout != "ND" && e.host_layout != "NC"))
      throw std::runtime_error(fmt::format("tensor '{}': layout {} does not fit shape {} with host layout {}", e.name,
                                           e.layout, shape_text(e.shape), e.host_layout));
    return false;
  }
  if (e.host_layout == "NCHW" && e.layout == "NHWC" && e.shape.size() == 4) return true;
  throw std::runtime_error(fmt::format("tensor '{}': no conversion from host layout {} to NPU layout {} (shape {})",
                                       e.name, e.host_layout, e.layout, shape_text(e.shape)));
}

ElementType element_type_of(isa::DType t) {
  switch (t) {
    case isa::DType::Int8: return ElementType::Int8;
    case isa::DType::Int32: return ElementType::Int32;
    case isa::DType::Fp16: return ElementType::Float16;
    case isa::DType::Fp32: return ElementType::Float32;
  }
  throw std::logic_error("unknown isa::DType");
}

double load_element(const std::uint8_t* p, ElementType t) {
  switch (t) {
    case ElementType::Float32: { float v; std::memcpy(&v, p, 4); return v; }
    case ElementType::Float16: { std::uint16_t v; std::memcpy(&v, p, 2); return isa::half_to_float(v); }
    case ElementType::Float64: { double v; std::memcpy(&v, p, 8); return v; }
    case ElementType::Int8: return static_cast<std::int8_t>(*p);
    case ElementType::UInt8: return *p;
    case ElementType::Int16: { std::int16_t v; std::memcpy(&v, p, 2); return v; }
    case ElementType::UInt16: { std::uint16_t v; std::memcpy(&v, p, 2); return v; }
    case ElementType::Int32: { std::int32_t v; std::memcpy(&v, p, 4); return v; }
    case ElementType::UInt32: { std::uint32_t v; std::memcpy(&v, p, 4); return v; }
    case ElementType::Int64: { std::int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case ElementType::UInt64: { std::uint64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case ElementType::Bool: return *p ? 1.0 : 0.0;
  }
  return 0;
}

template <typename T>
void put(std::uint8_t* p, T v) { std::memcpy(p, &v, sizeof v); }

// Integer targets truncate toward zero as numpy's astype does (and C casts do).
void store_element(std::uint8_t* p, ElementType t, double v) {
  switch (t) {
    case ElementType::Float32: put(p, static_cast<float>(v)); break;
    case ElementType::Float16: put(p, isa::float_to_half(static_cast<float>(v))); break;
    case ElementType::Float64: put(p, v); break;
    case ElementType::Int8: put(p, static_cast<std::int8_t>(v)); break;
    case ElementType::UInt8: put(p, static_cast<std::uint8_t>(v)); break;
    case ElementType::Int16: put(p, static_cast<std::int16_t>(v)); break;
    case ElementType::UInt16: put(p, static_cast<std::uint16_t>(v)); break;
    case ElementType::Int32: put(p, static_cast<std::int32_t>(v)); break;
    case ElementType::UInt32: put(p, static_cast<std::uint32_t>(v)); break;
    case ElementType::Int64: put(p, static_cast<std::int64_t>(v)); break;
    case ElementType::UInt64: put(p, static_cast<std::uint64_t>(v)); break;
    case ElementType::Bool: put(p, static_cast<std::uint8_t>(v != 0.0)); break;
  }
}

// Index of element (n, c, h, w) of an NCHW tensor in the NHWC order of the same tensor.
struct Nhwc {
  std::int64_t n, c, h, w;
  Nhwc(const std::vector<std::int64_t>& nhwc_shape)
      : n(nhwc_shape[0]), c(nhwc_shape[3]), h(nhwc_shape[1]), w(nhwc_shape[2]) {}
  // For every NCHW-ordered element index, the NHWC-ordered one.
  std::vector<std::uint64_t> nchw_to_nhwc() const {
    std::vector<std::uint64_t> map(static_cast<std::size_t>(n * c * h * w));
    std::size_t i = 0;
    for (std::int64_t in = 0; in < n; ++in)
      for (std::int64_t ic = 0; ic < c; ++ic)
        for (std::int64_t ih = 0; ih < h; ++ih)
          for (std::int64_t iw = 0; iw < w; ++iw) map[i++] = static_cast<std::uint64_t>(((in * h + ih) * w + iw) * c + ic);
    return map;
  }
};

std::string quant_detail(const isa::TensorEntry& e) {
  return fmt::format("scale {:.6g}, zp {}", e.scale, e.zero_point);
}

}  // namespace

std::vector<std::uint64_t> npu_positions(const isa::TensorEntry& e) {
  if (transposes_nchw(e)) return Nhwc(e.shape).nchw_to_nhwc();
  const auto strides = isa::strided_layout_strides(e.layout);
  if (strides.empty()) return {};
  std::uint64_t n = 1;
  for (auto d : e.shape) n *= static_cast<std::uint64_t>(d);
  std::vector<std::uint64_t> map(n);
  std::vector<std::int64_t> index(e.shape.size(), 0);
  for (std::uint64_t i = 0; i < n; ++i) {
    std::int64_t at = 0;
    for (std::size_t a = 0; a < index.size(); ++a) at += index[a] * strides[a];
    map[i] = static_cast<std::uint64_t>(at);
    for (std::size_t a = index.size(); a-- > 0;) {
      if (++index[a] < e.shape[a]) break;
      index[a] = 0;
    }
  }
  return map;
}

std::string Conversion::text() const {
  std::string s = fmt::format("{} {}: {} {} → {}", role, tensor, converted ? "converted" : "copied", from, to);
  if (!detail.empty()) s += " (" + detail + ")";
  s += fmt::format(", {} bytes", bytes);
  return s;
}

std::int8_t quantize_int8(float x, float scale, std::int32_t zero_point) {
  if (std::isnan(x)) return static_cast<std::int8_t>(std::clamp(zero_point, -128, 127));
  const double q = std::nearbyint(static_cast<double>(x) / static_cast<double>(scale)) + zero_point;
  return static_cast<std::int8_t>(std::clamp(q, -128.0, 127.0));
}

TensorDesc npu_tensor_desc(const isa::TensorEntry& e) {
  TensorDesc d;
  d.name = e.name;
  d.dtype = element_type_of(e.dtype);
  d.shape = e.shape;
  d.layout = e.layout;
  d.device = TensorDevice::Npu;
  d.scale = e.dtype == isa::DType::Int8 ? e.scale : 0.0f;
  d.zero_point = e.zero_point;
  return d;
}

TensorDesc host_view_of(const isa::TensorEntry& e, ElementType host_dtype) {
  TensorDesc d;
  d.name = e.name;
  d.dtype = host_dtype;
  d.shape = e.shape;
  if (transposes_nchw(e)) d.shape = {e.shape[0], e.shape[3], e.shape[1], e.shape[2]};
  d.layout = e.host_layout;
  d.device = TensorDevice::Host;
  return d;
}

std::vector<std::uint8_t> to_npu(const HostTensor& host, const isa::TensorEntry& e, const std::string& role,
                                 Conversion* record) {
  const ElementType device_type = element_type_of(e.dtype);
  const std::size_t out_elem = element_bytes(device_type), in_elem = element_bytes(host.dtype);
  const std::uint64_t n = host.element_count();
  if (host.bytes.size() != n * in_elem)
    throw std::runtime_error(fmt::format("{} {}: host tensor holds {} bytes, shape {} of {} needs {}", role, e.name,
                                         host.bytes.size(), shape_text(host.shape), element_type_name(host.dtype),
                                         n * in_elem));
  const std::vector<std::uint64_t> position = npu_positions(e);  // empty: same order
  const bool strided = !isa::strided_layout_strides(e.layout).empty();
  std::vector<std::uint8_t> out(strided ? e.size_bytes : n * out_elem);
  if (strided && !position.empty() && (position.back() + 1) * out_elem > out.size())
    throw std::runtime_error(fmt::format("{} {}: layout {} reaches past its {} bytes", role, e.name, e.layout,
                                         e.size_bytes));
  if (position.size() != 0 && position.size() != n)
    throw std::runtime_error(fmt::format("{} {}: {} elements for an NPU tensor of shape {}", role, e.name, n,
                                         shape_text(e.shape)));

  // An int8 host tensor of an int8 model input already holds the NPU's bytes
  // (compiler/backend/integer_boundary.h); any other host type is quantised here.
  const bool quantise = e.dtype == isa::DType::Int8 && e.scale > 0.0f && host.dtype != ElementType::Int8;
  const bool same_type = host.dtype == device_type && !quantise;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint8_t* src = host.bytes.data() + i * in_elem;
    std::uint8_t* dst = out.data() + (position.empty() ? i : position[i]) * out_elem;
    if (same_type) {
      std::memcpy(dst, src, out_elem);
    } else if (quantise) {
      *reinterpret_cast<std::int8_t*>(dst) = quantize_int8(static_cast<float>(load_element(src, host.dtype)), e.scale,
                                                           e.zero_point);
    } else {
      const double v = load_element(src, host.dtype);
      // int64 token ids narrow to the NPU's int32 indices; one that does not fit is an error,
      // not a wrapped index.
      if (device_type == ElementType::Int32 && (v < -2147483648.0 || v > 2147483647.0))
        throw std::runtime_error(fmt::format("{} {}: element {} = {} does not fit the NPU's int32", role, e.name, i, v));
      store_element(dst, device_type, v);
    }
  }

  if (record) {
    const auto host_desc = host_view_of(e, host.dtype);
    record->tensor = e.name;
    record->role = role;
    record->from = fmt::format("{} {}", element_type_name(host.dtype), host_desc.layout);
    record->to = fmt::format("{} {}", element_type_name(device_type), e.layout);
    record->bytes = out.size();
    record->converted = !same_type || (!position.empty() && !strided);
    if (quantise) record->detail = "quantised, " + quant_detail(e);
    else if (device_type == ElementType::Float16 && host.dtype != device_type) record->detail = "rounded to fp16";
    else record->detail.clear();
  }
  return out;
}

HostTensor from_npu(const std::vector<std::uint8_t>& bytes, const isa::TensorEntry& e, ElementType host_dtype,
                    const std::string& role, Conversion* record) {
  const ElementType device_type = element_type_of(e.dtype);
  const auto host_desc = host_view_of(e, host_dtype);
  HostTensor out = make_host_tensor(host_dtype, host_desc.shape);
  const std::uint64_t n = out.element_count();
  const std::size_t in_elem = element_bytes(device_type), out_elem = element_bytes(host_dtype);
  if (bytes.size() < n * in_elem)
    throw std::runtime_error(fmt::format("{} {}: {} bytes read for {} elements of {}", role, e.name, bytes.size(), n,
                                         element_type_name(device_type)));

  const std::vector<std::uint64_t> position = npu_positions(e);
  if (!position.empty() && bytes.size() < (position.back() + 1) * in_elem)
    throw std::runtime_error(fmt::format("{} {}: {} bytes read for layout {}", role, e.name, bytes.size(), e.layout));
  const bool dequantise = e.dtype == isa::DType::Int8 && e.scale > 0.0f && host_dtype != ElementType::Int8;
  const bool same_type = host_dtype == device_type && !dequantise;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint8_t* src = bytes.data() + (position.empty() ? i : position[i]) * in_elem;
    std::uint8_t* dst = out.bytes.data() + i * out_elem;
    if (same_type) {
      std::memcpy(dst, src, out_elem);
    } else if (dequantise) {
      const int q = static_cast<std::int8_t>(*src);
      store_element(dst, host_dtype, static_cast<double>(e.scale) * (q - e.zero_point));
    } else {
      store_element(dst, host_dtype, load_element(src, device_type));
    }
  }

  if (record) {
    record->tensor = e.name;
    record->role = role;
    record->from = fmt::format("{} {}", element_type_name(device_type), e.layout);
    record->to = fmt::format("{} {}", element_type_name(host_dtype), host_desc.layout);
    record->bytes = out.bytes.size();
    record->converted = !same_type || !position.empty();
    record->detail = dequantise ? "dequantised, " + quant_detail(e) : "";
  }
  return out;
}

HostTensor cast(const HostTensor& tensor, ElementType to) {
  if (tensor.dtype == to) return tensor;
  HostTensor out = make_host_tensor(to, tensor.shape);
  const std::size_t in_elem = element_bytes(tensor.dtype), out_elem = element_bytes(to);
  for (std::uint64_t i = 0; i < tensor.element_count(); ++i)
    store_element(out.bytes.data() + i * out_elem, to, load_element(tensor.bytes.data() + i * in_elem, tensor.dtype));
  return out;
}

}  // namespace npu::runtime
