// Host (ONNX: NCHW or NHWC float32) <-> NPU (NHWC int8/fp16) conversions and what they report.
#include <catch2/catch.hpp>

#include <cstring>

#include "runtime/tensor_conversion.h"

using namespace npu;
using namespace npu::runtime;

namespace {

// A boundary tensor of the program: `layout` in DDR, `host_layout` on the host.
isa::TensorEntry npu_tensor(isa::DType dtype, std::vector<std::int64_t> shape, std::string layout,
                            std::string host_layout, float scale = 1.0f, int zp = 0) {
  isa::TensorEntry e;
  e.name = "x";
  e.dtype = dtype;
  e.shape = std::move(shape);
  e.layout = std::move(layout);
  e.host_layout = std::move(host_layout);
  e.scale = scale;
  e.zero_point = zp;
  std::uint64_t n = 1;
  for (auto d : e.shape) n *= static_cast<std::uint64_t>(d);
  e.size_bytes = n * isa::dtype_bytes(dtype);
  return e;
}

HostTensor iota_nchw(std::vector<std::int64_t> shape, float step) {
  HostTensor t = make_host_tensor(ElementType::Float32, std::move(shape));
  for (std::uint64_t i = 0; i < t.element_count(); ++i) t.data<float>()[i] = step * static_cast<float>(i);
  return t;
}

}  // namespace

TEST_CASE("quantisation rounds half to even and saturates", "[conversion]") {
  CHECK(quantize_int8(0.25f, 0.5f, 0) == 0);   // 0.5 -> 0
  CHECK(quantize_int8(0.75f, 0.5f, 0) == 2);   // 1.5 -> 2
  CHECK(quantize_int8(-0.75f, 0.5f, 0) == -2);
  CHECK(quantize_int8(1.0f, 0.5f, -3) == -1);
  CHECK(quantize_int8(1000.0f, 0.5f, 0) == 127);
  CHECK(quantize_int8(-1000.0f, 0.5f, 0) == -128);
}

TEST_CASE("float32 NCHW -> int8 NHWC quantises and transposes", "[conversion]") {
  // N=1, C=2, H=1, W=3 on the host; the NPU tensor is 1x1x3x2 NHWC.
  const auto entry = npu_tensor(isa::DType::Int8, {1, 1, 3, 2}, "NHWC", "NCHW", 0.5f, -3);
  const HostTensor host = iota_nchw({1, 2, 1, 3}, 1.0f);  // c0: 0 1 2, c1: 3 4 5
  Conversion record;
  const auto bytes = to_npu(host, entry, "input", &record);
  REQUIRE(bytes.size() == 6);
  // NHWC order: (w0: c0 c1) (w1: c0 c1) (w2: c0 c1); q = x/0.5 - 3
  const std::int8_t expected[6] = {-3, 3, -1, 5, 1, 7};
  for (int i = 0; i < 6; ++i) CHECK(static_cast<std::int8_t>(bytes[i]) == expected[i]);
  CHECK(record.converted);
  CHECK(record.text() == "input x: converted float32 NCHW → int8 NHWC (quantised, scale 0.5, zp -3), 6 bytes");

  Conversion back_record;
  const HostTensor back = from_npu(bytes, entry, ElementType::Float32, "output", &back_record);
  CHECK(back.shape == host.shape);
  CHECK(std::memcmp(back.bytes.data(), host.bytes.data(), host.bytes.size()) == 0);
  CHECK(back_record.text() == "output x: converted int8 NHWC → float32 NCHW (dequantised, scale 0.5, zp -3), 24 bytes");
}

TEST_CASE("float32 -> fp16 says it rounded; fp32 NC is a plain copy", "[conversion]") {
  const auto fp16 = npu_tensor(isa::DType::Fp16, {1, 4}, "NC", "NC");
  HostTensor host = iota_nchw({1, 4}, 0.1f);
  Conversion record;
  auto bytes = to_npu(host, fp16, "input", &record);
  CHECK(bytes.size() == 8);
  CHECK(record.detail == "rounded to fp16");
  const HostTensor back = from_npu(bytes, fp16, ElementType::Float32, "output", nullptr);
  for (int i = 0; i < 4; ++i) CHECK(back.data<float>()[i] == Approx(0.1f * i).epsilon(1e-3));

  const auto fp32 = npu_tensor(isa::DType::Fp32, {1, 4}, "NC", "NC");
  bytes = to_npu(host, fp32, "input", &record);
  CHECK_FALSE(record.converted);
  CHECK(record.text() == "input x: copied float32 NC → float32 NC, 16 bytes");
}

