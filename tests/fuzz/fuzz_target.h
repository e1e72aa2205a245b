// What every fuzz target shares. A target is one LLVMFuzzerTestOneInput: libFuzzer drives it in
// the fuzzing build (scripts/fuzz.sh); elsewhere regression_main.cpp feeds it the committed
// corpus (ctest "fuzz_regression:<target>"). An input may be rejected with an exception (the
// one-line error users see); anything else (a crash, a sanitizer report, a hang, a broken
// round trip) is a finding.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace npu::fuzz {

// A property that must hold for every accepted input: abort (a finding) when it does not.
inline void require(bool holds, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "fuzz property broken: %s\n", what);
  std::abort();
}

// A rejected input must be rejected the way users are told: a message (the CLI prints it on
// one line, control characters from names in the file escaped) naming `origin`, the file,
// when given.
inline void require_clean_error(const std::exception& e, const char* origin = nullptr) {
  const std::string what = e.what();
  if (what.empty() || (origin && what.find(origin) == std::string::npos)) {
    std::fprintf(stderr, "unclean error: \"%s\"\n", what.c_str());
    std::abort();
  }
}

}  // namespace npu::fuzz
