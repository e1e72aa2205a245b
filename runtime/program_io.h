// Moving a program's input and output tensors between files and the simulated DDR.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "container/npy_file.h"
#include "isa/program.h"
#include "sim/simulator.h"

namespace npu::runtime {

// "name=path" pairs from the command line; throws naming the malformed argument.
std::map<std::string, std::string> parse_named_files(const std::vector<std::string>& args);

// Writes each input tensor: from `files` when given (dtype and element count must match),
// else from program data if a data segment covers it, else deterministic random values.
// Returns one line per input saying what was done.
std::vector<std::string> place_inputs(const isa::Program& program, const std::map<std::string, std::string>& files,
                                      std::uint64_t seed, sim::DdrImage& ddr);

container::NpyArray read_tensor(const isa::TensorEntry& tensor, const sim::DdrImage& ddr);
void save_outputs(const isa::Program& program, const sim::DdrImage& ddr, const std::string& dir);

}  // namespace npu::runtime
