#include "apps/cli/options.h"

#include <iostream>

namespace npu::cli {

std::optional<po::variables_map> parse_command_line(const std::string& usage,
                                                    po::options_description& options,
                                                    const po::positional_options_description& positional,
                                                    const std::vector<std::string>& args) {
  options.add_options()("help,h", "show this help");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << "usage: " << usage << "\n\n" << options << "\n";
    return std::nullopt;
  }
  po::notify(vm);
  return vm;
}

}  // namespace npu::cli
