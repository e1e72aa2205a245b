// The part of OpenVINO's C API (openvino/c/openvino.h) that npusim calls, declared here so
// the build needs no OpenVINO headers: handles are opaque, structs and signatures are copied
// from the 2025.4 headers and have been stable since 2023.0. The library is loaded with dlopen
// and every function is looked up by name (openvino_library.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

namespace npu::backends::ov {

struct Core;
struct Model;
struct CompiledModel;
struct InferRequest;
struct Tensor;
struct ConstPort;

using Status = int;  // ov_status_e: 0 is OK, negative values are errors
constexpr Status kOk = 0;

struct Version {
  const char* build_number;
  const char* description;
};
struct CoreVersion {
  const char* device_name;
  Version version;
};
struct CoreVersionList {
  CoreVersion* versions;
  std::size_t size;
};
struct AvailableDevices {
  char** devices;
  std::size_t size;
};
struct Shape {
  std::int64_t rank;
  std::int64_t* dims;
};
struct ProfilingInfo {
  enum class State : int { NotRun, OptimizedOut, Executed } status;
  std::int64_t real_time_us;
  std::int64_t cpu_time_us;
  const char* node_name;
  const char* exec_type;
  const char* node_type;
};
struct ProfilingInfoList {
  ProfilingInfo* infos;
  std::size_t size;
};

// ov_element_type_e as of 2025.1. Before 2025.1, DYNAMIC was its own value right after
// UNDEFINED, so every type below sat one higher: OpenVinoLibrary::element_type_code adds it.
enum class ElementType : int {
  Undefined = 0, Boolean, BF16, F16, F32, F64, I4, I8, I16, I32, I64, U1, U2, U3, U4, U6, U8, U16, U32, U64
};

// Function pointer types, one per C function used.
struct Api {
  Status (*get_openvino_version)(Version*);
  void (*version_free)(Version*);
  Status (*core_create)(Core**);
  void (*core_free)(Core*);
  Status (*core_get_available_devices)(const Core*, AvailableDevices*);
  void (*available_devices_free)(AvailableDevices*);
  Status (*core_get_versions_by_device_name)(const Core*, const char*, CoreVersionList*);
  void (*core_versions_free)(CoreVersionList*);
  Status (*core_read_model)(const Core*, const char* model_path, const char* bin_path, Model**);
  void (*model_free)(Model*);
  // Variadic: property_args_size strings follow as key, value, key, value ...
  Status (*core_compile_model)(const Core*, const Model*, const char* device, std::size_t property_args_size,
                               CompiledModel**, ...);
  void (*compiled_model_free)(CompiledModel*);
  Status (*compiled_model_get_property)(const CompiledModel*, const char* key, char** value);
  Status (*compiled_model_create_infer_request)(const CompiledModel*, InferRequest**);
  Status (*compiled_model_inputs_size)(const CompiledModel*, std::size_t*);
  Status (*compiled_model_outputs_size)(const CompiledModel*, std::size_t*);
  Status (*compiled_model_input_by_index)(const CompiledModel*, std::size_t, ConstPort**);
  Status (*compiled_model_output_by_index)(const CompiledModel*, std::size_t, ConstPort**);
  Status (*port_get_any_name)(const ConstPort*, char**);
  Status (*port_get_element_type)(const ConstPort*, int*);
  void (*output_const_port_free)(ConstPort*);
  void (*free_string)(const char*);  // ov_free
  Status (*shape_create)(std::int64_t rank, const std::int64_t* dims, Shape*);
  Status (*shape_free)(Shape*);
  // ov_shape_t is passed by value.
  Status (*tensor_create_from_host_ptr)(int element_type, Shape, void* host_ptr, Tensor**);
  void (*tensor_free)(Tensor*);
  Status (*tensor_get_shape)(const Tensor*, Shape*);
  Status (*tensor_get_element_type)(const Tensor*, int*);
  Status (*tensor_get_byte_size)(const Tensor*, std::size_t*);
  Status (*tensor_data)(const Tensor*, void**);
  void (*infer_request_free)(InferRequest*);
  Status (*infer_request_set_input_tensor_by_index)(InferRequest*, std::size_t, const Tensor*);
  Status (*infer_request_get_output_tensor_by_index)(const InferRequest*, std::size_t, Tensor**);
  Status (*infer_request_infer)(InferRequest*);
  Status (*infer_request_get_profiling_info)(const InferRequest*, ProfilingInfoList*);
  void (*profiling_info_list_free)(ProfilingInfoList*);
  const char* (*get_error_info)(Status);
  const char* (*get_last_err_msg)();  // since 2023.1; may be null
};

}  // namespace npu::backends::ov
