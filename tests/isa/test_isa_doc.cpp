#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "isa/assembler.h"
#include "isa/operands.h"

using namespace npu::isa;

TEST_CASE("isa/ISA.md is generated from the table and up to date", "[isa][doc]") {
  std::string path = std::string(NPUSIM_SOURCE_DIR) + "/isa/ISA.md";
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string generated = generate_isa_markdown();
  INFO(path << " is missing or out of date with isa/instruction_set.def; regenerate it with\n"
               "  build/bin/isa_doc_gen > isa/ISA.md");
  REQUIRE(ss.str() == generated);
}

TEST_CASE("ISA.md documents every instruction and field", "[isa][doc]") {
  std::string doc = generate_isa_markdown();
  for (int o = 0; o < static_cast<int>(Opcode::kCount); ++o) {
    const OpcodeInfo& info = opcode_info(static_cast<Opcode>(o));
    CHECK(doc.find("### " + std::string(info.mnemonic) + "\n") != std::string::npos);
    for (int i = 0; i < info.field_count; ++i) {
      const FieldSlot& s = info.fields[i];
      std::string row = "| `" + std::string(field_info(s.field).name) + "` | " + std::to_string(s.offset_bits) +
                        ".." + std::to_string(s.offset_bits + s.width_bits - 1) + " | ";
      CAPTURE(info.mnemonic, row);
      CHECK(doc.find(row) != std::string::npos);
    }
  }
}

TEST_CASE("ISA.md gives every instruction's operands and their size rules", "[isa][doc]") {
  const std::string doc = generate_isa_markdown();
  for (int o = 0; o < static_cast<int>(Opcode::kCount); ++o) {
    const auto op = static_cast<Opcode>(o);
    const std::size_t section = doc.find("### " + std::string(opcode_info(op).mnemonic) + "\n");
    const std::size_t next = doc.find("\n### ", section + 1);
    REQUIRE(section != std::string::npos);
    const std::string text = doc.substr(section, next - section);
    CHECK((text.find("**Operands**") != std::string::npos) == (operand_rules(op).size() > 0));
    for (const OperandRule& r : operand_rules(op)) {
      const std::string row = "| `" + std::string(field_info(r.address).name) + "` | " +
                              (r.memory == Memory::Sram ? "scratchpad" : "DDR") + " | " +
                              (r.access == Access::Read ? "read" : "written");
      CAPTURE(opcode_info(op).mnemonic, row, r.bytes);
      CHECK(text.find(row) != std::string::npos);
      CHECK(text.find("`" + std::string(r.bytes) + "`") != std::string::npos);
    }
  }
}
