// Configuration choices are enums outside hwconfig/: no code compares one as text. A string
// comparison would compile again if a choice became a string, and would silently take the
// wrong branch for a name added later, so the tree is searched for one.
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "hwconfig/config_schema.h"
#include "tests/hwconfig/test_util.h"

using namespace hwtest;
namespace fs = std::filesystem;

namespace {

struct ChoiceKey {
  std::string section, key;
  std::set<std::string> names;
};

std::vector<ChoiceKey> choice_keys() {
  std::vector<ChoiceKey> keys;
  for (const auto& f : npu::schema::fields()) {
    if (f.kind != npu::schema::Kind::Choice) continue;
    ChoiceKey k{f.section, f.key, {}};
    for (const auto& e : f.choices) k.names.insert(e.name);
    keys.push_back(k);
  }
  return keys;
}

// The last member an expression names: "c.ddr.model" -> "model", "cfg->dram.scheduler" -> "scheduler".
std::string last_member(std::string expr) {
  while (!expr.empty() && !(std::isalnum(static_cast<unsigned char>(expr.back())) || expr.back() == '_')) expr.pop_back();
  const std::size_t dot = expr.find_last_of(".>");
  return dot == std::string::npos ? expr : expr.substr(dot + 1);
}

// Whether `expr == "literal"` compares a configuration choice as text: a choice key's member
// under its section (`ddr.model`, `energy->model`), any member named like a choice key compared
// with one of that key's names (`d.model == "dram"`), or a choice_name(...) compared with a name.
bool compares_choice(const std::string& expr, const std::string& literal, const std::vector<ChoiceKey>& keys) {
  const bool by_name = expr.find("choice_name") != std::string::npos;
  for (const auto& k : keys) {
    if (by_name && k.names.count(literal)) return true;
    if (last_member(expr) != k.key) continue;
    if (k.names.count(literal) || expr.find(k.section + ".") != std::string::npos ||
        expr.find(k.section + "->") != std::string::npos)
      return true;
  }
  return false;
}

bool skipped(const fs::path& relative) {
  const std::string top = relative.begin()->string();
  // hwconfig/ owns the names (the loader compares text by design), its tests test that; build
  // trees and generated models hold no source of ours.
  if (top == "hwconfig" || top == ".git" || top == "models" || top == "out" || top.rfind("build", 0) == 0) return true;
  const fs::path second = relative.has_parent_path() ? *std::next(relative.begin()) : fs::path();
  return top == "tests" && second == "hwconfig";
}

}  // namespace

TEST_CASE("no string-literal comparison of a configuration choice outside hwconfig/", "[hwconfig][choices]") {
  const auto keys = choice_keys();
  REQUIRE(keys.size() >= 12);
  const std::string expr = R"re(([A-Za-z_][\w.:>\-\[\]()]*))re";
  const std::string literal = R"re("([^"\\]*)")re";
  const std::regex left(expr + R"re(\s*[!=]=\s*)re" + literal);
  const std::regex right(literal + R"re(\s*[!=]=\s*)re" + expr);

  const fs::path root = source_dir();
  std::vector<std::string> offenders;
  std::size_t files = 0;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path relative = fs::relative(it->path(), root);
    if (skipped(relative)) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    const std::string ext = it->path().extension().string();
    if (!it->is_regular_file() || (ext != ".cpp" && ext != ".h" && ext != ".cc" && ext != ".hpp")) continue;
    ++files;
    std::istringstream in(read_file(it->path().string()));
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      if (line.find('"') == std::string::npos || (line.find("==") == std::string::npos && line.find("!=") == std::string::npos))
        continue;
      bool found = false;
      for (std::sregex_iterator m(line.begin(), line.end(), left), end; m != end && !found; ++m)
        found = compares_choice((*m)[1], (*m)[2], keys);
      for (std::sregex_iterator m(line.begin(), line.end(), right), end; m != end && !found; ++m)
        found = compares_choice((*m)[2], (*m)[1], keys);
      if (found) offenders.push_back(relative.string() + ":" + std::to_string(number) + ": " + line);
    }
  }
  CHECK(files > 300);  // the walk found the tree
  std::string list;
  for (const auto& o : offenders) list += o + "\n";
  INFO("compare the enum (hwconfig/config_choices.h) instead:\n" << list);
  CHECK(offenders.empty());
}

TEST_CASE("the comparison search recognises a choice compared as text", "[hwconfig][choices]") {
  const auto keys = choice_keys();
  CHECK(compares_choice("c.ddr.model", "dram", keys));
  CHECK(compares_choice("config_.dma.channel_queue", "anything", keys));  // under its section
  CHECK(compares_choice("d.model", "ideal", keys));                       // a ddr.model name
  CHECK(compares_choice("cfg.energy->model", "derived", keys));
  CHECK(compares_choice("hw.mac_array.mapping)", "flexible", keys));  // the right side of `"x" == a.b)`
  CHECK(compares_choice("std::string(npu::choice_name(m))", "banked", keys));
  CHECK_FALSE(compares_choice("s.model", "resnet50.onnx", keys));  // a model path, not a choice
  CHECK_FALSE(compares_choice("p.name", "fixed", keys));           // a design-cost part
}
