// Prints isa/ISA.md. Usage: build/bin/isa_doc_gen > isa/ISA.md
#include <iostream>

#include "isa/assembler.h"

int main() {
  std::cout << npu::isa::generate_isa_markdown();
  return std::cout ? 0 : 1;
}
