// Little-endian, length-prefixed byte records: what the program's opaque sections written by
// this library (the execution plan, the quantisation record) are made of. Every length read is
// checked against the bytes left, so a corrupt or truncated section is one clear error naming
// the file and the section, never a read past the end.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "container/compiled_model.h"

namespace npu::container {

class ByteWriter {
 public:
  void u8(std::uint8_t v) { bytes.push_back(v); }
  void u32(std::uint32_t v) { put(v, 4); }
  void u64(std::uint64_t v) { put(v, 8); }
  void f64(double d) {
    std::uint64_t v;
    std::memcpy(&v, &d, 8);
    put(v, 8);
  }
  void str(const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  void strs(const std::vector<std::string>& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (const auto& s : v) str(s);
  }
  void blob(const std::vector<std::uint8_t>& b) {
    u64(b.size());
    bytes.insert(bytes.end(), b.begin(), b.end());
  }
  std::vector<std::uint8_t> bytes;

 private:
  void put(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
};

class ByteReader {
 public:
  // `what` names the section in errors: "<origin>: <what> is truncated or corrupt".
  ByteReader(const std::vector<std::uint8_t>& b, std::string origin, std::string what)
      : b_(b), origin_(std::move(origin)), what_(std::move(what)) {}
  void need(std::uint64_t n) const {
    if (n > b_.size() - pos_) throw ModelFileError(origin_ + ": " + what_ + " is truncated or corrupt");
  }
  std::uint8_t u8() {
    need(1);
    return b_[pos_++];
  }
  std::uint32_t u32() { return static_cast<std::uint32_t>(get(4)); }
  std::uint64_t u64() { return get(8); }
  double f64() {
    const std::uint64_t v = get(8);
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
  std::vector<std::string> strs() {
    const std::uint32_t n = count();  // every string takes at least 4 bytes
    std::vector<std::string> v;
    for (std::uint32_t i = 0; i < n; ++i) v.push_back(str());
    return v;
  }
  std::vector<std::uint8_t> blob() {
    const std::uint64_t n = u64();
    need(n);
    std::vector<std::uint8_t> v(b_.begin() + static_cast<long>(pos_), b_.begin() + static_cast<long>(pos_ + n));
    pos_ += n;
    return v;
  }
  // A count of items that each take at least one byte: beyond the bytes left it is corrupt.
  std::uint32_t count() {
    const std::uint32_t n = u32();
    need(n);
    return n;
  }
  bool done() const { return pos_ == b_.size(); }

 private:
  std::uint64_t get(int n) {
    need(static_cast<std::uint64_t>(n));
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(b_[pos_++]) << (8 * i);
    return v;
  }
  const std::vector<std::uint8_t>& b_;
  std::string origin_, what_;
  std::size_t pos_ = 0;
};

}  // namespace npu::container
