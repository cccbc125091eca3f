#include "simulator/decode/code_object.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/BinaryFormat/MsgPackReader.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

namespace cdna::simulator {
namespace {

constexpr unsigned kMachGfx942 = 0x4c;  // EF_AMDGPU_MACH_AMDGCN_GFX942
constexpr unsigned kNtAmdgpuMetadata = 32;

[[noreturn]] void fail(const std::string& label, const std::string& what) {
  throw std::runtime_error("code object '" + label + "': " + what);
}

std::string take(llvm::Error e) { return llvm::toString(std::move(e)); }

// One line: LLVM's messages may contain newlines.
std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

std::string hex(std::uint64_t v) {
  std::ostringstream o;
  o << "0x" << std::hex << v;
  return o.str();
}

std::string machine_name(unsigned m) {
  switch (m) {
    case llvm::ELF::EM_X86_64: return "EM_X86_64 (x86-64)";
    case llvm::ELF::EM_386: return "EM_386 (x86)";
    case llvm::ELF::EM_AARCH64: return "EM_AARCH64";
    case llvm::ELF::EM_ARM: return "EM_ARM";
    case llvm::ELF::EM_RISCV: return "EM_RISCV";
    case llvm::ELF::EM_PPC64: return "EM_PPC64";
    case llvm::ELF::EM_CUDA: return "EM_CUDA";
    case llvm::ELF::EM_AMDGPU: return "EM_AMDGPU";
    default: return std::to_string(m);
  }
}

ArgKind classify(std::string_view k) {
  static const std::map<std::string_view, ArgKind> table = {
      {"by_value", ArgKind::ByValue},
      {"global_buffer", ArgKind::GlobalBuffer},
      {"dynamic_shared_pointer", ArgKind::DynamicSharedPointer},
      {"hidden_block_count_x", ArgKind::HiddenBlockCountX},
      {"hidden_block_count_y", ArgKind::HiddenBlockCountY},
      {"hidden_block_count_z", ArgKind::HiddenBlockCountZ},
      {"hidden_group_size_x", ArgKind::HiddenGroupSizeX},
      {"hidden_group_size_y", ArgKind::HiddenGroupSizeY},
      {"hidden_group_size_z", ArgKind::HiddenGroupSizeZ},
      {"hidden_remainder_x", ArgKind::HiddenRemainderX},
      {"hidden_remainder_y", ArgKind::HiddenRemainderY},
      {"hidden_remainder_z", ArgKind::HiddenRemainderZ},
      {"hidden_global_offset_x", ArgKind::HiddenGlobalOffsetX},
      {"hidden_global_offset_y", ArgKind::HiddenGlobalOffsetY},
      {"hidden_global_offset_z", ArgKind::HiddenGlobalOffsetZ},
      {"hidden_grid_dims", ArgKind::HiddenGridDims},
      {"hidden_dynamic_lds_size", ArgKind::HiddenDynamicLdsSize},
      {"hidden_private_base", ArgKind::HiddenPrivateBase},
      {"hidden_shared_base", ArgKind::HiddenSharedBase},
      {"hidden_none", ArgKind::HiddenNone},
      // Pointers to runtime services the simulator does not provide: passed as null, so a
      // kernel that uses one faults with an address error naming the access.
      {"hidden_printf_buffer", ArgKind::HiddenZeroPointer},
      {"hidden_hostcall_buffer", ArgKind::HiddenZeroPointer},
      {"hidden_default_queue", ArgKind::HiddenZeroPointer},
      {"hidden_completion_action", ArgKind::HiddenZeroPointer},
      {"hidden_multigrid_sync_arg", ArgKind::HiddenZeroPointer},
      {"hidden_heap_v1", ArgKind::HiddenZeroPointer},
      {"hidden_queue_ptr", ArgKind::HiddenZeroPointer},
  };
  auto it = table.find(k);
  return it == table.end() ? ArgKind::Other : it->second;
}

// Accessors that never assert: a wrong type is an error with the key's name.
struct Meta {
  const std::string& label;
  std::string where;

