#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/core.h>

#include "apps/cli/command.h"
#include "apps/cli/options.h"
#include "container/program_file.h"
#include "isa/assembler.h"

namespace npu::cli {
namespace {

void write_to_output_or_stdout(const po::variables_map& vm, const std::string& text) {
  if (!vm.count("output")) {
    std::cout << text;
    return;
  }
  const auto path = vm["output"].as<std::string>();
  std::ofstream out(path);
  if (!(out << text)) throw std::runtime_error(path + ": cannot write file");
}

int run_asm(const std::vector<std::string>& args) {
  po::options_description opts("asm options");
  opts.add_options()("input", po::value<std::string>()->required(), "assembly file (.npuasm)")(
      "output,o", po::value<std::string>()->required(), "program file to write (.npuprog)");
  po::positional_options_description pos;
  pos.add("input", 1);
  auto vm = parse_command_line("npusim asm PROGRAM.npuasm -o PROGRAM.npuprog", opts, pos, args);
  if (!vm) return kExitOk;
  const auto in = (*vm)["input"].as<std::string>();
  std::ifstream file(in);
  if (!file) throw std::runtime_error(in + ": cannot open file");
  std::stringstream text;
  text << file.rdbuf();
  const auto program = isa::assemble(text.str(), in);
  isa::save_program(program, (*vm)["output"].as<std::string>());
  fmt::print("{}: {} instructions, {} data segments, {} tensors\n", (*vm)["output"].as<std::string>(),
             program.code.size(), program.data.size(), program.tensors.size());
  return kExitOk;
}

int run_disasm(const std::vector<std::string>& args) {
  po::options_description opts("disasm options");
  opts.add_options()("input", po::value<std::string>()->required(), "program file (.npuprog)")(
      "output,o", po::value<std::string>(), "write the assembly here instead of stdout");
  po::positional_options_description pos;
  pos.add("input", 1);
  auto vm = parse_command_line("npusim disasm PROGRAM.npuprog [-o OUT.npuasm]", opts, pos, args);
  if (!vm) return kExitOk;
  write_to_output_or_stdout(*vm, isa::disassemble(isa::load_program((*vm)["input"].as<std::string>())));
  return kExitOk;
}

int run_isa_doc(const std::vector<std::string>& args) {
  po::options_description opts("isa-doc options");
  opts.add_options()("output,o", po::value<std::string>(), "write here instead of stdout (isa/ISA.md)");
  auto vm = parse_command_line("npusim isa-doc [-o isa/ISA.md]", opts, {}, args);
  if (!vm) return kExitOk;
  write_to_output_or_stdout(*vm, isa::generate_isa_markdown());
  return kExitOk;
}

const CommandRegistration asm_command({"asm", "assemble .npuasm text into a .npuprog program", run_asm});
const CommandRegistration disasm_command({"disasm", "print a .npuprog program as .npuasm text", run_disasm});
const CommandRegistration isa_doc_command({"isa-doc", "print the ISA reference (isa/ISA.md) from the ISA table", run_isa_doc});

}  // namespace
}  // namespace npu::cli