TEST_CASE("host view of an NHWC NPU tensor is NCHW", "[conversion]") {
  const auto entry = npu_tensor(isa::DType::Int8, {1, 224, 224, 3}, "NHWC", "NCHW", 0.02f);
  const auto view = host_view_of(entry, ElementType::Float32);
  CHECK(view.shape == std::vector<std::int64_t>{1, 3, 224, 224});
  CHECK(view.layout == "NCHW");
  CHECK(describe(view) == "float32[1x3x224x224] NCHW");
}

TEST_CASE("an NHWC host tensor of NHWC bytes is quantised in place, not transposed", "[conversion]") {
  // H=1, W=3, C=2 on the host as on the NPU: element i stays at position i.
  const auto entry = npu_tensor(isa::DType::Int8, {1, 1, 3, 2}, "NHWC", "NHWC", 0.5f, -3);
  const auto view = host_view_of(entry, ElementType::Float32);
  CHECK(view.shape == std::vector<std::int64_t>{1, 1, 3, 2});
  CHECK(describe(view) == "float32[1x1x3x2] NHWC");
  const HostTensor host = iota_nchw({1, 1, 3, 2}, 0.5f);  // 0, 0.5, ..., 2.5
  Conversion record;
  const auto bytes = to_npu(host, entry, "input", &record);
  CHECK(std::vector<std::int8_t>(bytes.begin(), bytes.end()) == std::vector<std::int8_t>{-3, -2, -1, 0, 1, 2});
  CHECK(record.text() == "input x: converted float32 NHWC → int8 NHWC (quantised, scale 0.5, zp -3), 6 bytes");
  const HostTensor back = from_npu(bytes, entry, ElementType::Float32, "output", &record);
  CHECK(back.shape == host.shape);
  CHECK(std::memcmp(back.bytes.data(), host.bytes.data(), host.bytes.size()) == 0);
}

TEST_CASE("a tensor without a host layout, or with one the runtime cannot reach, is an error naming it", "[conversion]") {
  const HostTensor host = iota_nchw({1, 2, 1, 3}, 1.0f);
  auto error_of = [&](const isa::TensorEntry& e) -> std::string {
    try {
      to_npu(host, e, "input", nullptr);
    } catch (const std::runtime_error& err) {
      return err.what();
    }
    return "(no error)";
  };
  CHECK(error_of(npu_tensor(isa::DType::Int8, {1, 1, 3, 2}, "NHWC", "")) ==
        "tensor 'x': the program records no host layout for it, so it cannot cross to the host (compile the model "
        "again)");
  CHECK(error_of(npu_tensor(isa::DType::Int8, {1, 1, 3, 2}, "ND[0,3,1,2]", "NCHW")) ==
        "tensor 'x': no conversion from host layout NCHW to NPU layout ND[0,3,1,2] (shape 1x1x3x2)");
}

TEST_CASE("strided and misaligned views are copied, and the copy says why", "[conversion]") {
  // A 2x2 view of the left half of a 2x4 int32 matrix.
  const std::int32_t matrix[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  TensorView view{ElementType::Int32, {2, 2}, reinterpret_cast<const std::uint8_t*>(matrix), {16, 4}};
  std::string why;
  HostTensor t = copy_view(view, 1, &why);
  CHECK(why == "non-contiguous strides");
  CHECK(std::vector<std::int32_t>(t.data<std::int32_t>(), t.data<std::int32_t>() + 4) ==
        std::vector<std::int32_t>{1, 2, 5, 6});

  alignas(64) std::uint8_t buffer[80] = {};
  TensorView misaligned{ElementType::UInt8, {8}, buffer + 2, {}};
  copy_view(misaligned, 64, &why);
  CHECK(why == "misaligned by 2 bytes (needs 64)");
  TensorView aligned{ElementType::UInt8, {8}, buffer, {}};
  copy_view(aligned, 64, &why);
  CHECK(why.empty());
}

TEST_CASE("cast between host dtypes truncates like numpy", "[conversion]") {
  HostTensor t = make_host_tensor(ElementType::Float32, {3});
  t.data<float>()[0] = 1.7f;
  t.data<float>()[1] = -1.7f;
  t.data<float>()[2] = 0.0f;
  const auto i64 = cast(t, ElementType::Int64);
  CHECK(i64.data<std::int64_t>()[0] == 1);
  CHECK(i64.data<std::int64_t>()[1] == -1);
  const auto b = cast(t, ElementType::Bool);
  CHECK(b.bytes == std::vector<std::uint8_t>{1, 1, 0});
}
