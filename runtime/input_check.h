// Checking what the user hands in against the model's input descriptors, and making up
// deterministic inputs when the user gives none.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/tensor.h"

namespace npu::runtime {

// Throws one line naming the input and what was expected: an unknown name, a missing input,
// a wrong dtype or a wrong shape. `origins` (input name → file) makes the message name the file.
void check_inputs(const std::vector<TensorDesc>& expected, const std::map<std::string, HostTensor>& given,
                  const std::map<std::string, std::string>& origins = {});

// Same values for the same descriptor and seed: floats uniform in [-1, 1), integers in
// [0, 4) (small enough to be valid indices and counts), bools 0/1.
HostTensor random_input(const TensorDesc& desc, std::uint64_t seed);

// Inputs nobody gives are drawn from this seed, in every app (the CLI, Python, the back ends,
// calibrate): the same seed gives the same inputs whichever of them runs the model.
constexpr std::uint64_t kDefaultInputSeed = 1;

// Input i of `inputs` drawn with random_input(inputs[i], seed + i).
std::map<std::string, HostTensor> generate_inputs(const std::vector<TensorDesc>& inputs, std::uint64_t seed);

}  // namespace npu::runtime
