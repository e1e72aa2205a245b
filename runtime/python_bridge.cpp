#include "runtime/python_bridge.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace npu::runtime {

namespace {

std::mutex bridge_mutex;
PythonBridgeLookup bridge_lookup = nullptr;  // guarded by bridge_mutex
std::string bridge_failure;                  // a failed load is remembered: it will not change

std::vector<fs::path> candidates() {
  if (const char* env = std::getenv(kPythonBridgeEnvVar); env && *env) return {fs::path(env)};
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {fs::path(kPythonBridgeLibrary)};
  return {exe.parent_path() / kPythonBridgeLibrary, exe.parent_path().parent_path() / "lib" / kPythonBridgeLibrary};
}

PythonBridgeLookup load_bridge() {
  std::string tried;
  for (const auto& path : candidates()) {
    std::error_code ec;
    if (path.has_parent_path() && !fs::exists(path, ec)) {
      tried += (tried.empty() ? "" : ", ") + path.string();
      continue;
    }
    // RTLD_GLOBAL: libpython comes in as the bridge's dependency, and the extension modules
    // Python imports later (numpy, onnxruntime) resolve its symbols from the global scope.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!handle) throw std::runtime_error(fmt::format("cannot load {}: {}", path.string(), dlerror()));
    auto lookup = reinterpret_cast<PythonBridgeLookup>(dlsym(handle, "npusim_python_bridge_lookup"));
    if (!lookup) throw std::runtime_error(fmt::format("{} is not npusim's Python bridge", path.string()));
    return lookup;  // kept loaded: the interpreter inside is never finalized
  }
  throw std::runtime_error(fmt::format("{} not found (looked at {}; set {})", kPythonBridgeLibrary, tried,
                                       kPythonBridgeEnvVar));
}

}  // namespace

void provide_python_bridge(PythonBridgeLookup lookup) {
  const std::lock_guard lock(bridge_mutex);
  bridge_lookup = lookup;
}

void* python_bridge_symbol(const char* symbol) {
  PythonBridgeLookup lookup;
  {
    const std::lock_guard lock(bridge_mutex);
    if (!bridge_lookup && bridge_failure.empty()) {
      try {
        bridge_lookup = load_bridge();
      } catch (const std::exception& e) {
        bridge_failure = e.what();
      }
    }
    if (!bridge_lookup) throw std::runtime_error("Python bridge: " + bridge_failure);
    lookup = bridge_lookup;
  }
  void* f = lookup(symbol);
  if (!f) throw std::runtime_error(fmt::format("Python bridge: no entry point {} (a bridge from another build?)", symbol));
  return f;
}

}  // namespace npu::runtime
