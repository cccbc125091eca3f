// Which kernel the property suite runs (issue 10): ours through device::launch_attention with
// generated strided/padded layouts (the default), or any kernel adapter (adapters/
// kernel_adapter.hpp) on contiguous BSHD problems, chosen by the environment:
//   CDNA_PROPERTY_KERNEL       adapter name (adapters::adapter_names()); default attention-fwd
//   CDNA_PROPERTY_CODE_OBJECT  the adapter's source (a directory or one code object); default
//                              the adapter's default_source()
//   CDNA_PROPERTY_VIA_ADAPTER  "1": run attention-fwd through its adapter too (contiguous path)
//   CDNA_PROPERTY_MODE         one bf16 rounding mode (rtne, rtna, rtz) for every case; default
//                              all the kernel's modes
//   CDNA_PROPERTY_HAZARDS      the simulator's hazard policy, error (default), report or
//                              differential, as `--hazards` of run and audit (docs/pass-rule.md)
//   CDNA_PROPERTY_PEER_DIR     a folder the kernel comes from (../shared/peers/<kernel>): when it
//                              is absent every property is skipped with one line (ctest peers_*)
//   CDNA_PROPERTY_EXECUTOR     simulator (default), hip (a gfx942 device; without one every
//                              property test fails with one line, never a skip), or auto (the
//                              device if there is one, else the simulator, said once)
// Foreign kernels always take the adapter path. properties/README.md "Another kernel".
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "adapters/kernel_adapter.hpp"
#include "properties/property_case.hpp"
#include "simulator/checks/hazard_policy.hpp"
#include "simulator/schedule/simulator_executor.hpp"

namespace cdna::properties {

struct KernelSelection {
  std::string name = "attention-fwd";  // an adapter name
  std::filesystem::path source;        // empty: the adapter's default_source()
  bool via_adapter = false;            // false only for attention-fwd without CDNA_PROPERTY_VIA_ADAPTER=1
  std::filesystem::path peer_dir;      // empty: none required
  std::optional<numerics::Rounding> mode;  // every case in this mode; nullopt: all
  simulator::HazardPolicy hazards = simulator::HazardPolicy::Error;
  std::string executor = "simulator";  // CDNA_PROPERTY_EXECUTOR: simulator, hip or auto
};

// Reads the variables above. Throws std::invalid_argument (one line) for an unknown kernel name,
// a CDNA_PROPERTY_VIA_ADAPTER other than "", "0" or "1", or an unknown mode, hazard policy or
// executor.
KernelSelection kernel_selection_from_env();

// The executor the suite runs on; `sim` points at it when it is the simulator.
struct SuiteExecutor {
  std::unique_ptr<device::Executor> executor;
  simulator::SimulatorExecutor* sim = nullptr;
};
// KernelSelection::executor made: "simulator"; "hip" the first gfx942 device, or std::runtime_error
// "CDNA_PROPERTY_EXECUTOR=hip: <why there is none>" (one line); "auto" the device if there is one,
// else the simulator with one line on stdout saying so.
SuiteExecutor make_suite_executor(const std::string& name);

// A selected kernel behind its adapter, each mode's code objects loaded on first use.
class KernelUnderTest {
 public:
  // Throws std::invalid_argument (make_adapter) for an unknown name.
  explicit KernelUnderTest(KernelSelection selection);
  // A given adapter (tests: a kernel with other features or limits).
  KernelUnderTest(KernelSelection selection, std::unique_ptr<adapters::KernelAdapter> adapter);
  const KernelSelection& selection() const { return selection_; }
  const adapters::KernelFeatures& features() const { return features_; }
  // Where the code objects come from (source, or the adapter's default), for messages.
  std::filesystem::path source() const;
  // One line when the peer folder or the source does not exist: the properties are then
  // skipped with this reason. nullopt when both exist. (The source alone is not enough: a
  // kernel built from a peer's sources has its code object folder in the build tree.)
  std::optional<std::string> absent_reason() const;
  // The adapter with `mode` loaded (adapters::KernelAdapter::load; its exceptions propagate).
  adapters::KernelAdapter& loaded(numerics::Rounding mode);
  // Why the kernel does not take case `c` (one line), or nullopt. Native path: our launcher's
  // reason. Adapter path: the adapter's for the problems run_through_adapter runs — the whole
  // problem, or for a varlen case each sequence alone with Sq_b >= 1 (the padded extents are
  // never run: AITER takes top-left when Sq_b = Sk_b whatever Sq and Sk are).
  std::optional<std::string> rejection(const PropertyCase& c);
  // Whether the kernel takes Sk = 0 (asked of unsupported_reason with B = Sq = Hq = Hkv = 1, its
  // first head dim, mask and mode): MoonMath's launcher refuses it, and the generator then
  // draws Sk >= 1 instead of discarding most small cases.
  bool takes_no_keys();

 private:
  KernelSelection selection_;
  std::unique_ptr<adapters::KernelAdapter> adapter_;
  adapters::KernelFeatures features_;
  std::set<numerics::Rounding> loaded_;
};

}  // namespace cdna::properties
