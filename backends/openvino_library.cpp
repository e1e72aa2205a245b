#include "backends/openvino_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "backends/python_backends.h"
#include "runtime/python_bridge.h"

namespace fs = std::filesystem;

namespace npu::backends {

namespace {

constexpr const char* kEnvVar = "NPUSIM_OPENVINO_LIB";

// libopenvino_c.so, or the versioned file a wheel ships alone (libopenvino_c.so.2641).
std::string find_c_library_in(const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir / "libopenvino_c.so", ec)) return (dir / "libopenvino_c.so").string();
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().filename().string().rfind("libopenvino_c.so.", 0) == 0) return entry.path().string();
  return "";
}

// The installed Python package's libs/ directory, asked of the Python bridge.
std::string python_package_lib_dir(std::string* why_not) {
  try {
    std::string dir;
    auto* find = runtime::python_bridge_function<OpenVinoPackageLibDirFn>(kOpenVinoPackageLibDir);
    return find(&dir, why_not) ? dir : "";
  } catch (const std::exception& e) {
    *why_not = fmt::format("cannot ask Python for the openvino package: {}", e.what());
    return "";
  }
}

struct Located {
  std::string path;    // a file to dlopen: a path, or a bare soname for the linker's search
  std::string where;   // how it was found, for messages
};

Located locate() {
  if (const char* env = std::getenv(kEnvVar); env && *env) {
    const fs::path p = env;
    std::error_code ec;
    if (!fs::exists(p, ec)) throw std::runtime_error(fmt::format("{}={}: no such file or directory", kEnvVar, env));
    if (fs::is_directory(p, ec)) {
      auto file = find_c_library_in(p);
      if (file.empty()) throw std::runtime_error(fmt::format("{}={}: no libopenvino_c.so* in that directory", kEnvVar, env));
      return {file, kEnvVar};
    }
    return {p.string(), kEnvVar};
  }
  std::string why_not_python;
  const auto dir = python_package_lib_dir(&why_not_python);
  if (!dir.empty()) {
    auto file = find_c_library_in(dir);
    if (!file.empty()) return {file, "the openvino Python package"};
    why_not_python = fmt::format("the openvino Python package has no libopenvino_c.so* in {}", dir);
  }
  return {"libopenvino_c.so", "the dynamic linker's search path (" + why_not_python + ")"};
}

template <typename F>
void resolve(void* handle, const char* symbol, F& slot, const std::string& path) {
  slot = reinterpret_cast<F>(dlsym(handle, symbol));
  if (!slot)
    throw std::runtime_error(fmt::format("{}: not an OpenVINO C library, or one without {} (too old?)", path, symbol));
}

// "2026.4.1-20513-..." -> {2026, 4}; {0, 0} when unreadable.
std::pair<int, int> major_minor(const std::string& build) {
  int major = 0, minor = 0;
  std::sscanf(build.c_str(), "%d.%d", &major, &minor);
  return {major, minor};
}

}  // namespace

