#include "compiler/lowering_cache.h"

#include <filesystem>
#include <list>
#include <mutex>
#include <utility>

#include "compiler/pipeline.h"

namespace npu::compiler {

namespace {

std::size_t models_kept = 2;  // a sweep alternates between a few models at most
std::mutex cache_mutex;

std::string stamp(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return "?";
  const auto time = std::filesystem::last_write_time(path, ec).time_since_epoch().count();
  return std::to_string(size) + "@" + std::to_string(time);
}

std::string cache_key(const std::string& onnx_path, const CompileOptions& options, const HardwareConfig* config) {
  std::string key = onnx_path + '\n' + stamp(onnx_path) + '\n' +
                    std::to_string(static_cast<int>(options.precision)) + '\n' + options.calibration_dir + '\n' +
                    (options.calibration_dir.empty() ? "" : stamp(options.calibration_dir)) + '\n' +
                    (options.strict ? "strict" : "") + '\n' + std::to_string(options.max_tensor_bytes) + '\n';
  for (const auto& shape : options.input_shapes) key += shape + ';';
  key += '\n';
  for (const auto& value : options.input_values) key += value + ';';
  key += '\n' + quant_options_key(options.quant);
  if (config && options.quant.mixed) key += '\n' + dump_hardware_config(*config);
  return key;
}

}  // namespace


std::shared_ptr<const LoweredModel> lower_with_cache(const std::string& onnx_path, const CompileOptions& options,
                                                     const HardwareConfig* config) {
  auto lower = [&] {
    auto lowered = std::make_shared<LoweredModel>();
    lowered->graph = lower_graph(onnx_path, options, lowered->model, config);
    return std::shared_ptr<const LoweredModel>(std::move(lowered));
  };
  if (!options.dump_dir.empty()) return lower();

  std::mutex& mutex = cache_mutex;
  static std::list<std::pair<std::string, std::shared_ptr<const LoweredModel>>> recent;  // most recent first
  const std::string key = cache_key(onnx_path, options, config);
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = recent.begin(); it != recent.end(); ++it)
      if (it->first == key) {
        recent.splice(recent.begin(), recent, it);
        return recent.front().second;
      }
  }
  auto lowered = lower();  // outside the lock: lowering takes a while and may throw
  std::lock_guard<std::mutex> lock(mutex);
  recent.emplace_front(key, lowered);
  while (recent.size() > models_kept) recent.pop_back();
  return lowered;
}

void set_lowered_models_kept(std::size_t models) {
  std::lock_guard<std::mutex> lock(cache_mutex);
  models_kept = models;
}

}  // namespace npu::compiler
