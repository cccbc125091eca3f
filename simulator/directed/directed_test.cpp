// Runs every directed case (cases_*.cpp) in the simulator and compares the whole final state
// with the case's model; checks that every mnemonic the simulator implements has a case whose
// body contains it.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "simulator/decode/code_object.hpp"
#include "simulator/exec/handlers.hpp"
#include "simulator/decode/decoder.hpp"
#include "simulator/directed/cases.hpp"
#include "simulator/decode/isa.hpp"
#include "simulator/schedule/simulator_executor.hpp"
#include "simulator/tests/test_util.hpp"

namespace cdna::simulator::directed {
namespace {

const std::vector<Case>& cases() {
  static const std::vector<Case> c = all_cases();
  return c;
}

const std::vector<std::byte>& code_object() {
  static const std::vector<std::byte> co = testing::read_bytes(CDNA_DIRECTED_CO);
  return co;
}

SimulatorExecutor& executor() {
  static SimulatorExecutor e;
  return e;
}

State run_case(std::size_t index, const State& init) {
  std::vector<u32> in = pack_input(init);
  std::vector<u32> out(kOutputWords, 0xdeadbeefu);
  std::vector<u32> mem = init.mem;
  executor().run(code_object(), testing::dispatch(kernel_name(index), {1, 1, 1}, {64, 1, 1},
                                                  {testing::in(in), testing::out(out), testing::out(mem)}));
  return unpack_output(out, mem, init);
}

class Directed : public ::testing::TestWithParam<std::size_t> {};

TEST_P(Directed, MatchesModel) {
  ASSERT_FALSE(code_object().empty()) << "missing " << CDNA_DIRECTED_CO;
  const Case& c = cases()[GetParam()];
  if (!c.expect_error.empty()) {
    const std::string err = testing::error_of([&] { run_case(GetParam(), initial_state(c, 1)); });
    EXPECT_NE(err.find(c.expect_error), std::string::npos) << c.mnemonic << ": error was '" << err << "'";
    EXPECT_NE(err.find(kernel_name(GetParam())), std::string::npos) << "error does not name the kernel: " << err;
    EXPECT_NE(err.find("pc "), std::string::npos) << "error does not name the pc: " << err;
    return;
  }
  for (u32 seed : {1u, 2u}) {
    const State init = initial_state(c, seed);
    State want = init;
    c.model(want);
    State got;
    try {
      got = run_case(GetParam(), init);
    } catch (const std::exception& e) {
      FAIL() << c.mnemonic << " (kernel " << kernel_name(GetParam()) << "): " << e.what();
    }
    EXPECT_EQ(differences(want, got), "")
        << c.mnemonic << " (kernel " << kernel_name(GetParam()) << ", seed " << seed << ")\n" << c.body;
  }
}

std::string case_name(const ::testing::TestParamInfo<std::size_t>& info) {
  return cases()[info.param].mnemonic + "_" + std::to_string(info.param);
}

INSTANTIATE_TEST_SUITE_P(Cases, Directed, ::testing::Range<std::size_t>(0, all_cases().size()), case_name);

// The opcodes between the body markers (s_setprio 1 ... s_setprio 0) of case `index`.
std::set<Opcode> body_opcodes(const CodeObject& co, std::size_t index) {
  const auto prog = decode_kernel(co, co.kernel(kernel_name(index)));
  std::map<std::uint64_t, std::uint32_t> by_address(prog->index_of.begin(), prog->index_of.end());
  std::set<Opcode> ops;
  int marks = 0;
  for (const auto& [address, i] : by_address) {
    const std::string& t = prog->text[i];
    if (t.rfind("s_setprio", 0) == 0 && marks == 0 && t.find(" 1") != std::string::npos) { marks = 1; continue; }
    if (t.rfind("s_setprio", 0) == 0 && marks == 1 && t.find(" 0") != std::string::npos) break;
    if (marks == 1) ops.insert(prog->insts[i].op);
  }
  return ops;
}

TEST(DirectedCoverage, EveryImplementedMnemonicHasACase) {
  const CodeObject co = CodeObject::load(code_object(), "directed.hsaco");
  std::set<Opcode> covered;
  for (std::size_t i = 0; i < cases().size(); ++i) {
    const Opcode op = opcode_from_mnemonic(cases()[i].mnemonic);
    ASSERT_NE(op, Opcode::kUnsupported) << "case " << i << ": unknown mnemonic " << cases()[i].mnemonic;
    const auto ops = body_opcodes(co, i);
    EXPECT_TRUE(ops.count(op)) << "case " << i << " (" << cases()[i].mnemonic
                               << "): its body does not contain the instruction";
    covered.insert(op);
  }
  std::vector<std::string> missing;
  std::size_t implemented = 0;
  const auto& table = handler_table();
  for (std::size_t i = 0; i < kOpcodeCount; ++i) {
    const auto op = static_cast<Opcode>(i);
    if (op == Opcode::kUnsupported || !table[i] || mnemonic(op).empty()) continue;
    ++implemented;
    if (!covered.count(op)) missing.emplace_back(mnemonic(op));
  }
  std::string list;
  for (const auto& m : missing) list += " " + m;
  std::cout << "directed cases: " << cases().size() << "; implemented mnemonics: " << implemented
            << "; with a directed case: " << implemented - missing.size() << "\n";
  EXPECT_TRUE(missing.empty()) << missing.size() << " implemented mnemonics without a directed case:" << list;
}

// Poison mode (output buffers start as 0xff, a load of a never-written byte fails) with scalar
// memory: the s_store_dword case loads back what it stored, so it runs; the s_atomic_cmpswap case
// loads its compare value from `mem` before anything wrote it, so it fails like a vector load.
TEST(DirectedPoison, ScalarStoresCountAsWritesAndScalarLoadsAreChecked) {
  auto index_of = [](const std::string& m) {
    for (std::size_t i = 0; i < cases().size(); ++i)
      if (cases()[i].mnemonic == m && cases()[i].expect_error.empty()) return i;
    return cases().size();
  };
  auto run_poisoned = [](std::size_t index) {
    SimulatorExecutor ex;
    ex.options().poison = true;
    const State init = initial_state(cases()[index], 1);
    std::vector<u32> in = pack_input(init), out(kOutputWords), mem(init.mem.size());
    ex.run(code_object(), testing::dispatch(kernel_name(index), {1, 1, 1}, {64, 1, 1},
                                            {testing::in(in), testing::out(out), testing::out(mem)}));
  };
  const std::size_t store = index_of("s_store_dword"), atomic = index_of("s_atomic_cmpswap");
  ASSERT_LT(store, cases().size());
  ASSERT_LT(atomic, cases().size());
  EXPECT_NO_THROW(run_poisoned(store));
  const std::string err = testing::error_of([&] { run_poisoned(atomic); });
  EXPECT_NE(err.find("never wrote"), std::string::npos) << err;
  EXPECT_NE(err.find("s_load_dword"), std::string::npos) << err;
}

}  // namespace
}  // namespace cdna::simulator::directed
