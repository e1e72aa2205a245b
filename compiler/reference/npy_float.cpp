#include "compiler/reference/npy_float.h"

#include <cstring>

#include "container/npy_file.h"
#include "isa/fp16.h"

namespace npu::compiler {

FloatTensor read_npy_as_float(const std::string& path) {
  container::NpyArray array;
  try {
    array = container::read_npy(path);
  } catch (const CompileError&) {
    throw;
  } catch (const std::exception& e) {
    throw CompileError(e.what());
  }
  FloatTensor t;
  t.shape = array.shape;
  const std::size_t n = array.element_count();
  t.data.resize(n);
  auto load = [&](auto sample) {
    using T = decltype(sample);
    for (std::size_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, array.data.data() + i * sizeof(T), sizeof(T));
      t.data[i] = static_cast<float>(v);
    }
  };
  const std::string& d = array.dtype;
  if (d == "f4") load(float{});
  else if (d == "f8") load(double{});
  else if (d == "i8") load(std::int64_t{});
  else if (d == "i4") load(std::int32_t{});
  else if (d == "i1") load(std::int8_t{});
  else if (d == "u1") load(std::uint8_t{});
  else if (d == "f2") {
    for (std::size_t i = 0; i < n; ++i) {
      std::uint16_t h;
      std::memcpy(&h, array.data.data() + i * 2, 2);
      t.data[i] = isa::half_to_float(h);
    }
  } else {
    throw CompileError(path + ": dtype '" + d + "' is not supported");
  }
  return t;
}

}  // namespace npu::compiler
