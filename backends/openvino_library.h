// Finding and loading OpenVINO's C library at run time. Where it looks, in order, stopping at
// the first place that is configured or exists:
//   1. NPUSIM_OPENVINO_LIB: the library file or its directory. When set, nothing else is
//      tried — a wrong path is reported, not papered over with another installation.
//   2. The `openvino` Python package of the embedded interpreter (pip install openvino): its
//      libs/ directory holds libopenvino_c.so.<version> with the CPU/GPU/NPU plugins beside it.
//   3. The dynamic linker's search path (LD_LIBRARY_PATH, an OpenVINO archive's setupvars.sh).
#pragma once
#include <memory>
#include <string>

#include "backends/openvino_c_api.h"

namespace npu::backends {

class OpenVinoLibrary {
 public:
  const ov::Api& api() const { return api_; }
  const std::string& path() const { return path_; }       // the file that was loaded
  const std::string& version() const { return version_; } // build number, e.g. "2026.4.1-20513-..."
  // The value of ov_element_type_e for `type` in THIS library's numbering (see ElementType).
  int element_type_code(ov::ElementType type) const;
  ov::ElementType element_type_from_code(int code) const;
  // Last error text of a failed call, one line.
  std::string error_text(ov::Status status) const;

  // The process-wide library, loaded on first use. Throws one line saying why it cannot be
  // had: not found (and where it looked), not an OpenVINO C library, or too old a version.
  static const OpenVinoLibrary& get();

 private:
  OpenVinoLibrary() = default;
  static std::unique_ptr<OpenVinoLibrary> load();

  ov::Api api_{};
  std::string path_;
  std::string version_;
  bool dynamic_is_separate_ = false;  // releases before 2025.1 numbered element types from 2
};

// Oldest OpenVINO whose C API has every function npusim calls with today's signatures.
constexpr int kOpenVinoMinMajor = 2023;

}  // namespace npu::backends
