// The host model that times CPU steps, transitions and transfers.
#include <catch2/catch.hpp>

#include "runtime/host_time_model.h"

using namespace npu;
using namespace npu::runtime;

TEST_CASE("CPU step time is flops / gflops", "[host_time]") {
  HostConfig host;
  host.gflops = 50.0;
  CHECK(cpu_compute_us(50'000, host) == Approx(1.0));       // 50 kflop at 50 GFLOP/s = 1 us
  CHECK(cpu_compute_us(2'000'000'000, host) == Approx(40'000.0));
}

TEST_CASE("transfers at memcpy bandwidth, transitions at a fixed cost", "[host_time]") {
  HostConfig host;
  host.gflops = 100.0;
  host.memcpy_gbps = 10.0;
  host.transition_us = 20.0;
  const auto t = host_time(1'000'000, 3, 602'112, host);
  CHECK(t.compute_us == Approx(10.0));
  CHECK(t.transition_us == Approx(60.0));
  CHECK(t.transfer_us == Approx(60.2112));
  CHECK(t.total_us() == Approx(130.2112));
}