  std::uint64_t uint(llvm::msgpack::DocNode& n, std::string_view key) const {
    if (n.getKind() == llvm::msgpack::Type::UInt) return n.getUInt();
    if (n.getKind() == llvm::msgpack::Type::Int && n.getInt() >= 0)
      return static_cast<std::uint64_t>(n.getInt());
    fail(label, where + " metadata key '" + std::string(key) +
                    "' is not a non-negative integer; expected one");
  }
  std::string str(llvm::msgpack::DocNode& n, std::string_view key) const {
    if (n.getKind() == llvm::msgpack::Type::String) return n.getString().str();
    fail(label, where + " metadata key '" + std::string(key) + "' is not a string; expected one");
  }
  bool boolean(llvm::msgpack::DocNode& n, std::string_view key) const {
    if (n.getKind() == llvm::msgpack::Type::Boolean) return n.getBool();
    fail(label, where + " metadata key '" + std::string(key) + "' is not a boolean; expected one");
  }
};

// Walks the msgpack objects with llvm::msgpack::Reader before building a Document: map keys
// must be strings or integers and no extension objects may appear (llvm::msgpack::Document
// cannot order map keys that are maps or arrays and aborts on them).
std::string msgpack_problem(llvm::StringRef blob) {
  llvm::msgpack::Reader reader(blob);
  struct Level {
    std::uint64_t remaining;
    bool is_map;
  };
  std::vector<Level> stack;
  std::uint64_t objects = 0;
  bool first = true;
  while (first || !stack.empty()) {
    first = false;
    llvm::msgpack::Object obj;
    auto r = reader.read(obj);
    if (!r) return one_line(take(r.takeError()));
    if (!*r) return "ends early";
    if (++objects > (1u << 22)) return "has too many objects";
    bool is_key = !stack.empty() && stack.back().is_map && stack.back().remaining % 2 == 0;
    if (!stack.empty()) --stack.back().remaining;
    using T = llvm::msgpack::Type;
    if (obj.Kind == T::Extension) return "contains an extension object";
    if (is_key && obj.Kind != T::String && obj.Kind != T::Int && obj.Kind != T::UInt)
      return "has a map key that is not a string or integer";
    if (obj.Kind == T::Array || obj.Kind == T::Map) {
      if (stack.size() > 64) return "nests too deeply";
      std::uint64_t n = obj.Kind == T::Map ? 2ull * obj.Length : obj.Length;
      if (n > blob.size()) return "declares more elements than it has bytes";
      stack.push_back({n, obj.Kind == T::Map});
    }
    while (!stack.empty() && stack.back().remaining == 0) stack.pop_back();
  }
  return {};
}

llvm::msgpack::DocNode* find_key(llvm::msgpack::MapDocNode& map, llvm::StringRef key) {
  auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}

// The dynamic relocations of the SHF_ALLOC SHT_RELA sections, resolved against `loaded` (see
// Relocation in code_object.hpp). A code object is linked, so every symbol must be defined in it.
std::vector<Relocation> dynamic_relocations(const llvm::object::ELFFile<llvm::object::ELF64LE>& ef,
                                            llvm::ArrayRef<llvm::object::ELF64LE::Shdr> sections,
                                            const std::vector<CodeSection>& loaded, const std::string& L) {
  std::vector<Relocation> out;
  for (const auto& sh : sections) {
    if (!(sh.sh_flags & llvm::ELF::SHF_ALLOC)) continue;
    if (sh.sh_type == llvm::ELF::SHT_REL)
      fail(L, "has an SHT_REL dynamic relocation section; expected SHT_RELA (LLVM AMDGPUUsage, Relocation Records)");
    if (sh.sh_type != llvm::ELF::SHT_RELA) continue;
    auto relas = ef.relas(sh);
    if (!relas) fail(L, "malformed relocation section: " + one_line(take(relas.takeError())) +
                            "; expected well-formed .rela.dyn entries");
    auto symtab = ef.getSection(sh.sh_link);
    if (!symtab) fail(L, "relocation section names no readable symbol table: " + one_line(take(symtab.takeError())));
    for (const auto& r : *relas) {
      const std::uint32_t type = r.getType(false);
      auto value = static_cast<std::uint64_t>(r.r_addend);
      if (type == llvm::ELF::R_AMDGPU_ABS64) {
        auto sym = ef.getRelocationSymbol(r, *symtab);
        if (!sym) fail(L, "relocation at " + hex(r.r_offset) + ": " + one_line(take(sym.takeError())));
        if (!*sym || (*sym)->st_shndx == llvm::ELF::SHN_UNDEF)
          fail(L, "relocation at " + hex(r.r_offset) + " names an undefined symbol; expected every symbol "
                  "defined in the code object (there is nothing to link it against)");
        value += (*sym)->st_value;
      } else if (type != llvm::ELF::R_AMDGPU_RELATIVE64) {
        fail(L, "dynamic relocation type " + std::to_string(type) + " at " + hex(r.r_offset) +
                    " is not supported; expected R_AMDGPU_ABS64 (3) or R_AMDGPU_RELATIVE64 (13)");
      }
      std::size_t i = 0;
      while (i < loaded.size() && !(r.r_offset >= loaded[i].address && loaded[i].bytes.size() >= 8 &&
                                    r.r_offset - loaded[i].address <= loaded[i].bytes.size() - 8))
        ++i;
      if (i == loaded.size() || loaded[i].executable)
        fail(L, "relocation at " + hex(r.r_offset) + " does not patch 8 bytes of one loaded data section; "
                "expected it inside .got or .data");
      out.push_back(Relocation{i, r.r_offset - loaded[i].address, value});
    }
  }
  return out;
}

}  // namespace

std::size_t KernelInfo::explicit_arg_count() const {
  return static_cast<std::size_t>(std::count_if(
      args.begin(), args.end(), [](const ArgInfo& a) { return !a.is_hidden(); }));
}

const KernelInfo& CodeObject::kernel(std::string_view name) const {
  for (const auto& k : kernels_)
    if (k.name == name) return k;
  std::string present;
  for (const auto& k : kernels_) present += (present.empty() ? "" : ", ") + k.name;
  fail(label_, "kernel '" + std::string(name) + "' not found; kernels present: " +
                   (present.empty() ? "(none)" : present));
}

const CodeSection* CodeObject::section_at(std::uint64_t address) const {
  for (const auto& s : code_)
    if (s.executable && address >= s.address && address - s.address < s.bytes.size()) return &s;
  return nullptr;
}

CodeObject::ObjectLocation CodeObject::object_location(std::string_view name) const {
  auto it = objects_.find(name);
  if (it == objects_.end())
    fail(label_, "defines no data symbol '" + std::string(name) + "'; expected a global variable of that name");
  const auto [address, size] = it->second;
  for (std::size_t i = 0; i < code_.size(); ++i) {
    const auto& s = code_[i];
    if (s.executable || address < s.address || address - s.address >= s.bytes.size()) continue;
    if (size > s.bytes.size() - (address - s.address)) break;
    return ObjectLocation{i, address - s.address, size};
  }
  fail(label_, "data symbol '" + std::string(name) + "' (" + std::to_string(size) + " bytes at " + hex(address) +
                   ") is not inside one loaded data section; expected it in .rodata, .data or .bss");
}

std::optional<std::vector<std::uint8_t>> CodeObject::object_bytes(std::string_view name) const {
  if (!objects_.contains(name)) return std::nullopt;
  const ObjectLocation at = object_location(name);
  const auto first = code_[at.section].bytes.begin() + static_cast<std::ptrdiff_t>(at.offset);
  return std::vector<std::uint8_t>(first, first + static_cast<std::ptrdiff_t>(at.size));
}

CodeObject CodeObject::load(std::span<const std::byte> bytes, std::string label) {
  CodeObject co;
  co.label_ = std::move(label);
  const std::string& L = co.label_;

  if (bytes.size() < 4 || std::memcmp(bytes.data(), "\x7f" "ELF", 4) != 0) {
    if (bytes.size() >= 24 && std::memcmp(bytes.data(), "__CLANG_OFFLOAD_BUNDLE__", 24) == 0)
      fail(L, "is a clang offload bundle, not an ELF; expected a gfx942 code object "
              "(build with --no-gpu-bundle-output)");
    fail(L, "is not an ELF file (" + std::to_string(bytes.size()) +
                " bytes, no \\x7fELF magic); expected a gfx942 code object (ELF, EM_AMDGPU)");
  }
  if (bytes.size() < 64)
    fail(L, "is truncated (" + std::to_string(bytes.size()) +
                " bytes, shorter than an ELF64 header); expected a complete gfx942 code object");
  if (static_cast<unsigned char>(bytes[4]) != 2 || static_cast<unsigned char>(bytes[5]) != 1)
    fail(L, "is not a 64-bit little-endian ELF; expected ELFCLASS64/ELFDATA2LSB (EM_AMDGPU)");

  llvm::StringRef data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  llvm::MemoryBufferRef ref(data, L);
  auto obj_or = llvm::object::ObjectFile::createELFObjectFile(ref);
  if (!obj_or) fail(L, "malformed ELF: " + one_line(take(obj_or.takeError())) +
                           "; expected a well-formed gfx942 code object");
  auto* elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(obj_or->get());
  if (!elf) fail(L, "is not a 64-bit little-endian ELF; expected a gfx942 code object");

  const auto& ef = elf->getELFFile();
  const auto& hdr = ef.getHeader();
  if (hdr.e_machine != llvm::ELF::EM_AMDGPU)
    fail(L, "e_machine is " + machine_name(hdr.e_machine) + "; expected EM_AMDGPU (224)");
  co.e_flags_ = hdr.e_flags;
  unsigned mach = hdr.e_flags & llvm::ELF::EF_AMDGPU_MACH;
  if (mach != kMachGfx942)
    fail(L, "e_flags mach is " + hex(mach) + "; expected gfx942 (0x4c)");

  // Allocated sections (code and data).
  auto sections_or = ef.sections();
  if (!sections_or) fail(L, "malformed section table: " + one_line(take(sections_or.takeError())) +
                                "; expected a well-formed ELF");
  for (const auto& sh : *sections_or) {
    if (!(sh.sh_flags & llvm::ELF::SHF_ALLOC) || sh.sh_size == 0) continue;
    CodeSection cs;
    auto name = ef.getSectionName(sh);
    cs.name = name ? name->str() : (llvm::consumeError(name.takeError()), std::string("?"));
    cs.address = sh.sh_addr;
    cs.executable = (sh.sh_flags & llvm::ELF::SHF_EXECINSTR) != 0;
    cs.writable = (sh.sh_flags & llvm::ELF::SHF_WRITE) != 0;
    if (sh.sh_type == llvm::ELF::SHT_NOBITS) {
      if (sh.sh_size > (1u << 30))
        fail(L, "section " + cs.name + " claims " + std::to_string(sh.sh_size) +
                    " bytes; expected a plausible size");
      cs.bytes.assign(sh.sh_size, 0);
    } else {
      auto contents = ef.getSectionContents(sh);
      if (!contents) fail(L, "section " + cs.name + " unreadable: " +
                                 one_line(take(contents.takeError())) +
                                 "; expected section data inside the file");
      cs.bytes.assign(contents->begin(), contents->end());
    }
    co.code_.push_back(std::move(cs));
  }

  co.relocations_ = dynamic_relocations(ef, *sections_or, co.code_, L);

  // Metadata note.
  std::string blob;
  bool found_note = false;
  for (const auto& sh : *sections_or) {
    if (sh.sh_type != llvm::ELF::SHT_NOTE) continue;
    llvm::Error err = llvm::Error::success();
    for (const auto& note : ef.notes(sh, err)) {
      if (note.getName() == "AMDGPU" && note.getType() == kNtAmdgpuMetadata) {
        std::size_t align = sh.sh_addralign == 8 ? 8 : 4;
        auto desc = note.getDesc(align);
        blob.assign(reinterpret_cast<const char*>(desc.data()), desc.size());
        found_note = true;
      }
    }
    if (err) fail(L, "malformed note section: " + one_line(take(std::move(err))) +
                         "; expected well-formed ELF notes");
  }
  if (!found_note)
    fail(L, "has no NT_AMDGPU_METADATA note; expected code object v4/v5 metadata "
            "(amdhsa.kernels)");

  if (auto problem = msgpack_problem(blob); !problem.empty())
    fail(L, "NT_AMDGPU_METADATA msgpack " + problem + "; expected a well-formed msgpack map");
  llvm::msgpack::Document doc;
  if (!doc.readFromBlob(blob, false))
    fail(L, "NT_AMDGPU_METADATA is not valid msgpack; expected a msgpack map");
  auto& root = doc.getRoot();
  if (!root.isMap()) fail(L, "metadata root is not a map; expected a map with amdhsa.kernels");
  auto& rootmap = root.getMap();
  auto* kernels_node = find_key(rootmap, "amdhsa.kernels");
  if (!kernels_node || !kernels_node->isArray())
    fail(L, "metadata has no amdhsa.kernels array; expected one entry per kernel");
  if (auto* target = find_key(rootmap, "amdhsa.target"); target && target->isString()) {
    std::string t = target->getString().str();
    if (t.find("gfx942") == std::string::npos)
      fail(L, "metadata amdhsa.target is '" + t + "'; expected amdgcn-amd-amdhsa--gfx942");
  }

  // Symbols by name (static and dynamic tables).
  std::map<std::string, std::uint64_t> symbols;
  auto add_symbols = [&](auto range) {
    for (const auto& sym : range) {
      auto name = sym.getName();
      // A symbol table that cannot be read (e.g. sh_size past the end of the file) fails at
      // once: iterating its nominal millions of entries would hang (found by fuzzing).
      if (!name) fail(L, "symbol table is malformed: " + llvm::toString(name.takeError()));
      auto addr = sym.getAddress();
      if (!addr) {
        llvm::consumeError(addr.takeError());
        continue;
      }
      symbols.emplace(name->str(), *addr);
      if (sym.getELFType() == llvm::ELF::STT_OBJECT) co.objects_.emplace(name->str(), ObjectSymbol{*addr, sym.getSize()});
    }
  };
  add_symbols(elf->symbols());
  add_symbols(elf->getDynamicSymbolIterators());

  auto read_at = [&](std::uint64_t addr, std::size_t n, const std::string& what) {
    for (const auto& sh : *sections_or) {
      if (!(sh.sh_flags & llvm::ELF::SHF_ALLOC) || sh.sh_type == llvm::ELF::SHT_NOBITS) continue;
      if (addr < sh.sh_addr || addr - sh.sh_addr >= sh.sh_size) continue;
      if (addr - sh.sh_addr + n > sh.sh_size)
        fail(L, what + " at " + hex(addr) + " runs past the end of its section; expected " +
                    std::to_string(n) + " bytes inside it");
      auto contents = ef.getSectionContents(sh);
      if (!contents) fail(L, what + " section unreadable: " + one_line(take(contents.takeError())) +
                                 "; expected section data inside the file");
      if (addr - sh.sh_addr + n > contents->size())
        fail(L, what + " at " + hex(addr) + " lies beyond the file (truncated); expected " +
                    std::to_string(n) + " bytes of data");
      return std::vector<std::uint8_t>(contents->begin() + (addr - sh.sh_addr),
                                       contents->begin() + (addr - sh.sh_addr + n));
    }
    fail(L, what + " at " + hex(addr) + " is in no loaded section; expected it in .rodata");
  };

  for (auto& knode : kernels_node->getArray()) {
    if (!knode.isMap()) fail(L, "an amdhsa.kernels entry is not a map; expected a map");
    auto& km = knode.getMap();
    KernelInfo k;
    Meta meta{L, "kernel"};
    auto* name = find_key(km, ".name");
    if (!name) fail(L, "an amdhsa.kernels entry has no .name; expected one");
    k.name = meta.str(*name, ".name");
    meta.where = "kernel '" + k.name + "'";
    auto need = [&](llvm::StringRef key) -> llvm::msgpack::DocNode& {
      auto* n = find_key(km, key);
      if (!n) fail(L, meta.where + " metadata lacks " + key.str() + "; expected it (code object v5)");
      return *n;
    };
    auto opt_uint = [&](llvm::StringRef key, std::uint64_t dflt) {
      auto* n = find_key(km, key);
      return n ? meta.uint(*n, key) : dflt;
    };
    std::string symbol = meta.str(need(".symbol"), ".symbol");
    k.kernarg_segment_size = static_cast<std::uint32_t>(meta.uint(need(".kernarg_segment_size"), ".kernarg_segment_size"));
    k.kernarg_segment_align = static_cast<std::uint32_t>(opt_uint(".kernarg_segment_align", 8));
    k.group_segment_fixed_size = static_cast<std::uint32_t>(meta.uint(need(".group_segment_fixed_size"), ".group_segment_fixed_size"));
    k.private_segment_fixed_size = static_cast<std::uint32_t>(meta.uint(need(".private_segment_fixed_size"), ".private_segment_fixed_size"));
    k.wavefront_size = static_cast<std::uint32_t>(meta.uint(need(".wavefront_size"), ".wavefront_size"));
    k.sgpr_count = static_cast<std::uint32_t>(meta.uint(need(".sgpr_count"), ".sgpr_count"));
    k.vgpr_count = static_cast<std::uint32_t>(meta.uint(need(".vgpr_count"), ".vgpr_count"));
    k.agpr_count = static_cast<std::uint32_t>(opt_uint(".agpr_count", 0));
    k.max_flat_workgroup_size = static_cast<std::uint32_t>(opt_uint(".max_flat_workgroup_size", 1024));
    if (auto* n = find_key(km, ".uses_dynamic_stack")) k.uses_dynamic_stack = meta.boolean(*n, ".uses_dynamic_stack");
    if (k.wavefront_size != 64)
      fail(L, meta.where + " has wavefront size " + std::to_string(k.wavefront_size) +
                  "; expected 64 (gfx942 runs wave64)");
    if (k.kernarg_segment_align == 0 || (k.kernarg_segment_align & (k.kernarg_segment_align - 1)))
      fail(L, meta.where + " .kernarg_segment_align is " + std::to_string(k.kernarg_segment_align) +
                  "; expected a power of two");

    if (auto* args = find_key(km, ".args")) {
      if (!args->isArray()) fail(L, meta.where + " .args is not an array; expected an array");
      std::size_t i = 0;
      for (auto& anode : args->getArray()) {
        if (!anode.isMap()) fail(L, meta.where + " .args[" + std::to_string(i) + "] is not a map; expected a map");
        auto& am = anode.getMap();
        ArgInfo a;
        Meta ameta{L, meta.where + " .args[" + std::to_string(i) + "]"};
        auto* off = find_key(am, ".offset");
        auto* size = find_key(am, ".size");
        auto* vk = find_key(am, ".value_kind");
        if (!off || !size || !vk)
          fail(L, ameta.where + " lacks .offset/.size/.value_kind; expected all three");
        a.offset = static_cast<std::uint32_t>(ameta.uint(*off, ".offset"));
        a.size = static_cast<std::uint32_t>(ameta.uint(*size, ".size"));
        a.value_kind = ameta.str(*vk, ".value_kind");
        a.kind = classify(a.value_kind);
        if (auto* nm = find_key(am, ".name"); nm && nm->isString()) a.name = nm->getString().str();
        if (std::uint64_t{a.offset} + a.size > k.kernarg_segment_size)
          fail(L, ameta.where + " (offset " + std::to_string(a.offset) + ", size " +
                      std::to_string(a.size) + ") exceeds .kernarg_segment_size " +
                      std::to_string(k.kernarg_segment_size) + "; expected it inside the segment");
        k.args.push_back(std::move(a));
        ++i;
      }
    }

    auto sym = symbols.find(symbol);
    if (sym == symbols.end())
      fail(L, meta.where + " descriptor symbol '" + symbol + "' not in the symbol table; expected " +
                  k.name + ".kd");
    k.descriptor_address = sym->second;
    auto kd = read_at(k.descriptor_address, 64, "kernel descriptor '" + symbol + "'");
    auto u32 = [&](std::size_t off) {
      std::uint32_t v;
      std::memcpy(&v, kd.data() + off, 4);
      return v;
    };
    auto& d = k.descriptor;
    d.group_segment_fixed_size = u32(0);
    d.private_segment_fixed_size = u32(4);
    d.kernarg_size = u32(8);
    std::memcpy(&d.kernel_code_entry_byte_offset, kd.data() + 16, 8);
    d.compute_pgm_rsrc3 = u32(44);
    d.compute_pgm_rsrc1 = u32(48);
    d.compute_pgm_rsrc2 = u32(52);
    std::memcpy(&d.kernel_code_properties, kd.data() + 56, 2);
    std::memcpy(&d.kernarg_preload, kd.data() + 58, 2);
    k.entry_address = k.descriptor_address + static_cast<std::uint64_t>(d.kernel_code_entry_byte_offset);
    if (!co.section_at(k.entry_address))
      fail(L, meta.where + " entry " + hex(k.entry_address) +
                  " (descriptor + kernel_code_entry_byte_offset) is in no executable section; "
                  "expected it in .text");
    if (k.entry_address % 4)
      fail(L, meta.where + " entry " + hex(k.entry_address) + " is not 4-byte aligned; expected 256-byte aligned code");
    if (d.kernel_code_properties & kWavefrontSize32)
      fail(L, meta.where + " descriptor enables wave32; expected wave64 on gfx942");
    co.kernels_.push_back(std::move(k));
  }
  if (co.kernels_.empty()) fail(L, "amdhsa.kernels is empty; expected at least one kernel");
  return co;
}

}  // namespace cdna::simulator
