// The quantisation record as program.extra section kQuantSectionKind: little-endian,
// length-prefixed, every length checked against the bytes left (as the plan's section).
#include <algorithm>
#include <cstring>

#include "container/compiled_model.h"

namespace npu::container {
namespace {

constexpr std::uint32_t kQuantMagic = 0x544e5551;  // "QUNT"
constexpr std::uint32_t kQuantVersion = 1;

void put_u32(std::vector<std::uint8_t>& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void put_f64(std::vector<std::uint8_t>& b, double d) {
  std::uint64_t v;
  std::memcpy(&v, &d, 8);
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void put_str(std::vector<std::uint8_t>& b, const std::string& s) {
  put_u32(b, static_cast<std::uint32_t>(s.size()));
  b.insert(b.end(), s.begin(), s.end());
}

class Reader {
 public:
  Reader(const std::vector<std::uint8_t>& b, const std::string& origin) : b_(b), origin_(origin) {}
  void need(std::uint64_t n) {
    if (n > b_.size() - pos_) throw ModelFileError(origin_ + ": quantisation record is truncated or corrupt");
  }
  std::uint32_t u32() {
    need(4);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(b_[pos_++]) << (8 * i);
    return v;
  }
  double f64() {
    need(8);
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(b_[pos_++]) << (8 * i);
    double d;
    std::memcpy(&d, &v, 8);
    return d;
  }
  std::string str() {
    const std::uint32_t n = u32();
    need(n);
    std::string s(b_.begin() + static_cast<long>(pos_), b_.begin() + static_cast<long>(pos_ + n));
    pos_ += n;
    return s;
  }
  bool done() const { return pos_ == b_.size(); }

 private:
  const std::vector<std::uint8_t>& b_;
  std::string origin_;
  std::size_t pos_ = 0;
};

}  // namespace

void attach_quant_record(CompiledModel& m) {
  auto& extra = m.program.extra;
  extra.erase(std::remove_if(extra.begin(), extra.end(), [](const isa::OpaqueSection& s) { return s.kind == kQuantSectionKind; }),
              extra.end());
  const QuantizationRecord& q = m.quantization;
  if (!q.present()) return;
  std::vector<std::uint8_t> b;
  put_u32(b, kQuantMagic);
  put_u32(b, kQuantVersion);
  put_str(b, q.scheme);
  put_u32(b, q.calibration_samples);
  put_u32(b, static_cast<std::uint32_t>(q.fp16_layers.size()));
  for (const auto& l : q.fp16_layers) put_str(b, l);
  put_u32(b, q.forced_fp16);
  put_str(b, q.accuracy_target);
  for (double d : {q.all_int8_cosine, q.all_int8_sqnr_db, q.reached_cosine, q.reached_sqnr_db}) put_f64(b, d);
  put_str(b, q.weights);
  extra.push_back({kQuantSectionKind, std::move(b)});
}

void read_quant_record(CompiledModel& m, const std::string& origin) {
  const isa::OpaqueSection* section = nullptr;
  for (const auto& s : m.program.extra)
    if (s.kind == kQuantSectionKind) section = &s;
  if (!section) return;
  Reader r(section->bytes, origin);
  if (r.u32() != kQuantMagic) throw ModelFileError(origin + ": quantisation record has a bad magic number");
  const std::uint32_t version = r.u32();
  if (version != kQuantVersion)
    throw ModelFileError(origin + ": quantisation record version " + std::to_string(version) + " is not supported");
  QuantizationRecord& q = m.quantization;
  q.scheme = r.str();
  q.calibration_samples = r.u32();
  const std::uint32_t layers = r.u32();
  r.need(layers);  // every name takes at least 4 bytes
  for (std::uint32_t i = 0; i < layers; ++i) q.fp16_layers.push_back(r.str());
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
