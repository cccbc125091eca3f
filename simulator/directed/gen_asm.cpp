// directed_asm OUT.s: writes the assembly source of every directed case (build step; the
// build then assembles it with llvm-mc-19 and links it with ld.lld-19).
#include <fstream>
#include <iostream>

#include "simulator/directed/cases.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: directed_asm OUT.s\n";
    return 2;
  }
  std::ofstream out(argv[1], std::ios::binary);
  out << cdna::simulator::directed::assembly_source(cdna::simulator::directed::all_cases());
  if (!out.flush()) {
    std::cerr << "directed_asm: cannot write " << argv[1] << "\n";
    return 2;
  }
  return 0;
}
