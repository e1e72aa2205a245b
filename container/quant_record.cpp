// The quantisation record as program.extra section kQuantSectionKind: little-endian,
// length-prefixed (container/byte_io.h), as the plan's section.
#include <algorithm>

#include "container/byte_io.h"

namespace npu::container {
namespace {

constexpr std::uint32_t kQuantMagic = 0x544e5551;  // "QUNT"
constexpr std::uint32_t kQuantVersion = 1;

}  // namespace

void attach_quant_record(CompiledModel& m) {
  auto& extra = m.program.extra;
  extra.erase(std::remove_if(extra.begin(), extra.end(), [](const isa::OpaqueSection& s) { return s.kind == kQuantSectionKind; }),
              extra.end());
  const QuantizationRecord& q = m.quantization;
  if (!q.present()) return;
  ByteWriter w;
  w.u32(kQuantMagic);
  w.u32(kQuantVersion);
  w.str(q.scheme);
  w.u32(q.calibration_samples);
  w.strs(q.fp16_layers);
  w.u32(q.forced_fp16);
  w.str(q.accuracy_target);
  for (double d : {q.all_int8_cosine, q.all_int8_sqnr_db, q.reached_cosine, q.reached_sqnr_db}) w.f64(d);
  w.str(q.weights);
  extra.push_back({kQuantSectionKind, std::move(w.bytes)});
}

void read_quant_record(CompiledModel& m, const std::string& origin) {
  const isa::OpaqueSection* section = nullptr;
  for (const auto& s : m.program.extra)
    if (s.kind == kQuantSectionKind) section = &s;
  if (!section) return;
  ByteReader r(section->bytes, origin, "quantisation record");
  if (r.u32() != kQuantMagic) throw ModelFileError(origin + ": quantisation record has a bad magic number");
  const std::uint32_t version = r.u32();
  if (version != kQuantVersion)
    throw ModelFileError(origin + ": quantisation record version " + std::to_string(version) + " is not supported");
  QuantizationRecord& q = m.quantization;
  q.scheme = r.str();
  q.calibration_samples = r.u32();
  q.fp16_layers = r.strs();
  q.forced_fp16 = r.u32();
  q.accuracy_target = r.str();
  q.all_int8_cosine = r.f64();
  q.all_int8_sqnr_db = r.f64();
  q.reached_cosine = r.f64();
  q.reached_sqnr_db = r.f64();
  q.weights = r.str();
  if (!r.done()) throw ModelFileError(origin + ": quantisation record has trailing bytes");
}

}  // namespace npu::container
