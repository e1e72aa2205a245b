// DDR timing models, picked by name from DdrConfig::model (Ramulator-style): the DDR target
// owns one and asks it when each transaction's data arrives. A new model is one new file
// plus one line in ddr_model_registry.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hwconfig/hardware_config.h"

namespace npu::sim {

class DdrTimingModel {
 public:
  virtual ~DdrTimingModel() = default;
  // A transaction of `bytes` at `addr` whose request reaches the controller at `issue_ns`
  // (absolute). Returns the absolute time its last byte has arrived, in ns. Reserves the
  // channels it uses, so later transactions queue behind it.
  virtual double access(std::uint64_t addr, std::uint64_t bytes, bool write, double issue_ns) = 0;

  std::uint64_t bus_bytes() const { return bus_bytes_; }    // whole bursts moved
  std::uint64_t row_misses() const { return row_misses_; }  // banked model only

 protected:
  std::uint64_t bus_bytes_ = 0;
  std::uint64_t row_misses_ = 0;
};

using DdrModelFactory = std::unique_ptr<DdrTimingModel> (*)(const DdrConfig&);

// Throws SimError naming the known models when `config.model` is unknown.
std::unique_ptr<DdrTimingModel> make_ddr_model(const DdrConfig& config);
std::vector<std::string> ddr_model_names();

// Implementations (each in its own file).
std::unique_ptr<DdrTimingModel> make_simple_ddr(const DdrConfig& config);
std::unique_ptr<DdrTimingModel> make_banked_ddr(const DdrConfig& config);
std::unique_ptr<DdrTimingModel> make_ideal_ddr(const DdrConfig& config);

}  // namespace npu::sim
