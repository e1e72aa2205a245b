#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <random>

#include "isa/assembler.h"
#include "isa/program.h"

using namespace npu::isa;

namespace {

Program sample() {
  return assemble(R"(
.tensor name=in role=input dtype=int8 shape=1x8x8x4 layout=NHWC addr=0x1000 scale=0.25 zero_point=-3
.tensor name=out role=output dtype=int32 shape=4 layout=C addr=0x2000
.data addr=0x3000 i8=1,2,3,4 f32=0.5
.section kind=100 hex=deadbeef
start: load ddr_addr=0x1000 len0=256 push=compute
  gemm m=4 n=4 k=4 pop=load
end: halt
)", "sample");
}

// Same algorithm as the writer, to craft files with a valid checksum but a bad structure.
std::uint64_t checksum(const std::vector<std::uint8_t>& f) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (i >= 24 && i < 32) continue;
    h ^= f[i];
    h *= 0x100000001b3ull;
  }
  return h;
}
void put(std::vector<std::uint8_t>& f, std::size_t at, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) f[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}
void reseal(std::vector<std::uint8_t>& f) {
  put(f, 16, f.size(), 8);
  put(f, 24, checksum(f), 8);
}
std::string load_error(const std::vector<std::uint8_t>& f) {
  try {
    deserialize(f.data(), f.size(), "prog.npuprog");
  } catch (const IsaError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("container: serialize/deserialize round trip", "[isa][container]") {
  Program p = sample();
  std::vector<std::uint8_t> bytes = serialize(p);
  Program q = deserialize(bytes.data(), bytes.size(), "mem");
  CHECK(serialize(q) == bytes);
  REQUIRE(q.code.size() == 3);
  CHECK(q.code[1] == p.code[1]);
  REQUIRE(q.tensors.size() == 2);
  CHECK(q.tensors[0].name == "in");
  CHECK(q.tensors[0].shape == std::vector<std::int64_t>{1, 8, 8, 4});
  CHECK(q.tensors[0].scale == 0.25f);
  CHECK(q.tensors[0].zero_point == -3);
  CHECK(q.tensors[1].size_bytes == 16);
  REQUIRE(q.data.size() == 1);
  CHECK(q.data[0].bytes.size() == 8);
  REQUIRE(q.extra.size() == 1);
  CHECK(q.extra[0].kind == 100);
  CHECK(q.extra[0].bytes == std::vector<std::uint8_t>{0xde, 0xad, 0xbe, 0xef});
  REQUIRE(q.labels.size() == 2);
  CHECK(q.labels[1].name == "end");
  CHECK(q.labels[1].instruction_index == 2);
  Program empty;
  std::vector<std::uint8_t> e = serialize(empty);
  CHECK(deserialize(e.data(), e.size(), "empty").code.empty());
}

TEST_CASE("container: truncation at every length is a clear error", "[isa][container]") {
  std::vector<std::uint8_t> bytes = serialize(sample());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(n));
    std::string err = load_error(cut);
    CAPTURE(n, err);
    REQUIRE(err.rfind("prog.npuprog: ", 0) == 0);
    REQUIRE(err.find('\n') == std::string::npos);
    if (n >= 32) REQUIRE(err.find("truncated") != std::string::npos);
  }
}

TEST_CASE("container: any flipped byte is detected", "[isa][container]") {
  std::vector<std::uint8_t> bytes = serialize(sample());
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::vector<std::uint8_t> bad = bytes;
    bad[i] ^= 0x10;
    std::string err = load_error(bad);
    CAPTURE(i, err);
    REQUIRE(err.rfind("prog.npuprog: ", 0) == 0);
  }
  std::vector<std::uint8_t> bad = bytes;
  bad[bad.size() - 1] ^= 1;
  CHECK(load_error(bad) == "prog.npuprog: checksum mismatch: the file is corrupted");
}

TEST_CASE("container: header errors", "[isa][container]") {
  std::vector<std::uint8_t> bytes = serialize(sample());
  std::vector<std::uint8_t> f = bytes;
  f[0] = 'X';
  CHECK_THAT(load_error(f), Catch::Contains("not an npusim program"));
  CHECK_THAT(load_error({'h', 'i'}), Catch::Contains("not an npusim program"));
  CHECK_THAT(load_error({}), Catch::Contains("empty file"));
  f = bytes;
  put(f, 8, kProgramVersion + 1, 4);
  CHECK_THAT(load_error(f), Catch::Contains("format version 4 is newer"));
  put(f, 8, 2, 4);  // before tensor entries recorded their host layout: the table would misparse
  CHECK_THAT(load_error(f), Catch::Contains("format version 2 predates this build's tensor table (version 3 records "
                                            "each boundary tensor's host layout); compile or assemble the program "
                                            "again"));
  put(f, 8, 1, 4);  // before act's function was widened: its fields would decode shifted
  CHECK_THAT(load_error(f), Catch::Contains("format version 1 predates this build's instruction encoding"));
  f = bytes;
  f.push_back(0);
  CHECK_THAT(load_error(f), Catch::Contains("trailing data"));
}

