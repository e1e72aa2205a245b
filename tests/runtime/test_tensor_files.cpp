// .npy and TensorProto (.pb) inputs, .npy outputs.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <onnx/onnx_pb.h>

#include "runtime/tensor_file.h"

using namespace npu::runtime;

namespace {

std::filesystem::path temp_file(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "npusim_runtime_tests";
  std::filesystem::create_directories(dir);
  return dir / name;
}

void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

}  // namespace

TEST_CASE("npy output written and read back unchanged", "[tensor_file]") {
  HostTensor t = make_host_tensor(ElementType::Float32, {2, 3});
  for (int i = 0; i < 6; ++i) t.data<float>()[i] = 0.5f * static_cast<float>(i) - 1.0f;
  const auto path = temp_file("roundtrip.npy");
  write_tensor_npy(path.string(), t);
  const auto back = read_tensor_file(path.string());
  CHECK(back.name.empty());
  CHECK(back.tensor.dtype == ElementType::Float32);
  CHECK(back.tensor.shape == std::vector<std::int64_t>{2, 3});
  CHECK(back.tensor.bytes == t.bytes);
}

TEST_CASE("npy of every host dtype keeps its dtype", "[tensor_file]") {
  for (auto type : {ElementType::Int64, ElementType::Bool, ElementType::Float16, ElementType::UInt8}) {
    HostTensor t = make_host_tensor(type, {4});
    const auto path = temp_file("dtype.npy");
    write_tensor_npy(path.string(), t);
    CHECK(read_tensor_file(path.string()).tensor.dtype == type);
  }
}

TEST_CASE("TensorProto with raw_data", "[tensor_file]") {
  onnx::TensorProto proto;
  proto.set_name("x");
  proto.set_data_type(onnx::TensorProto::FLOAT);
  proto.add_dims(1);
  proto.add_dims(2);
  const float values[2] = {1.5f, -2.0f};
  proto.set_raw_data(std::string(reinterpret_cast<const char*>(values), sizeof values));
  const auto path = temp_file("raw.pb");
  write_bytes(path, proto.SerializeAsString());
  const auto file = read_tensor_file(path.string());
  CHECK(file.name == "x");
  CHECK(file.tensor.shape == std::vector<std::int64_t>{1, 2});
  CHECK(file.tensor.data<float>()[0] == 1.5f);
  CHECK(file.tensor.data<float>()[1] == -2.0f);
}

TEST_CASE("TensorProto with typed fields: int64, float16 bits, bool", "[tensor_file]") {
  onnx::TensorProto i64;
  i64.set_data_type(onnx::TensorProto::INT64);
  i64.add_dims(3);
  for (std::int64_t v : {-1ll, 0ll, 1ll << 40}) i64.add_int64_data(v);
  auto t = parse_onnx_tensor(i64.SerializeAsString(), "i64").tensor;
  REQUIRE(t.dtype == ElementType::Int64);
  CHECK(t.data<std::int64_t>()[2] == (1ll << 40));
  CHECK(t.data<std::int64_t>()[0] == -1);

  onnx::TensorProto f16;
  f16.set_data_type(onnx::TensorProto::FLOAT16);
  f16.add_dims(1);
  f16.add_int32_data(0x3c00);  // 1.0
  t = parse_onnx_tensor(f16.SerializeAsString(), "f16").tensor;
  CHECK(t.data<std::uint16_t>()[0] == 0x3c00);

  onnx::TensorProto b;
  b.set_data_type(onnx::TensorProto::BOOL);
  b.add_dims(2);
  b.add_int32_data(1);
  b.add_int32_data(0);
  t = parse_onnx_tensor(b.SerializeAsString(), "b").tensor;
  CHECK(t.dtype == ElementType::Bool);
  CHECK(t.bytes == std::vector<std::uint8_t>{1, 0});
}

TEST_CASE("ONNX node-test input files parse", "[tensor_file]") {
  const std::string path = "/usr/include/onnx/backend/test/data/node/test_relu/test_data_set_0/input_0.pb";
  if (!std::filesystem::exists(path)) FAIL("libonnx-testdata is not installed: " + path);
  const auto file = read_tensor_file(path);
  CHECK(file.name == "x");
  CHECK(file.tensor.shape == std::vector<std::int64_t>{3, 4, 5});
  CHECK(file.tensor.dtype == ElementType::Float32);
}

TEST_CASE("bad tensor files fail with one line naming the file", "[tensor_file]") {
  const auto garbage = temp_file("garbage.pb");
  write_bytes(garbage, "this is not a tensor at all \xff\xff\xff");
  REQUIRE_THROWS_WITH(read_tensor_file(garbage.string()), Catch::Contains("garbage.pb"));

  onnx::TensorProto short_raw;
  short_raw.set_data_type(onnx::TensorProto::FLOAT);
  short_raw.add_dims(4);
  short_raw.set_raw_data(std::string(8, '\0'));
  REQUIRE_THROWS_WITH(parse_onnx_tensor(short_raw.SerializeAsString(), "short.pb"),
                      Catch::Contains("short.pb") && Catch::Contains("raw_data of 8 bytes"));

  const auto truncated = temp_file("truncated.npy");
  HostTensor t = make_host_tensor(ElementType::Float32, {100});
  write_tensor_npy(truncated.string(), t);
  std::filesystem::resize_file(truncated, 200);
  REQUIRE_THROWS_WITH(read_tensor_file(truncated.string()), Catch::Contains("truncated.npy"));

  REQUIRE_THROWS_WITH(read_tensor_file("/nonexistent/x.npy"), Catch::Contains("/nonexistent/x.npy"));
}
