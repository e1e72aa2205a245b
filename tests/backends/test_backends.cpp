// Real-device back ends without real devices: how missing, wrong and too-old vendor libraries
// are reported, names, and the statistics `npusim compare` prints. Each TEST_CASE runs in its
// own process (ctest), which matters: the OpenVINO library is located once per process.
#include <cstdlib>

#include <cmath>

#include <catch2/catch.hpp>

#include "backends/inference_backend.h"
#include "backends/output_match.h"

using namespace npu::backends;
using namespace npu::runtime;

namespace {

BackendAvailability openvino_cpu_with_library(const char* path) {
  ::setenv("NPUSIM_OPENVINO_LIB", path, 1);
  return make_backend("openvino:CPU", npu::HardwareConfig{})->availability();
}

HostTensor floats(std::vector<float> values) {
  auto t = make_host_tensor(ElementType::Float32, {static_cast<std::int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.data<float>());
  return t;
}

}  // namespace

TEST_CASE("a missing OpenVINO library is named, not a crash or a fallback", "[devices]") {
  const auto a = openvino_cpu_with_library("/nonexistent/libopenvino_c.so");
  CHECK_FALSE(a.available);
  CHECK(a.reason == "NPUSIM_OPENVINO_LIB=/nonexistent/libopenvino_c.so: no such file or directory");
}

TEST_CASE("a library that is not OpenVINO is refused by name", "[devices]") {
  const auto a = openvino_cpu_with_library(FAKE_NOT_OPENVINO);
  CHECK_FALSE(a.available);
  CHECK(a.reason.find("not an OpenVINO C library") != std::string::npos);
  CHECK(a.reason.find(FAKE_NOT_OPENVINO) != std::string::npos);
}

TEST_CASE("an OpenVINO older than the C API npusim uses is a version mismatch with both versions", "[devices]") {
  const auto a = openvino_cpu_with_library(FAKE_OPENVINO_2022);
  CHECK_FALSE(a.available);
  CHECK(a.reason.find("version mismatch") != std::string::npos);
  CHECK(a.reason.find("2022.1.0") != std::string::npos);
  CHECK(a.reason.find("2023.0 or newer") != std::string::npos);
}

TEST_CASE("every advertised backend name makes a backend and unknown names list the known ones", "[devices]") {
  for (const auto& name : npu::backends::backend_names()) CHECK(npu::backends::make_backend(name, npu::HardwareConfig{})->name() == name);
  CHECK(npu::backends::make_backend("openvino:npu", npu::HardwareConfig{})->name() == "openvino:NPU");
  CHECK_THROWS_WITH(npu::backends::make_backend("cuda:0", npu::HardwareConfig{}),
                    "unknown device 'cuda:0' (devices: sim, openvino:NPU, openvino:GPU, openvino:CPU, ort:cpu, "
                    "ort:qnn, ort:openvino, litert:cpu)");
}

TEST_CASE("median and nearest-rank p90 of run times", "[devices]") {
  const auto s = npu::backends::latency_stats({5, 1, 4, 2, 3, 10, 9, 8, 7, 6});
  CHECK(s.median_us == 5.5);
  CHECK(s.p90_us == 9);
  CHECK(s.runs_us.front() == 5);  // run order kept
  const auto one = npu::backends::latency_stats({42});
  CHECK(one.median_us == 42);
  CHECK(one.p90_us == 42);
}

TEST_CASE("outputs compared by cosine similarity and max abs error", "[devices]") {
  const auto same = npu::backends::match_output("y", floats({1, 2, 3}), floats({1, 2, 3}));
  CHECK(same.cosine == Approx(1.0));
  CHECK(same.max_abs_error == 0);
  const auto off = npu::backends::match_output("y", floats({1, 0}), floats({1, 1}));
  CHECK(off.cosine == Approx(1 / std::sqrt(2.0)));
  CHECK(off.max_abs_error == 1);
  CHECK(npu::backends::match_output("y", floats({0, 0}), floats({0, 0})).cosine == 1);
  CHECK(npu::backends::match_output("y", floats({1, 2}), floats({1, 2, 3})).problem == "shape 3 vs reference 2");
}
