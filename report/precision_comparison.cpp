#include "report/precision_comparison.h"

#include <fmt/format.h>

namespace npu::report {

std::string format_precision_times(const runtime::PrecisionTimes& t) {
  auto change = [&](double base) { return base > 0 ? fmt::format("{:+.1f} %", 100.0 * (t.mixed_us / base - 1.0)) : "-"; };
  return fmt::format("simulated time: {:.1f} us with the fp16 layers, {:.1f} us all int8 ({} with them), "
                     "{:.1f} us all fp16 ({} with them)\n",
                     t.mixed_us, t.int8_us, change(t.int8_us), t.fp16_us, change(t.fp16_us));
}

}  // namespace npu::report
