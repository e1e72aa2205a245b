// No input crashes the loader: anything wrong is a one-line ConfigError.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "hwconfig/hardware_config.h"
#include "tests/hwconfig/test_util.h"

using namespace hwtest;

namespace {

// Parses `text`; only success or a one-line ConfigError are acceptable.
void must_not_misbehave(const std::string& text) {
  try {
    auto c = npu::parse_hardware_config(text, "fuzz.yaml");
    // Whatever was accepted must also survive a round trip.
    auto again = npu::parse_hardware_config(npu::dump_hardware_config(c), "fuzz.yaml");
    if (!(again == c)) FAIL("round trip changed an accepted config:\n" << text);
  } catch (const npu::ConfigError& e) {
    std::string msg = e.what();
    if (msg.find('\n') != std::string::npos || msg.empty())
      FAIL("not a one-line message: " << msg);
    // The loader's last-resort conversion of unexpected exceptions must never be needed.
    if (msg.find("cannot load config:") != std::string::npos)
      FAIL("internal error: " << msg << "\nfor:\n" << text);
  } catch (const std::exception& e) {
    FAIL("unexpected exception " << e.what() << " for:\n" << text);
  }
}

}  // namespace

TEST_CASE("mutated presets never crash", "[hwconfig][robustness]") {
  std::vector<std::string> seeds;
  for (const auto& e : std::filesystem::directory_iterator(source_dir() + "/configs"))
    if (e.path().extension() == ".yaml") seeds.push_back(read_file(e.path().string()));
  REQUIRE_FALSE(seeds.empty());
  const std::string alphabet = ":{}[],-#&*!|>'\"%@`?\n\t 0123456789.eE+-_abcxyz~\\\x01\xff";
  std::mt19937 rng(12345);
  for (int iter = 0; iter < 5000; ++iter) {
    std::string text = seeds[rng() % seeds.size()];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      std::size_t pos = rng() % text.size();
      switch (rng() % 4) {
        case 0: text.erase(pos, 1 + rng() % 8); break;
        case 1: text.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
        case 2: text[pos] = alphabet[rng() % alphabet.size()]; break;
        case 3: text.insert(pos, text.substr(rng() % text.size(), rng() % 40)); break;
      }
    }
    must_not_misbehave(text);
  }
}

TEST_CASE("hostile inputs never crash", "[hwconfig][robustness]") {
  must_not_misbehave(std::string(100000, '['));
  must_not_misbehave(std::string(100000, '{'));
  must_not_misbehave(std::string("a: ") + std::string(5000, '-') + "\n");
  std::string nested = "x: ";
  for (int i = 0; i < 5000; ++i) nested += "- ";
  must_not_misbehave(nested + "1\n");
  must_not_misbehave("a: &x [*x]\n");
  for (const char* stray : {",", "]", "}", ":", "?", "-", "|", ">", "%", "@", "`", "!", "&", "*"})
    must_not_misbehave(minimal_yaml() + stray + "\n");
  must_not_misbehave("&a a: &b b\n*a : *b\n");
  must_not_misbehave("clock: !!binary aGVsbG8=\n");
  must_not_misbehave("? [a, b]\n: c\n");
  must_not_misbehave(std::string("\0\0\0", 3));
  must_not_misbehave("\xef\xbb\xbf" + minimal_yaml());  // UTF-8 BOM
  must_not_misbehave(minimal_yaml({{"name", "\"\\x00 nul\""}}));
  must_not_misbehave(minimal_yaml({{"mac_array.rows", "0x20"}}));
  must_not_misbehave(minimal_yaml({{"mac_array.rows", "9223372036854775807"}}));
  must_not_misbehave(minimal_yaml({{"mac_array.rows", "-9223372036854775808"}}));
  must_not_misbehave(minimal_yaml({{"ddr.capacity_mib", "1048576"}}));
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    std::string junk(rng() % 200, '\0');
    for (auto& c : junk) c = static_cast<char>(rng() % 256);
    must_not_misbehave(junk);
  }
}
