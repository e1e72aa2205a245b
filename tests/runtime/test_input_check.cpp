// Inputs that do not match the model: one line naming the input and what was expected.
#include <catch2/catch.hpp>

#include "runtime/input_check.h"

using namespace npu::runtime;

namespace {

std::vector<TensorDesc> image_input() {
  TensorDesc d;
  d.name = "images";
  d.dtype = ElementType::Float32;
  d.shape = {1, 3, 32, 32};
  d.layout = "NCHW";
  return {d};
}

}  // namespace

TEST_CASE("a matching input passes", "[input_check]") {
  std::map<std::string, HostTensor> given{{"images", make_host_tensor(ElementType::Float32, {1, 3, 32, 32})}};
  CHECK_NOTHROW(check_inputs(image_input(), given));
}

TEST_CASE("missing input names it and the expected tensor", "[input_check]") {
  REQUIRE_THROWS_WITH(check_inputs(image_input(), {}),
                      "missing input 'images': expected float32[1x3x32x32] NCHW");
}

TEST_CASE("wrong shape names the input, the file and both shapes", "[input_check]") {
  std::map<std::string, HostTensor> given{{"images", make_host_tensor(ElementType::Float32, {1, 3, 64, 64})}};
  REQUIRE_THROWS_WITH(check_inputs(image_input(), given, {{"images", "img.npy"}}),
                      "input 'images' from img.npy: expected float32[1x3x32x32] NCHW, got float32[1x3x64x64]");
}

TEST_CASE("wrong dtype names the input and both dtypes", "[input_check]") {
  std::map<std::string, HostTensor> given{{"images", make_host_tensor(ElementType::Float64, {1, 3, 32, 32})}};
  REQUIRE_THROWS_WITH(check_inputs(image_input(), given),
                      "input 'images': expected float32[1x3x32x32] NCHW, got float64[1x3x32x32]");
}

TEST_CASE("an unknown input lists the model's inputs", "[input_check]") {
  std::map<std::string, HostTensor> given{{"imgs", make_host_tensor(ElementType::Float32, {1, 3, 32, 32})}};
  REQUIRE_THROWS_WITH(check_inputs(image_input(), given), "'imgs' is not an input of the model (inputs: images)");
}

TEST_CASE("dynamic dims accept any size; random inputs are deterministic", "[input_check]") {
  auto expected = image_input();
  expected[0].shape = {-1, 3, 32, 32};
  std::map<std::string, HostTensor> given{{"images", make_host_tensor(ElementType::Float32, {4, 3, 32, 32})}};
  CHECK_NOTHROW(check_inputs(expected, given));

  const auto a = random_input(image_input()[0], 7), b = random_input(image_input()[0], 7);
  const auto c = random_input(image_input()[0], 8);
  CHECK(a.bytes == b.bytes);
  CHECK(a.bytes != c.bytes);
  for (std::uint64_t i = 0; i < a.element_count(); ++i) {
    CHECK(a.data<float>()[i] >= -1.0f);
    CHECK(a.data<float>()[i] < 1.0f);
  }
  REQUIRE_THROWS_WITH(random_input(expected[0], 1), Catch::Contains("dynamic shape") && Catch::Contains("images"));
}
