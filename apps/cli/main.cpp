#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <boost/program_options/errors.hpp>
#include <fmt/core.h>

#include <systemc>  // declares sc_main extern "C", as libsystemc expects

#include "apps/cli/command.h"

namespace npu::cli {

std::vector<Command>& command_registry() {
  static std::vector<Command> commands;
  return commands;
}

namespace {

void print_usage() {
  fmt::print("usage: npusim <command> [options]   (npusim <command> --help for details)\n\ncommands:\n");
  auto commands = command_registry();
  std::sort(commands.begin(), commands.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  for (const auto& c : commands) fmt::print("  {:<16} {}\n", c.name, c.summary);
}

// Errors are one line: names taken from a file (an ONNX node called "a\nb") must not break
// it, so control characters are shown escaped.
std::string one_line(const std::string& text) {
  std::string out;
  for (const unsigned char c : text) {
    if (c == '\n') out += "\\n";
    else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += static_cast<char>(c);
  }
  return out;
}

// The FP32 evaluator (calibration) and the importer allocate and free tensors of megabytes
// node after node. glibc serves those with mmap and returns them (and the heap's top) to the
// system at once, so every tensor page faults afresh: a third of a ResNet-50 compile was
// kernel time. A process that exits when its command is done keeps them instead
// (npusim compile of ResNet-50 on default.yaml, user+sys: about 3.0 s -> 2.6 s; peak RSS 372 -> 409 MB).
void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace
}  // namespace npu::cli

// libsystemc owns main() and calls this.
int sc_main(int argc, char** argv) {
  using namespace npu::cli;
  keep_freed_memory();
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
      std::string(argv[1]) == "help") {
    print_usage();
    return argc < 2 ? kExitUsage : kExitOk;
  }
  const std::string name = argv[1];
  for (const auto& command : command_registry()) {
    if (command.name != name) continue;
    std::vector<std::string> args(argv + 2, argv + argc);
    try {
      return command.run(args);
    } catch (const boost::program_options::error& e) {
      fmt::print(stderr, "npusim {}: {} (see npusim {} --help)\n", name, one_line(e.what()), name);
      return kExitUsage;
    } catch (const std::exception& e) {
      fmt::print(stderr, "npusim {}: error: {}\n", name, one_line(e.what()));
      return kExitError;
    }
  }
  fmt::print(stderr, "npusim: unknown command '{}' (npusim --help lists them)\n", name);
  return kExitUsage;
}
