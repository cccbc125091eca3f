// The wait-state checker: kernels with too few wait states around MFMA are errors naming both
// instructions; kernels with enough run.
#include <gtest/gtest.h>

#include "simulator/tests/test_util.hpp"

namespace cdna::simulator {
namespace {

using namespace testing;

std::string run_hazard_kernel(const std::string& kernel) {
  static SimulatorExecutor ex;
  static auto co = testdata("hazards");
  std::vector<std::uint16_t> a(64 * 4, 0x3f80), b(64 * 4, 0x3f80);
  std::vector<float> o(64, 0.0f);
  return error_of([&] { ex.run(co, dispatch(kernel, {1, 1, 1}, {64, 1, 1}, {in(a), in(b), out(o)})); });
}

void expect_hazard(const std::string& kernel, const std::string& what, int ws, int need) {
  std::string msg = run_hazard_kernel(kernel);
  SCOPED_TRACE(kernel);
  EXPECT_NE(msg.find("hazard: " + what), std::string::npos) << msg;
  EXPECT_NE(msg.find(" " + std::to_string(ws) + " wait states after 'v_"), std::string::npos) << msg;
  EXPECT_NE(msg.find("gfx942 needs " + std::to_string(need)), std::string::npos) << msg;
  EXPECT_NE(msg.find("kernel '" + kernel + "'"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST(SimHazards, EnoughWaitStatesRun) {
  for (const char* k : {"result_read_nop6_ok", "result_read_counted_ok", "chained_srcc_ok",
                        "valu_to_mfma_nop1_ok", "big_result_nop7_nop2_ok", "smfmac_chained_ok"})
    EXPECT_EQ(run_hazard_kernel(k), "") << k;
}

TEST(SimHazards, MissingWaitStatesAreErrors) {
  expect_hazard("result_read_nop5", "VALU access of the MFMA result (v[0:3])", 6, 7);
  expect_hazard("result_read_none", "VALU access of the MFMA result (v[0:3])", 0, 7);
  expect_hazard("result_overwrite", "VALU access of the MFMA result (v[0:3])", 3, 7);
  expect_hazard("result_to_srca", "MFMA SrcA/SrcB read of the MFMA result (v[0:3])", 4, 7);
  expect_hazard("partial_srcc", "MFMA SrcC partially overlapping the MFMA result (v[0:3])", 3, 5);
  expect_hazard("srcc_overwrite", "VALU overwrite of the MFMA's SrcC (v[0:3])", 1, 3);
  expect_hazard("valu_to_mfma", "MFMA read of a VALU result (v0)", 0, 2);
  expect_hazard("big_result_nop7", "VALU access of the MFMA result (v[0:15])", 8, 11);
  expect_hazard("exec_to_mfma", "MFMA after a VALU write of EXEC", 0, 4);
  expect_hazard("store_too_early", "VMEM access of the MFMA result (v[0:3])", 4, 7);
  expect_hazard("smfmac_index_from_mfma", "v_smfmac index read of the MFMA result (v[0:3])", 4, 7);
  expect_hazard("smfmac_index_from_valu", "MFMA read of a VALU result (v16)", 0, 2);
  expect_hazard("smfmac_result_read", "VALU access of the MFMA result (v[4:7])", 6, 7);
}

TEST(SimHazards, CheckerCanBeSwitchedOff) {
  SimulatorExecutor ex;
  ex.options().check_hazards = false;
  std::vector<std::uint16_t> a(64 * 4, 0x3f80), b(64 * 4, 0x3f80);
  std::vector<float> o(64, 0.0f);
  ex.run(testdata("hazards"), dispatch("result_read_none", {1, 1, 1}, {64, 1, 1}, {in(a), in(b), out(o)}));
  EXPECT_EQ(o[0], 16.0f);  // the simulator computes the result immediately: 16 products of 1*1
}

}  // namespace
}  // namespace cdna::simulator
