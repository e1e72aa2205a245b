// Subcommands register themselves; main() only dispatches. Adding a command is one new file.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace npu::cli {

struct Command {
  std::string name;
  std::string summary;
  // args excludes the program and command names; returns the exit code
  std::function<int(const std::vector<std::string>& args)> run;
};

std::vector<Command>& command_registry();

struct CommandRegistration {
  explicit CommandRegistration(Command c) { command_registry().push_back(std::move(c)); }
};

// Exit codes shared by all commands.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;   // bad input, failed run
constexpr int kExitUsage = 2;   // bad command line

}  // namespace npu::cli
