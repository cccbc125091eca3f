// Code-object loader: a gfx942 ELF (code object v4/v5) parsed with LLVM's Object library, its
// kernel descriptors (`<kernel>.kd`, 64 bytes, LLVM AMDGPUUsage "Kernel Descriptor") and its
// metadata note (NT_AMDGPU_METADATA, msgpack, read with llvm::msgpack::Document).
//
// Every malformed, truncated or non-gfx942 input throws std::runtime_error with one line
// naming the code object, what is wrong and what would be right.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cdna::simulator {

// The 64-byte kernel descriptor, field by field (cdna3-facts.md §3).
struct KernelDescriptor {
  std::uint32_t group_segment_fixed_size = 0;
  std::uint32_t private_segment_fixed_size = 0;
  std::uint32_t kernarg_size = 0;
  std::int64_t kernel_code_entry_byte_offset = 0;
  std::uint32_t compute_pgm_rsrc3 = 0;
  std::uint32_t compute_pgm_rsrc1 = 0;
  std::uint32_t compute_pgm_rsrc2 = 0;
  std::uint16_t kernel_code_properties = 0;
  std::uint16_t kernarg_preload = 0;

  // Decoded fields.
  std::uint32_t accum_offset() const { return ((compute_pgm_rsrc3 & 0x3f) + 1) * 4; }
  // Unified VGPR+AGPR registers allocated per lane (gfx90a/gfx942 granule of 8).
  std::uint32_t allocated_vgprs() const { return ((compute_pgm_rsrc1 & 0x3f) + 1) * 8; }
  std::uint32_t float_round_mode_32() const { return (compute_pgm_rsrc1 >> 12) & 3; }
  std::uint32_t float_round_mode_16_64() const { return (compute_pgm_rsrc1 >> 14) & 3; }
  std::uint32_t float_denorm_mode_32() const { return (compute_pgm_rsrc1 >> 16) & 3; }
  std::uint32_t float_denorm_mode_16_64() const { return (compute_pgm_rsrc1 >> 18) & 3; }
  bool dx10_clamp() const { return (compute_pgm_rsrc1 >> 21) & 1; }
  bool ieee_mode() const { return (compute_pgm_rsrc1 >> 23) & 1; }
  bool enable_private_segment() const { return compute_pgm_rsrc2 & 1; }
  std::uint32_t user_sgpr_count() const { return (compute_pgm_rsrc2 >> 1) & 0x1f; }
  bool workgroup_id_enabled(int dim) const { return (compute_pgm_rsrc2 >> (7 + dim)) & 1; }
  bool workgroup_info_enabled() const { return (compute_pgm_rsrc2 >> 10) & 1; }
  std::uint32_t workitem_id_vgprs() const { return (compute_pgm_rsrc2 >> 11) & 3; }
  std::uint32_t kernarg_preload_length() const { return kernarg_preload & 0x7f; }
  std::uint32_t kernarg_preload_offset() const { return kernarg_preload >> 7; }
};

// kernel_code_properties bits (LLVM AMDHSAKernelDescriptor.h).
enum KernelCodeProperty : std::uint16_t {
  kPrivateSegmentBuffer = 1u << 0,
  kDispatchPtr = 1u << 1,
  kQueuePtr = 1u << 2,
  kKernargSegmentPtr = 1u << 3,
  kDispatchId = 1u << 4,
  kFlatScratchInit = 1u << 5,
  kPrivateSegmentSize = 1u << 6,
  kWavefrontSize32 = 1u << 10,
  kUsesDynamicStack = 1u << 11,
};

// `.value_kind` of a kernel argument (AMDGPUUsage code object v5 metadata).
enum class ArgKind : std::uint8_t {
  ByValue,
  GlobalBuffer,
  DynamicSharedPointer,
  HiddenBlockCountX,
  HiddenBlockCountY,
  HiddenBlockCountZ,
  HiddenGroupSizeX,
  HiddenGroupSizeY,
  HiddenGroupSizeZ,
  HiddenRemainderX,
  HiddenRemainderY,
  HiddenRemainderZ,
  HiddenGlobalOffsetX,
  HiddenGlobalOffsetY,
  HiddenGlobalOffsetZ,
  HiddenGridDims,
  HiddenDynamicLdsSize,
  HiddenPrivateBase,
  HiddenSharedBase,
  HiddenNone,               // padding: zero
  HiddenZeroPointer,        // printf/hostcall/heap/queue/... buffers: null (not provided)
  Other,                    // any other kind: an error to launch (see executor)
};