const OpenVinoLibrary& OpenVinoLibrary::get() {
  // A failure is remembered too: the answer does not change within a process.
  static std::once_flag once;
  static std::unique_ptr<OpenVinoLibrary> library;
  static std::string failure;
  std::call_once(once, [] {
    try {
      library = load();
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  if (!library) throw std::runtime_error(failure);
  return *library;
}

std::unique_ptr<OpenVinoLibrary> OpenVinoLibrary::load() {
  const auto located = locate();
  // RTLD_LOCAL: OpenVINO's symbols stay out of the global namespace, where they could clash
  // with a second copy (e.g. one that ONNX Runtime's OpenVINO execution provider brings).
  void* handle = dlopen(located.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw std::runtime_error(fmt::format("libopenvino_c not loadable (looked via {}): {}", located.where, dlerror()));
  // Kept loaded for the life of the process: plugins and static objects inside it are not
  // safe to unload.
  std::unique_ptr<OpenVinoLibrary> lib(new OpenVinoLibrary);
  std::string path = located.path;
  if (char origin[4096]; path.find('/') == std::string::npos && dlinfo(handle, RTLD_DI_ORIGIN, origin) == 0)
    path = std::string(origin) + "/" + path;
  ov::Api& a = lib->api_;
  lib->path_ = path;

  // Version first: it needs two functions only, so even an old library gets a clear answer.
  resolve(handle, "ov_get_openvino_version", a.get_openvino_version, path);
  resolve(handle, "ov_version_free", a.version_free, path);
  ov::Version v{};
  if (a.get_openvino_version(&v) != ov::kOk || !v.build_number)
    throw std::runtime_error(fmt::format("{}: ov_get_openvino_version failed", path));
  lib->version_ = v.build_number;
  a.version_free(&v);
  const auto [major, minor] = major_minor(lib->version_);
  if (major < kOpenVinoMinMajor)
    throw std::runtime_error(fmt::format(
        "version mismatch: {} is OpenVINO {}, npusim needs {}.0 or newer (its C API signatures)", path,
        lib->version_, kOpenVinoMinMajor));
  lib->dynamic_is_separate_ = major < 2025 || (major == 2025 && minor < 1);

  resolve(handle, "ov_core_create", a.core_create, path);
  resolve(handle, "ov_core_free", a.core_free, path);
  resolve(handle, "ov_core_get_available_devices", a.core_get_available_devices, path);
  resolve(handle, "ov_available_devices_free", a.available_devices_free, path);
  resolve(handle, "ov_core_get_versions_by_device_name", a.core_get_versions_by_device_name, path);
  resolve(handle, "ov_core_versions_free", a.core_versions_free, path);
  resolve(handle, "ov_core_read_model", a.core_read_model, path);
  resolve(handle, "ov_model_free", a.model_free, path);
  resolve(handle, "ov_core_compile_model", a.core_compile_model, path);
  resolve(handle, "ov_compiled_model_free", a.compiled_model_free, path);
  resolve(handle, "ov_compiled_model_get_property", a.compiled_model_get_property, path);
  resolve(handle, "ov_compiled_model_create_infer_request", a.compiled_model_create_infer_request, path);
  resolve(handle, "ov_compiled_model_inputs_size", a.compiled_model_inputs_size, path);
  resolve(handle, "ov_compiled_model_outputs_size", a.compiled_model_outputs_size, path);
  resolve(handle, "ov_compiled_model_input_by_index", a.compiled_model_input_by_index, path);
  resolve(handle, "ov_compiled_model_output_by_index", a.compiled_model_output_by_index, path);
  resolve(handle, "ov_port_get_any_name", a.port_get_any_name, path);
  resolve(handle, "ov_port_get_element_type", a.port_get_element_type, path);
  resolve(handle, "ov_output_const_port_free", a.output_const_port_free, path);
  resolve(handle, "ov_free", a.free_string, path);
  resolve(handle, "ov_shape_create", a.shape_create, path);
  resolve(handle, "ov_shape_free", a.shape_free, path);
  resolve(handle, "ov_tensor_create_from_host_ptr", a.tensor_create_from_host_ptr, path);
  resolve(handle, "ov_tensor_free", a.tensor_free, path);
  resolve(handle, "ov_tensor_get_shape", a.tensor_get_shape, path);
  resolve(handle, "ov_tensor_get_element_type", a.tensor_get_element_type, path);
  resolve(handle, "ov_tensor_get_byte_size", a.tensor_get_byte_size, path);
  resolve(handle, "ov_tensor_data", a.tensor_data, path);
  resolve(handle, "ov_infer_request_free", a.infer_request_free, path);
  resolve(handle, "ov_infer_request_set_input_tensor_by_index", a.infer_request_set_input_tensor_by_index, path);
  resolve(handle, "ov_infer_request_get_output_tensor_by_index", a.infer_request_get_output_tensor_by_index, path);
  resolve(handle, "ov_infer_request_infer", a.infer_request_infer, path);
  resolve(handle, "ov_infer_request_get_profiling_info", a.infer_request_get_profiling_info, path);
  resolve(handle, "ov_profiling_info_list_free", a.profiling_info_list_free, path);
  resolve(handle, "ov_get_error_info", a.get_error_info, path);
  a.get_last_err_msg = reinterpret_cast<const char* (*)()>(dlsym(handle, "ov_get_last_err_msg"));
  return lib;
}

int OpenVinoLibrary::element_type_code(ov::ElementType type) const {
  const int code = static_cast<int>(type);
  return (dynamic_is_separate_ && code > 0) ? code + 1 : code;
}

ov::ElementType OpenVinoLibrary::element_type_from_code(int code) const {
  if (dynamic_is_separate_ && code > 1) --code;
  return static_cast<ov::ElementType>(code);
}

std::string OpenVinoLibrary::error_text(ov::Status status) const {
  std::string text;
  if (api_.get_last_err_msg)
    if (const char* m = api_.get_last_err_msg(); m && *m) text = m;
  if (text.empty() && api_.get_error_info)
    if (const char* m = api_.get_error_info(status)) text = m;
  if (text.empty()) text = fmt::format("status {}", status);
  // OpenVINO's messages span lines and carry source locations; the CLI promises one line.
  std::string one_line;
  for (char c : text) {
    if (c == '\n') {
      if (!one_line.empty() && one_line.back() != ' ') one_line += ' ';
    } else {
      one_line += c;
    }
  }
  while (!one_line.empty() && one_line.back() == ' ') one_line.pop_back();
  return one_line;
}

}  // namespace npu::backends
