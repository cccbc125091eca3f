// `--memory-model coherent|cdna3` of `sim`, `run` and `audit` (simulator/checks/memory_model.hpp,
// simulator/README.md "Memory-model mode").
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace cdna::tools {

inline void add_memory_model_option(CLI::App* cmd, std::string& value) {
  cmd->add_option("--memory-model", value,
                  "Simulator global memory: coherent (one coherent memory), or cdna3 (gfx942's per-CU L1 and "
                  "scalar caches and per-XCD L2s, as adversarial as the memory model allows: a load without the "
                  "sc bits of its scope may read a stale copy, a store below agent scope stays in its XCD's L2 "
                  "until buffer_wbl2 sc1, a wave's stores are performed youngest first until s_waitcnt vmcnt or "
                  "buffer_wbl2 forces them; workgroup i runs on XCD i mod 8)")
      ->check(CLI::IsMember({"coherent", "cdna3"}))
      ->capture_default_str();
}

}  // namespace cdna::tools