struct ArgInfo {
  std::uint32_t offset = 0;
  std::uint32_t size = 0;
  std::string value_kind;   // as in the metadata
  ArgKind kind = ArgKind::Other;
  std::string name;         // `.name` if present
  bool is_hidden() const { return value_kind.rfind("hidden_", 0) == 0; }
};

struct KernelInfo {
  std::string name;
  std::uint64_t descriptor_address = 0;  // virtual address of `<name>.kd`
  KernelDescriptor descriptor;
  std::uint64_t entry_address = 0;       // virtual address of the first instruction
  std::vector<ArgInfo> args;             // explicit then hidden, in metadata order
  std::uint32_t kernarg_segment_size = 0;
  std::uint32_t kernarg_segment_align = 8;
  std::uint32_t group_segment_fixed_size = 0;
  std::uint32_t private_segment_fixed_size = 0;
  std::uint32_t wavefront_size = 64;
  std::uint32_t sgpr_count = 0;
  std::uint32_t vgpr_count = 0;
  std::uint32_t agpr_count = 0;
  std::uint32_t max_flat_workgroup_size = 1024;
  bool uses_dynamic_stack = false;

  std::size_t explicit_arg_count() const;
};

// One allocated section (virtual address, bytes; NOBITS sections are zero-filled).
struct CodeSection {
  std::string name;
  std::uint64_t address = 0;
  std::vector<std::uint8_t> bytes;
  bool executable = false;
  bool writable = false;
};

// A dynamic relocation (an SHF_ALLOC SHT_RELA section, .rela.dyn) the loader applies as the HSA
// runtime's does: the 8 bytes at `offset` in sections()[`section`] become the load base + `value`
// (R_AMDGPU_ABS64: the symbol's value + addend; R_AMDGPU_RELATIVE64: the addend; LLVM
// AMDGPUUsage "Relocation Records"). Clang emits one GOT entry per __device__ variable a kernel
// reads, e.g. MoonMath's `tail_sched`.
struct Relocation {
  std::size_t section = 0;
  std::uint64_t offset = 0;
  std::uint64_t value = 0;
};

class CodeObject {
 public:
  // Parses `bytes`; `label` names the code object in error messages (e.g. its file name).
  static CodeObject load(std::span<const std::byte> bytes, std::string label = "<memory>");

  const std::string& label() const { return label_; }
  const std::vector<KernelInfo>& kernels() const { return kernels_; }
  // Throws "code object 'x': kernel 'foo' not found; kernels present: a, b".
  const KernelInfo& kernel(std::string_view name) const;
  // The executable section holding `address`, or nullptr.
  const CodeSection* section_at(std::uint64_t address) const;
  // Every allocated section (code and data), as loaded at its virtual address.
  const std::vector<CodeSection>& sections() const { return code_; }
  std::uint32_t e_flags() const { return e_flags_; }
  // The dynamic relocations to apply when the sections are loaded (see Relocation).
  const std::vector<Relocation>& relocations() const { return relocations_; }
  // The bytes of the data object `name` (an ELF symbol of type OBJECT, st_size bytes at its
  // address in an allocated non-executable section), or nullopt if the code object defines no
  // such symbol. Throws std::runtime_error (one line) if the symbol lies outside its section.
  std::optional<std::vector<std::uint8_t>> object_bytes(std::string_view name) const;
  // Where the data object `name` lives: index into sections(), byte offset in that section, and
  // its size (ELF st_size). Throws std::runtime_error (one line) if the code object defines no
  // such OBJECT symbol or it lies outside one allocated non-executable section.
  struct ObjectLocation {
    std::size_t section = 0;
    std::uint64_t offset = 0, size = 0;
  };
  ObjectLocation object_location(std::string_view name) const;

 private:
  std::string label_;
  std::uint32_t e_flags_ = 0;
  std::vector<KernelInfo> kernels_;
  std::vector<CodeSection> code_;
  std::vector<Relocation> relocations_;
  struct ObjectSymbol {
    std::uint64_t address = 0, size = 0;
  };
  std::map<std::string, ObjectSymbol, std::less<>> objects_;  // OBJECT symbols by name
};

}  // namespace cdna::simulator