TEST_CASE("container: structural errors behind a valid checksum", "[isa][container]") {
  const std::vector<std::uint8_t> bytes = serialize(sample());
  // Section table entry 0 (code) at 32: kind, offset at 36, size at 44.
  std::vector<std::uint8_t> f = bytes;
  put(f, 44, 1u << 20, 8);
  reseal(f);
  CHECK_THAT(load_error(f), Catch::Contains("section 0 (kind 1)") && Catch::Contains("outside"));
  f = bytes;
  put(f, 36, ~0ull - 4, 8);  // offset + size would overflow
  reseal(f);
  CHECK_THAT(load_error(f), Catch::Contains("outside"));
  f = bytes;
  put(f, 36, 0, 8);  // overlaps the header
  reseal(f);
  CHECK_THAT(load_error(f), Catch::Contains("outside"));
  f = bytes;
  put(f, 44, 33, 8);  // code not a multiple of 32
  reseal(f);
  CHECK_THAT(load_error(f), Catch::Contains("code: size 33"));
  f = bytes;
  put(f, 12, 100000, 4);  // section count
  reseal(f);
  CHECK_THAT(load_error(f), Catch::Contains("section table of 100000 entries"));
  f = bytes;
  put(f, 32 + 20, 1, 4);  // second section (data) claims to be code as well
  reseal(f);
  CHECK_THAT(load_error(f), Catch::Contains("duplicate code section"));
  f = bytes;
  put(f, 32 + 20, 50, 4);  // an unknown reserved kind is skipped
  reseal(f);
  CHECK(deserialize(f.data(), f.size(), "x").data.empty());
  // Code section payload starts right after the section table; a bad opcode inside it.
  std::size_t code_off = 0;
  for (int i = 0; i < 8; ++i) code_off |= static_cast<std::size_t>(bytes[36 + i]) << (8 * i);
  f = bytes;
  f[code_off + 32] = 0xEE;
  reseal(f);
  CHECK_THAT(load_error(f), Catch::Contains("code: instruction 1: unknown opcode 238"));
  // A string length running past its section.
  std::size_t tens_off = 0;
  for (int i = 0; i < 8; ++i) tens_off |= static_cast<std::size_t>(bytes[32 + 40 + 4 + i]) << (8 * i);
  f = bytes;
  put(f, tens_off + 4, 0x7FFFFFFF, 4);  // first tensor's name length
  reseal(f);
  CHECK_THAT(load_error(f), Catch::Contains("tensor table: truncated tensor name"));
}

TEST_CASE("container: serialize rejects what it cannot represent", "[isa][container]") {
  Program p = sample();
  p.extra.push_back({7, {}});
  CHECK_THROWS_WITH(serialize(p), Catch::Contains("kind 7 is reserved"));
  p = sample();
  p.labels.push_back({"far", 99});
  CHECK_THROWS_WITH(serialize(p), Catch::Contains("label 'far'"));
}

TEST_CASE("container: files", "[isa][container]") {
  std::string path = std::string(NPUSIM_BINARY_DIR) + "/isa_test_program.npuprog";
  Program p = sample();
  save_program(p, path);
  Program q = load_program(path);
  CHECK(serialize(q) == serialize(p));
  std::remove(path.c_str());
  CHECK_THROWS_WITH(load_program(path), Catch::StartsWith(path + ": cannot open"));
  CHECK_THROWS_WITH(save_program(p, "/nonexistent-dir/x.npuprog"),
                    Catch::StartsWith("/nonexistent-dir/x.npuprog: cannot open for writing"));
}

TEST_CASE("container: random corruption behind a valid checksum never crashes", "[isa][container][fuzz]") {
  const std::vector<std::uint8_t> bytes = serialize(sample());
  std::mt19937_64 rng(99);
  int accepted = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<std::uint8_t> f = bytes;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) {
      std::size_t at = 32 + rng() % (f.size() - 32);
      f[at] = rng() % 2 ? static_cast<std::uint8_t>(rng()) : static_cast<std::uint8_t>(f[at] ^ (1u << (rng() % 8)));
    }
    if (rng() % 8 == 0) f.resize(32 + rng() % (f.size() - 32));
    reseal(f);
    try {
      deserialize(f.data(), f.size(), "fuzz");
      ++accepted;
    } catch (const IsaError& e) {
      REQUIRE(std::string(e.what()).rfind("fuzz: ", 0) == 0);
    }
  }
  CHECK(accepted < 20000);
}
