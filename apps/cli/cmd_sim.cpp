#include <fstream>
#include <iostream>

#include <fmt/core.h>

#include "apps/cli/command.h"
#include "apps/cli/options.h"
#include "container/program_file.h"
#include "hwconfig/hardware_config.h"
#include "isa/instruction_set.h"
#include "report/sim_summary.h"
#include "runtime/input_check.h"
#include "runtime/program_io.h"
#include "sim/hazard_check.h"
#include "sim/simulator.h"
#include "sim/trace_writer.h"

namespace npu::cli {
namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!(out << text)) throw std::runtime_error(path + ": cannot write file");
}

int run_sim(const std::vector<std::string>& args) {
  po::options_description opts("sim options");
  opts.add_options()
      ("program", po::value<std::string>()->required(), "program (.npuprog or .npuasm)")
      ("config,c", po::value<std::string>()->required(), "hardware config YAML (configs/*.yaml)")
      ("timing-only", po::bool_switch(), "skip the arithmetic; cycles are identical")
      ("input,i", po::value<std::vector<std::string>>()->composing(), "NAME=FILE.npy for an input tensor (repeatable)")
      ("seed", po::value<std::uint64_t>()->default_value(runtime::kDefaultInputSeed), "seed for inputs not given as files")
      ("save-outputs", po::value<std::string>(), "write each output tensor to DIR/<name>.npy")
      ("json", po::value<std::string>(), "write the report as JSON")
      ("trace", po::value<std::string>(), "write a Chrome/Perfetto trace (open in ui.perfetto.dev)")
      ("vcd", po::value<std::string>(), "write a VCD of unit and DMA-channel busy signals (GTKWave)")
      ("check-hazards", po::bool_switch(),
       "check the run against the instructions' footprints: an instruction that starts before an earlier one "
       "touching the same bytes (one of them writing) has finished is a race; exit 1 if any")
      ("quiet,q", po::bool_switch(), "print nothing but errors");
  po::positional_options_description pos;
  pos.add("program", 1);
  auto vm = parse_command_line("npusim sim PROGRAM --config CFG [--timing-only] [--json OUT] [--trace OUT.json] [--vcd OUT.vcd]",
                               opts, pos, args);
  if (!vm) return kExitOk;

  const auto config = load_hardware_config((*vm)["config"].as<std::string>());
  const auto program = container::load_program_file((*vm)["program"].as<std::string>());
  sim::DdrImage ddr;
  ddr.place(program);
  const auto files = runtime::parse_named_files(
      vm->count("input") ? (*vm)["input"].as<std::vector<std::string>>() : std::vector<std::string>{});
  const auto notes = runtime::place_inputs(program, files, (*vm)["seed"].as<std::uint64_t>(), ddr);

  sim::SimOptions options;
  options.timing_only = (*vm)["timing-only"].as<bool>();
  const bool check_hazards = (*vm)["check-hazards"].as<bool>();
  options.record_trace = vm->count("trace") > 0 || check_hazards;
  if (vm->count("vcd")) options.vcd_path = (*vm)["vcd"].as<std::string>();
  const auto result = sim::simulate(program, config, ddr, options);

  const bool quiet = (*vm)["quiet"].as<bool>();
  if (!quiet) {
    for (const auto& n : notes) fmt::print("{}\n", n);
    fmt::print("{}", report::format_sim_report(result, config));
  }
  if (vm->count("json")) write_file((*vm)["json"].as<std::string>(), report::sim_report_json(result, config).dump(2) + "\n");
  if (vm->count("trace")) {
    std::ofstream out((*vm)["trace"].as<std::string>());
    sim::write_chrome_trace(result, config, out);
    if (!out) throw std::runtime_error((*vm)["trace"].as<std::string>() + ": cannot write file");
  }
  if (vm->count("save-outputs")) {
    if (options.timing_only) throw std::runtime_error("--save-outputs needs a functional run (drop --timing-only)");
    runtime::save_outputs(program, ddr, (*vm)["save-outputs"].as<std::string>());
  }
  if (check_hazards) {
    const auto hazards = sim::find_hazards(program.code, result.trace);
    for (const auto& h : hazards)
      fmt::print(stderr, "hazard: instruction {} ({}) starts at cycle {}, before instruction {} ({}) ends at {}: {}\n",
                 h.later, isa::opcode_info(program.code[h.later].opcode).mnemonic, h.later_start, h.earlier,
                 isa::opcode_info(program.code[h.earlier].opcode).mnemonic, h.earlier_end, h.what);
    if (!hazards.empty()) return 1;
    if (!quiet) fmt::print("hazards: none ({} instructions checked against their footprints)\n", program.code.size());
  }
  return kExitOk;
}

const CommandRegistration sim_command({"sim", "simulate a program on a hardware config and print the report", run_sim});

}  // namespace
}  // namespace npu::cli
