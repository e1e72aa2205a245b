// A program or configuration the timing core cannot time: a bad instruction (one line naming
// its index, mnemonic and field) or an unknown model name. The simulator reports it as its
// SimError, the compiler's estimate as a compile error.
#pragma once
#include <stdexcept>

namespace npu::cost {

struct TimingError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace npu::cost
