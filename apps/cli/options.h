// Boost.Program_options glue shared by every subcommand: --help, positional arguments and
// one-line errors.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace npu::cli {

namespace po = boost::program_options;

// Adds --help, parses `args`, prints help and returns nullopt when asked for it.
std::optional<po::variables_map> parse_command_line(const std::string& usage,
                                                    po::options_description& options,
                                                    const po::positional_options_description& positional,
                                                    const std::vector<std::string>& args);

}  // namespace npu::cli
