// The quantisation options as the front ends spell them (the CLI's --precision,
// --calib-method, ... and the Python package's keyword arguments), read in one place.
#pragma once
#include <string>

#include "compiler/core/compile_options.h"

namespace npu::compiler {

struct QuantSpelling {
  std::string precision = "int8";  // int8 | fp16 | mixed (int8 with fp16 layers where needed)
  std::string calib_method = calibration_method_name(QuantOptions{}.method);
  double calib_percentile = QuantOptions{}.percentile;
  std::string activations = "asymmetric";  // or symmetric
  std::string accuracy_target;             // "" or cosine=X | sqnr=DB; --precision mixed only
  std::string keep_fp16;                   // "" or NODE,...; int8 or mixed only
  std::string weights;                     // "" or int8 | int4: weight-only quantisation; fp16 only
  std::string group_size;                  // "" or N: int4's weights per scale (default 128)
};

// Sets options.precision and options.quant; throws CompileError with one line naming the bad
// option in the CLI's spelling.
void apply_quant_spelling(const QuantSpelling& spelling, CompileOptions& options);

}  // namespace npu::compiler
