// The .npuprog container: a versioned header, then sections (code, constant data, tensor
// table, and later ones such as CPU segments). Unknown section kinds are skipped by older
// readers; the loader bounds-checks every offset, size and count.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "isa/instruction.h"

namespace npu::isa {

// 2: act's function widened to 5 bits (moving its later fields), gemm's zero points and
// b_transposed, softmax's inner, and the instructions after halt.
// 3: each tensor entry carries its host layout (after its layout).
constexpr std::uint32_t kProgramVersion = 3;

enum class TensorRole : std::uint8_t { Input = 0, Output = 1, Constant = 2, Intermediate = 3 };

// Where a tensor lives in DDR, so the runtime can place inputs and read outputs.
struct TensorEntry {
  std::string name;
  TensorRole role = TensorRole::Intermediate;
  DType dtype = DType::Int8;
  std::vector<std::int64_t> shape;
  // The bytes in DDR: "NHWC" (shape [N,H,W,C]), "NC"/"ND" row-major, "ND[a,b,...]", or
  // "strided[s0,s1,...]": element i of the row-major logical shape at sum(i_a * s_a) elements, a
  // view inside another tensor's bytes (a model input the host writes into the Concat output
  // that extends it, such as a decoder's KV cache); size_bytes then spans first to last element.
  std::string layout = "NHWC";
  std::uint64_t ddr_addr = 0;
  std::uint64_t size_bytes = 0;
  float scale = 1.0f;            // int8 tensors: real = scale * (q - zero_point)
  std::int32_t zero_point = 0;
  // Values that cross to the host (model inputs and outputs, CPU steps' values): the layout of
  // the host's tensor, which is the ONNX value in row-major order. Equal to `layout`: the bytes
  // are the same and the runtime copies them; "NCHW" with layout "NHWC": the runtime transposes.
  // Empty for values only the NPU sees.
  std::string host_layout;
};

// Bytes the runtime writes into DDR before the program starts (weights, tables).
struct DataSegment {
  std::uint64_t ddr_addr = 0;
  std::vector<std::uint8_t> bytes;
};

// A section the isa library does not interpret (e.g. the compiler's CPU segments).
struct OpaqueSection {
  std::uint32_t kind = 0;
  std::vector<std::uint8_t> bytes;
};

// A name for an instruction index (index == code.size() names the end of the program).
struct Label {
  std::string name;
  std::uint32_t instruction_index = 0;
};

struct Program {
  std::vector<Instruction> code;
  std::vector<DataSegment> data;
  std::vector<TensorEntry> tensors;
  std::vector<OpaqueSection> extra;  // kind >= kFirstOpaqueSectionKind, kept verbatim
  std::vector<Label> labels;
  // Several engines: engine e runs code[engine_starts[e], engine_starts[e + 1]) (the last to the
  // end), each stream ending with its halt. Empty (or {0}): one engine runs all of code.
  std::vector<std::uint32_t> engine_starts;
  std::size_t engine_count() const { return engine_starts.empty() ? 1 : engine_starts.size(); }
  // [first, end) of engine e's stream.
  std::pair<std::size_t, std::size_t> engine_range(std::size_t e) const {
    if (engine_starts.empty()) return {0, code.size()};
    return {engine_starts[e], e + 1 < engine_starts.size() ? engine_starts[e + 1] : code.size()};
  }
};

// Section kinds below this are the isa library's own; from it upwards, other libraries'.
constexpr std::uint32_t kFirstOpaqueSectionKind = 100;

// The most engines one program may use (hwconfig's engines.count has the same bound).
constexpr std::uint32_t kMaxEngines = 64;
// Engine starts must begin at 0, rise strictly, stay within the code and number at most
// kMaxEngines; throws IsaError "<where>: ..." otherwise.
void check_engine_starts(const std::vector<std::uint32_t>& starts, std::size_t code_size, const std::string& where);

// "strided[s0,s1,...]" for element strides per axis, and back (nothing for any other layout).
std::string strided_layout_name(const std::vector<std::int64_t>& strides);
std::vector<std::int64_t> strided_layout_strides(const std::string& layout);

std::vector<std::uint8_t> serialize(const Program& program);
// `origin` names the source in errors; throws IsaError ("<origin>: <what is wrong>").
Program deserialize(const std::uint8_t* bytes, std::size_t size, const std::string& origin);
void save_program(const Program& program, const std::string& path);
Program load_program(const std::string& path);

// Makes a .npuprog's header agree with its bytes (file size and checksum), for tools that
// edit files on purpose (the fuzz target). No-op for fewer than 32 bytes.
void reseal_program_bytes(std::vector<std::uint8_t>& bytes);

}  // namespace npu::isa
