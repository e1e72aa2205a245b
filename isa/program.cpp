// The .npuprog container (format described in ISA.md, "Program container").
//
//   0  char[8] magic "NPUPROG\0"     8  u32 version      12 u32 section count
//   16 u64 file size                 24 u64 FNV-1a 64 of bytes [32, file size)
//   32 section table: count x {u32 kind, u64 offset, u64 size}, then the payloads.
// All integers little-endian. Every offset, size, count and string length is checked.
#include "isa/program.h"
#include "isa/whole_file.h"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <iterator>

namespace npu::isa {
namespace {

constexpr char kMagic[8] = {'N', 'P', 'U', 'P', 'R', 'O', 'G', '\0'};
constexpr std::size_t kFixedHeader = 32;
constexpr std::size_t kSectionEntry = 20;
enum SectionKind : std::uint32_t { kCode = 1, kData = 2, kTensors = 3, kLabels = 4, kEngines = 5 };

std::uint64_t fnv1a64(const std::uint8_t* p, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ull) {
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

struct Writer {
  std::vector<std::uint8_t> out;
  void uint(std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void u8(std::uint8_t v) { uint(v, 1); }
  void u32(std::uint32_t v) { uint(v, 4); }
  void u64(std::uint64_t v) { uint(v, 8); }
  void raw(const std::uint8_t* p, std::size_t n) { out.insert(out.end(), p, p + n); }
  void str(const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    raw(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  }
  void patch_u64(std::size_t at, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
};

// Everything but the checksum field itself: header bytes [0, 24) and [32, end).
std::uint64_t file_checksum(const std::uint8_t* p, std::size_t n) {
  return fnv1a64(p + kFixedHeader, n - kFixedHeader, fnv1a64(p, 24));
}

// Bounds-checked little-endian reader over one region; errors name origin and context.
struct Reader {
  const std::uint8_t* p;
  std::size_t size, pos = 0;
  std::string where;  // "<origin>: <section>"

  [[noreturn]] void fail(const std::string& what) const { throw IsaError(where + ": " + what); }
  const std::uint8_t* take(std::size_t n, const char* what) {
    if (n > size - pos)
      fail(fmt::format("truncated {}: needs {} bytes at offset {}, only {} left", what, n, pos,
                       size - pos));
    const std::uint8_t* r = p + pos;
    pos += n;
    return r;
  }
  std::uint64_t uint(int bytes, const char* what) {
    const std::uint8_t* b = take(static_cast<std::size_t>(bytes), what);
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(b[i]) << (8 * i);
    return v;
  }
  std::uint8_t u8(const char* what) { return static_cast<std::uint8_t>(uint(1, what)); }
  std::uint32_t u32(const char* what) { return static_cast<std::uint32_t>(uint(4, what)); }
  std::uint64_t u64(const char* what) { return uint(8, what); }
  std::string str(const char* what) {
    std::uint32_t n = u32(what);
    const std::uint8_t* b = take(n, what);
    return std::string(reinterpret_cast<const char*>(b), n);
  }
  void expect_end() const {
    if (pos != size) fail(fmt::format("{} unexpected bytes after the last entry", size - pos));
  }
};

// One section of the file: its bytes, or its size and what writes them straight into the file's
// buffer (the weights, tens of MB for ResNet-50, are then not gathered in a buffer of their own
// first and copied).
struct Section {
  std::uint32_t kind = 0;
  std::vector<std::uint8_t> bytes;
  std::uint64_t size = 0;               // with `write`
  std::function<void(Writer&)> write;  // appends exactly `size` bytes
  std::uint64_t length() const { return write ? size : bytes.size(); }
};

void write_sections(Writer& w, const std::vector<Section>& secs) {
  std::uint64_t offset = kFixedHeader + kSectionEntry * secs.size();
  std::uint64_t total = offset;
  for (const auto& s : secs) total += s.length();
  w.out.reserve(w.out.size() + total);
  w.raw(reinterpret_cast<const std::uint8_t*>(kMagic), 8);
  w.u32(kProgramVersion);
  w.u32(static_cast<std::uint32_t>(secs.size()));
  w.u64(0);  // file size, patched
  w.u64(0);  // checksum, patched
  for (const auto& s : secs) {
    w.u32(s.kind);
    w.u64(offset);
    w.u64(s.length());
    offset += s.length();
  }
  for (const auto& s : secs) {
    const std::size_t before = w.out.size();
    if (s.write) s.write(w);
    else w.raw(s.bytes.data(), s.bytes.size());
    if (w.out.size() - before != s.length())
      throw IsaError(fmt::format("serialize: section kind {} wrote {} bytes, not the {} it declared", s.kind,
                                 w.out.size() - before, s.length()));
  }
  w.patch_u64(16, w.out.size());
  w.patch_u64(24, file_checksum(w.out.data(), w.out.size()));
}

}  // namespace

std::string strided_layout_name(const std::vector<std::int64_t>& strides) {
  std::string s = "strided[";
  for (std::size_t a = 0; a < strides.size(); ++a) s += (a ? "," : "") + std::to_string(strides[a]);
  return s + "]";
}

std::vector<std::int64_t> strided_layout_strides(const std::string& layout) {
  std::vector<std::int64_t> out;
  const std::string head = "strided[";
  if (layout.rfind(head, 0) != 0 || layout.back() != ']') return out;
  std::size_t pos = head.size();
  while (pos < layout.size() - 1) {
    std::size_t used = 0;
    try {
      out.push_back(std::stoll(layout.substr(pos), &used));
    } catch (const std::exception&) {
      return {};
    }
    if (used == 0 || out.back() < 0) return {};
    pos += used;
    if (layout[pos] == ',') ++pos;
    else if (pos != layout.size() - 1) return {};
  }
  return out;
}

std::vector<std::uint8_t> serialize(const Program& program) {
  std::vector<Section> secs;
  auto add = [&](std::uint32_t kind, std::vector<std::uint8_t> bytes) { secs.push_back(Section{kind, std::move(bytes), 0, {}}); };
  Writer code;
  for (std::size_t i = 0; i < program.code.size(); ++i) {
    try {
      EncodedInstruction e = encode(program.code[i]);
      code.raw(e.data(), e.size());
    } catch (const IsaError& err) {
      throw IsaError(fmt::format("serialize: instruction {}: {}", i, err.what()));
    }
  }
  add(kCode, std::move(code.out));

  std::uint64_t data_size = 4;
  for (const DataSegment& d : program.data) data_size += 16 + d.bytes.size();
  secs.push_back(Section{kData, {}, data_size, [&program](Writer& data) {
                           data.u32(static_cast<std::uint32_t>(program.data.size()));
                           for (const DataSegment& d : program.data) {
                             data.u64(d.ddr_addr);
                             data.u64(d.bytes.size());
                             data.raw(d.bytes.data(), d.bytes.size());
                           }
                         }});

  Writer tens;
  tens.u32(static_cast<std::uint32_t>(program.tensors.size()));
  for (const TensorEntry& t : program.tensors) {
    if (static_cast<int>(t.role) > 3 || static_cast<int>(t.dtype) > 3)
      throw IsaError(fmt::format("serialize: tensor '{}': invalid role or dtype", t.name));
    tens.str(t.name);
    tens.u8(static_cast<std::uint8_t>(t.role));
    tens.u8(static_cast<std::uint8_t>(t.dtype));
    tens.u32(static_cast<std::uint32_t>(t.shape.size()));
    for (std::int64_t d : t.shape) tens.u64(static_cast<std::uint64_t>(d));
    tens.str(t.layout);
    tens.str(t.host_layout);
    tens.u64(t.ddr_addr);
    tens.u64(t.size_bytes);
    std::uint32_t scale_bits;
    std::memcpy(&scale_bits, &t.scale, 4);
    tens.u32(scale_bits);
    tens.u32(static_cast<std::uint32_t>(t.zero_point));
  }
  add(kTensors, std::move(tens.out));

  Writer labels;
  labels.u32(static_cast<std::uint32_t>(program.labels.size()));
  for (const Label& l : program.labels) {
    if (l.instruction_index > program.code.size())
      throw IsaError(fmt::format("serialize: label '{}' points at instruction {} but the program has {}",
                                 l.name, l.instruction_index, program.code.size()));
    labels.str(l.name);
    labels.u32(l.instruction_index);
  }
  add(kLabels, std::move(labels.out));

  if (!program.engine_starts.empty()) {
    check_engine_starts(program.engine_starts, program.code.size(), "serialize");
    Writer engines;
    engines.u32(static_cast<std::uint32_t>(program.engine_starts.size()));
    for (std::uint32_t start : program.engine_starts) engines.u32(start);
    add(kEngines, std::move(engines.out));
  }

  for (const OpaqueSection& s : program.extra) {
    if (s.kind < kFirstOpaqueSectionKind)
      throw IsaError(fmt::format("serialize: extra section kind {} is reserved (use >= {})", s.kind,
                                 kFirstOpaqueSectionKind));
    secs.push_back(Section{s.kind, {}, s.bytes.size(), [&s](Writer& out) { out.raw(s.bytes.data(), s.bytes.size()); }});
  }
  Writer w;
  write_sections(w, secs);
  return std::move(w.out);
}

void reseal_program_bytes(std::vector<std::uint8_t>& bytes) {
  if (bytes.size() < kFixedHeader) return;
  Writer w{std::move(bytes)};
  w.patch_u64(16, w.out.size());
  w.patch_u64(24, file_checksum(w.out.data(), w.out.size()));
  bytes = std::move(w.out);
}

Program deserialize(const std::uint8_t* bytes, std::size_t size, const std::string& origin) {
  auto fail = [&](const std::string& what) -> void { throw IsaError(origin + ": " + what); };
  if (size == 0) fail("empty file, not an npusim program");
  if (std::memcmp(bytes, kMagic, size < 8 ? size : 8) != 0)
    fail("not an npusim program (bad magic; expected \"NPUPROG\")");
  if (size < kFixedHeader)
    fail(fmt::format("truncated: {} bytes, the header alone needs {}", size, kFixedHeader));
  Reader h{bytes, size, 0, origin + ": header"};
  h.take(8, "magic");
  std::uint32_t version = h.u32("version");
  if (version > kProgramVersion)
    fail(fmt::format("format version {} is newer than this build supports ({}); update npusim",
                     version, kProgramVersion));
  if (version == 2)
    fail(fmt::format("format version 2 predates this build's tensor table (version {} records each boundary "
                     "tensor's host layout); compile or assemble the program again",
                     kProgramVersion));
  if (version != kProgramVersion)
    fail(fmt::format("format version {} predates this build's instruction encoding (version {}); "
                     "compile or assemble the program again",
                     version, kProgramVersion));
  std::uint32_t count = h.u32("section count");
  std::uint64_t file_size = h.u64("file size");
  std::uint64_t checksum = h.u64("checksum");
  if (file_size > size)
    fail(fmt::format("truncated: header says {} bytes, got {}", file_size, size));
  if (file_size < size)
    fail(fmt::format("{} bytes of trailing data after the {} bytes the header declares",
                     size - file_size, file_size));
  if (file_checksum(bytes, size) != checksum)
    fail("checksum mismatch: the file is corrupted");
  if (count > (size - kFixedHeader) / kSectionEntry)
    fail(fmt::format("section table of {} entries does not fit in {} bytes", count, size));
  std::size_t payload_start = kFixedHeader + kSectionEntry * count;

  Program prog;
  bool seen[5] = {};
  Reader table{bytes, size, kFixedHeader, origin + ": section table"};
  for (std::uint32_t s = 0; s < count; ++s) {
    std::uint32_t kind = table.u32("section kind");
    std::uint64_t off = table.u64("section offset"), len = table.u64("section size");
    if (off < payload_start || off > size || len > size - off)
      fail(fmt::format("section {} (kind {}): bytes [{}, {}+{}) lie outside the payload [{}, {})", s,
                       kind, off, off, len, payload_start, size));
    const char* names[] = {"", "code", "data", "tensor table", "labels"};
    if (kind >= 1 && kind <= 4) {
      if (seen[kind]) fail(fmt::format("duplicate {} section", names[kind]));
      seen[kind] = true;
    }
    Reader r{bytes + off, static_cast<std::size_t>(len), 0,
             origin + ": " + (kind >= 1 && kind <= 4 ? names[kind] : "section")};
    if (kind == kCode) {
      if (len % kInstructionBytes != 0)
        r.fail(fmt::format("size {} is not a multiple of {}", len, kInstructionBytes));
      for (std::size_t i = 0; i < len / kInstructionBytes; ++i) {
        try {
          prog.code.push_back(decode(bytes + off + i * kInstructionBytes));
        } catch (const IsaError& e) {
          r.fail(fmt::format("instruction {}: {}", i, e.what()));
        }
      }
    } else if (kind == kData) {
      std::uint32_t n = r.u32("segment count");
      for (std::uint32_t i = 0; i < n; ++i) {
        DataSegment d;
        d.ddr_addr = r.u64("segment address");
        std::uint64_t bl = r.u64("segment size");
        if (bl > r.size - r.pos)
          r.fail(fmt::format("segment {}: size {} exceeds the {} bytes left", i, bl, r.size - r.pos));
        const std::uint8_t* b = r.take(static_cast<std::size_t>(bl), "segment bytes");
        d.bytes.assign(b, b + bl);
        prog.data.push_back(std::move(d));
      }
      r.expect_end();
    } else if (kind == kTensors) {
      std::uint32_t n = r.u32("tensor count");
      for (std::uint32_t i = 0; i < n; ++i) {
        TensorEntry t;
        t.name = r.str("tensor name");
        std::uint8_t role = r.u8("tensor role"), dtype = r.u8("tensor dtype");
        if (role > 3) r.fail(fmt::format("tensor '{}': invalid role {}", t.name, role));
        if (dtype > 3) r.fail(fmt::format("tensor '{}': invalid dtype {}", t.name, dtype));
        t.role = static_cast<TensorRole>(role);
        t.dtype = static_cast<DType>(dtype);
        std::uint32_t rank = r.u32("tensor rank");
        if (rank > (r.size - r.pos) / 8)
          r.fail(fmt::format("tensor '{}': rank {} exceeds the bytes left", t.name, rank));
        for (std::uint32_t k = 0; k < rank; ++k) t.shape.push_back(static_cast<std::int64_t>(r.u64("dim")));
        t.layout = r.str("tensor layout");
        t.host_layout = r.str("tensor host layout");
        t.ddr_addr = r.u64("tensor address");
        t.size_bytes = r.u64("tensor size");
        std::uint32_t scale_bits = r.u32("tensor scale");
        std::memcpy(&t.scale, &scale_bits, 4);
        t.zero_point = static_cast<std::int32_t>(r.u32("tensor zero point"));
        prog.tensors.push_back(std::move(t));
      }
      r.expect_end();
    } else if (kind == kLabels) {
      std::uint32_t n = r.u32("label count");
      for (std::uint32_t i = 0; i < n; ++i) {
        Label l;
        l.name = r.str("label name");
        l.instruction_index = r.u32("label index");
        prog.labels.push_back(std::move(l));
      }
      r.expect_end();
    } else if (kind == kEngines) {
      std::uint32_t n = r.u32("engine count");
      if (n == 0 || n > kMaxEngines) fail(fmt::format("engines: {} engines (1..{})", n, kMaxEngines));
      for (std::uint32_t i = 0; i < n; ++i) prog.engine_starts.push_back(r.u32("engine start"));
      r.expect_end();
    } else if (kind >= kFirstOpaqueSectionKind) {
      prog.extra.push_back(OpaqueSection{kind, std::vector<std::uint8_t>(bytes + off, bytes + off + len)});
    }  // other kinds below 100: a later minor revision's section; skipped
  }
  if (!prog.engine_starts.empty()) check_engine_starts(prog.engine_starts, prog.code.size(), origin + ": engines");
  for (const Label& l : prog.labels)
    if (l.instruction_index > prog.code.size())
      fail(fmt::format("labels: '{}' points at instruction {} but the program has {}", l.name,
                       l.instruction_index, prog.code.size()));
  return prog;
}

void save_program(const Program& program, const std::string& path) {
  std::vector<std::uint8_t> bytes = serialize(program);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw IsaError(fmt::format("{}: cannot open for writing: {}", path, std::strerror(errno)));
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) throw IsaError(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
}

Program load_program(const std::string& path) {
  const auto bytes = read_whole_file(path);
  if (!bytes) throw IsaError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  return deserialize(bytes->data(), bytes->size(), path);
}

void check_engine_starts(const std::vector<std::uint32_t>& starts, std::size_t code_size, const std::string& where) {
  if (starts.size() > kMaxEngines)
    throw IsaError(fmt::format("{}: {} engines (at most {})", where, starts.size(), kMaxEngines));
  for (std::size_t e = 0; e < starts.size(); ++e) {
    const bool ok = e == 0 ? starts[0] == 0 : starts[e] > starts[e - 1];
    if (!ok || starts[e] >= std::max<std::size_t>(code_size, 1))
      throw IsaError(fmt::format("{}: engine {} starts at instruction {}: starts must be 0, then rising, each below "
                                 "the {} instructions",
                                 where, e, starts[e], code_size));
  }
}

}  // namespace npu::isa
