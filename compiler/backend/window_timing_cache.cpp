#include "compiler/backend/window_timing_cache.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "isa/instruction_set.h"

namespace npu::compiler {
namespace {

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// How a field goes into the key.
enum class Kept : std::uint8_t {
  Bits,         // as it is
  DdrAddress,   // cluster and offset
  Unread,       // not read by the trial timing at all: left out
  ZeroPoint,    // read only to check a gemm with mac_dtype fp16 has none (GemmShape)
  ValidScale,   // read only to check it is positive and finite (quantize, dequantize)
  ValidShift,   // read only to check it is at most 62 (quantized binary)
};

// Quantisation parameters the trial timing reads only to check them (costmodel/program_plan.cpp,
// mac_shapes.cpp; no operand rule in isa/instruction_set.def names them), so a window's cycles
// depend on whether the checks pass, not on the values: the encoder blocks of an int8 model,
// quantised each with its own scales, share their windows. A cost model that reads one of
// these for cycles must take it off this list.
Kept kept_as(isa::Field f) {
  switch (f) {
    case isa::Field::ddr_addr: return Kept::DdrAddress;
    case isa::Field::zero_point:
    case isa::Field::a_multiplier:
    case isa::Field::b_multiplier: return Kept::Unread;
    case isa::Field::a_zero_point:
    case isa::Field::b_zero_point: return Kept::ZeroPoint;
    case isa::Field::scale: return Kept::ValidScale;
    case isa::Field::shift: return Kept::ValidShift;
    default: return Kept::Bits;
  }
}

using KeptTable = std::array<std::array<Kept, isa::kMaxFields>, static_cast<std::size_t>(isa::Opcode::kCount)>;

const KeptTable& kept_table() {
  static const KeptTable table = [] {
    KeptTable t{};
    for (std::size_t op = 0; op < t.size(); ++op) {
      const isa::OpcodeInfo& info = isa::opcode_info(static_cast<isa::Opcode>(op));
      for (int i = 0; i < info.field_count; ++i) t[op][static_cast<std::size_t>(i)] = kept_as(info.fields[i].field);
    }
    return t;
  }();
  return table;
}

// A cluster's place in the key: its number by first appearance and the base its addresses are
// kept relative to.
struct Cluster {
  std::uint64_t lo = 0, hi = 0, base = 0;
  std::uint32_t number = 0;
  bool numbered = false;
};

}  // namespace

WindowTimingCache::WindowTimingCache(const HardwareConfig& config) {
  const auto burst = static_cast<std::uint64_t>(std::max(1, config.ddr.burst_bytes));
  const auto align = static_cast<std::uint64_t>(std::max(1, config.dma.min_alignment_bytes));
  alignment_ = std::lcm(burst, align);
}

std::string WindowTimingCache::key(const std::vector<const isa::Instruction*>& code,
                                   const std::vector<const cost::Footprint*>& footprints,
                                   const std::vector<std::vector<std::uint32_t>>& windows) const {
  // Each DDR address outside the shared SRAM window with its span (at least its first byte).
  struct Span {
    std::uint64_t lo, hi;
    std::uint32_t at;  // index into code
  };
  std::vector<Span> spans;
  for (std::uint32_t k = 0; k < code.size(); ++k) {
    const int slot = isa::field_slot(code[k]->opcode, isa::Field::ddr_addr);
    if (slot < 0) continue;
    const auto addr = static_cast<std::uint64_t>(code[k]->values[static_cast<std::size_t>(slot)]);
    if (addr >= isa::kSharedSramBase) continue;
    Span s{addr, addr + 1, k};
    for (const auto* ranges : {&footprints[k]->ddr_read, &footprints[k]->ddr_write})
      for (const cost::ByteRange& r : *ranges)
        if (r.end > r.begin) {
          s.lo = std::min(s.lo, r.begin);
          s.hi = std::max(s.hi, r.end);
        }
    spans.push_back(s);
  }
  // Spans that overlap or touch form one cluster (merging more than needed only costs reuse).
  std::sort(spans.begin(), spans.end(), [](const Span& x, const Span& y) { return x.lo < y.lo; });
  std::vector<Cluster> clusters;
  std::vector<std::uint32_t> cluster_of(code.size(), 0);
  for (const Span& s : spans) {
    if (clusters.empty() || s.lo > clusters.back().hi) clusters.push_back({s.lo, s.hi});
    else clusters.back().hi = std::max(clusters.back().hi, s.hi);
    cluster_of[s.at] = static_cast<std::uint32_t>(clusters.size() - 1);
  }
  for (Cluster& c : clusters) c.base = c.lo - c.lo % alignment_;

  std::string out;
  out.reserve(code.size() * 48 + 64);
  put_varint(out, code.size());
  std::uint32_t numbered = 0;
  const KeptTable& kept = kept_table();
  for (std::uint32_t k = 0; k < code.size(); ++k) {
    const isa::Instruction& in = *code[k];
    out.push_back(static_cast<char>(in.opcode));
    out.push_back(static_cast<char>(in.pop));
    out.push_back(static_cast<char>(in.push));
    const int fields = isa::opcode_info(in.opcode).field_count;
    const auto& how = kept[static_cast<std::size_t>(in.opcode)];
    for (int i = 0; i < fields; ++i) {
      const auto value = static_cast<std::uint64_t>(in.values[static_cast<std::size_t>(i)]);
      switch (how[static_cast<std::size_t>(i)]) {
        case Kept::Bits: put_varint(out, value); continue;
        case Kept::Unread: continue;
        case Kept::ZeroPoint: {
          const int mac = isa::field_slot(in.opcode, isa::Field::mac_dtype);
          const bool fp16 = mac >= 0 && in.values[static_cast<std::size_t>(mac)] == static_cast<std::int64_t>(isa::MacDType::Fp16);
          out.push_back(fp16 && value != 0 ? '\1' : '\0');
          continue;
        }
        case Kept::ValidShift: out.push_back(value <= 62 ? '\1' : '\0'); continue;
        case Kept::ValidScale: {
          float f;
          const auto bits = static_cast<std::uint32_t>(value);
          std::memcpy(&f, &bits, sizeof f);
          out.push_back(f > 0.0f && !std::isinf(f) ? '\1' : '\0');
          continue;
        }
        case Kept::DdrAddress: break;
      }
      if (value >= isa::kSharedSramBase) {  // as it is
        put_varint(out, 0);
        put_varint(out, value);
        continue;
      }
      Cluster& c = clusters[cluster_of[k]];
      if (!c.numbered) {
        c.number = numbered++;
        c.numbered = true;
      }
      put_varint(out, 1 + static_cast<std::uint64_t>(c.number));
      put_varint(out, value - c.base);
    }
  }
  // The windows as runs of consecutive positions (merged orders are a few runs each).
  put_varint(out, windows.size());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;
  for (const auto& w : windows) {
    runs.clear();
    for (const std::uint32_t p : w) {
      if (!runs.empty() && runs.back().first + runs.back().second == p) ++runs.back().second;
      else runs.emplace_back(p, 1);
    }
    put_varint(out, runs.size());
    for (const auto& [first, count] : runs) {
      put_varint(out, first);
      put_varint(out, count);
    }
  }
  return out;
}

std::vector<double> WindowTimingCache::find_or_time(const std::vector<const isa::Instruction*>& code,
                                                    const std::vector<const cost::Footprint*>& footprints,
                                                    const std::vector<std::vector<std::uint32_t>>& windows,
                                                    const std::function<std::vector<double>()>& time, bool check) {
  std::string k = key(code, footprints, windows);
  if (const auto it = cycles_.find(k); it != cycles_.end()) {
    ++hits_;
    if (check && time() != it->second)
      throw std::logic_error("interleave window timing cache: windows equal up to DDR placement timed differently");
    return it->second;
  }
  ++misses_;
  std::vector<double> cycles = time();
  cycles_.emplace(std::move(k), cycles);
  return cycles;
}

std::vector<std::uint32_t> WindowTimingCache::find_or_scan(const std::vector<const isa::Instruction*>& code,
                                                           const std::vector<const cost::Footprint*>& footprints,
                                                           std::uint32_t split,
                                                           const std::function<std::vector<std::uint32_t>()>& scan,
                                                           bool check) {
  std::string k = key(code, footprints, {});
  put_varint(k, split);
  if (const auto it = conflicts_.find(k); it != conflicts_.end()) {
    if (check && scan() != it->second)
      throw std::logic_error("interleave conflict cache: code equal up to DDR placement has other conflicts");
    return it->second;
  }
  std::vector<std::uint32_t> after = scan();
  conflicts_.emplace(std::move(k), after);
  return after;
}

}  // namespace npu::compiler
