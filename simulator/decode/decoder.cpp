#include "simulator/decode/decoder.hpp"
#include "simulator/exec/handlers.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <vector>

#include <llvm-c/Disassembler.h>
#include <llvm-c/Target.h>

#include "simulator/checks/hazard.hpp"
#include "simulator/state/wave.hpp"

namespace cdna::simulator {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// Splits at top-level commas and blanks (not inside (), []).
std::vector<std::string_view> tokenize(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  auto flush = [&](std::size_t end) {
    auto t = trim(s.substr(start, end - start));
    if (!t.empty()) out.push_back(t);
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') --depth;
    else if (depth == 0 && (c == ',' || c == ' ' || c == '\t')) {
      flush(i);
      start = i + 1;
    }
  }
  flush(s.size());
  return out;
}

bool parse_int(std::string_view t, std::int64_t& v) {
  bool neg = false;
  if (!t.empty() && t.front() == '-') {
    neg = true;
    t.remove_prefix(1);
  }
  if (t.empty()) return false;
  int base = 10;
  if (starts_with(t, "0x") || starts_with(t, "0X")) {
    base = 16;
    t.remove_prefix(2);
  }
  std::uint64_t u = 0;
  auto r = std::from_chars(t.data(), t.data() + t.size(), u, base);
  if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return false;
  v = neg ? -static_cast<std::int64_t>(u) : static_cast<std::int64_t>(u);
  return true;
}

// s_waitcnt's vmcnt: "vmcnt(N)" (absent: 63, no wait), or a raw simm16 whose vmcnt is bits 3:0 and
// 15:14 on gfx9 (LLVM AMDGPUBaseInfo, getVmcntBitShiftLo/Hi for gfx9).
bool parse_vmcnt(const std::vector<std::string_view>& tokens, std::int32_t& vmcnt) {
  vmcnt = 63;
  for (auto t : tokens) {
    std::int64_t v = 0;
    if (starts_with(t, "vmcnt(") && t.back() == ')') {
      if (!parse_int(t.substr(6, t.size() - 7), v) || v < 0 || v > 63) return false;
      vmcnt = static_cast<std::int32_t>(v);
    } else if (parse_int(t, v)) {
      vmcnt = static_cast<std::int32_t>((v & 0xf) | ((v >> 14) & 3) << 4);
    } else if (!starts_with(t, "lgkmcnt(") && !starts_with(t, "expcnt(")) {
      return false;
    }
  }
  return true;
}

// [a,b,c] -> bit i set if element i is nonzero.
bool parse_bits(std::string_view t, std::uint8_t& bits) {
  if (t.size() < 2 || t.front() != '[' || t.back() != ']') return false;
  t = t.substr(1, t.size() - 2);
  bits = 0;
  int i = 0;
  while (!t.empty()) {
    auto comma = t.find(',');
    auto e = t.substr(0, comma);
    std::int64_t v;
    if (!parse_int(trim(e), v)) return false;
    if (v) bits = static_cast<std::uint8_t>(bits | (1u << i));
    ++i;
    if (comma == std::string_view::npos) break;
    t.remove_prefix(comma + 1);
  }
  return true;
}

std::uint16_t f16_bits_of_inline(double f) {
  if (f == 0.5) return 0x3800;
  if (f == -0.5) return 0xb800;
  if (f == 1.0) return 0x3c00;
  if (f == -1.0) return 0xbc00;
  if (f == 2.0) return 0x4000;
  if (f == -2.0) return 0xc000;
  if (f == 4.0) return 0x4400;
  if (f == -4.0) return 0xc400;
  return 0x3118;  // 1/(2*pi)
}

bool is_signed64_op(std::string_view m) { return m.find("i64") != std::string_view::npos; }

struct Ctx {
  std::uint32_t accum_offset;
  std::uint32_t allocated;
  Opcode op;
  std::string_view mnemonic;
  std::string reason;
  int operand = 0;  // index of the operand being parsed (0 = the first, usually vdst)
};

bool named_sreg(std::string_view t, Operand& o) {
  struct N {
    std::string_view name;
    std::uint16_t reg;
    std::uint8_t width;
  };
  static constexpr N names[] = {
      {"vcc", kVccLo, 2},         {"vcc_lo", kVccLo, 1},
      {"vcc_hi", kVccHi, 1},      {"exec", kExecLo, 2},
      {"exec_lo", kExecLo, 1},    {"exec_hi", kExecHi, 1},
      {"m0", kM0, 1},             {"flat_scratch", kFlatScratchLo, 2},
      {"flat_scratch_lo", kFlatScratchLo, 1}, {"flat_scratch_hi", kFlatScratchHi, 1},
      {"xnack_mask", kXnackMaskLo, 2}, {"xnack_mask_lo", kXnackMaskLo, 1},
      {"xnack_mask_hi", kXnackMaskHi, 1},
  };
  for (const auto& n : names) {
    if (t == n.name) {
      o.kind = OperandKind::Sreg;
      o.reg = n.reg;
      o.width = n.width;
      return true;
    }
  }
  return false;
}

// "v12", "v[4:7]", "s3", "s[0:1]", "a0", "ttmp[0:1]".
bool reg_range(std::string_view t, std::string_view prefix, std::uint32_t& first,
               std::uint32_t& count) {
  if (!starts_with(t, prefix)) return false;
  t.remove_prefix(prefix.size());
  if (t.empty()) return false;
  std::int64_t a, b;
  if (t.front() == '[') {
    if (t.back() != ']') return false;
    t = t.substr(1, t.size() - 2);
    auto colon = t.find(':');
    if (colon == std::string_view::npos) {
      if (!parse_int(t, a)) return false;
      b = a;
    } else if (!parse_int(t.substr(0, colon), a) || !parse_int(t.substr(colon + 1), b)) {
      return false;
    }
  } else {
    if (!(t.front() >= '0' && t.front() <= '9') || !parse_int(t, a)) return false;
    b = a;
  }
  if (a < 0 || b < a || b > 1023) return false;
  first = static_cast<std::uint32_t>(a);
  count = static_cast<std::uint32_t>(b - a + 1);
  return true;
}

bool parse_operand(std::string_view t, Ctx& c, Operand& o) {
  // Input modifiers: -x, |x|, -|x|, sext(x), neg(x), abs(x).
  if (starts_with(t, "sext(") && t.back() == ')') {
    o.sext = true;
    t = t.substr(5, t.size() - 6);
  }
  bool leading_minus = false;
  if (t.size() > 1 && t.front() == '-' && !(t[1] >= '0' && t[1] <= '9')) {
    leading_minus = true;
    t.remove_prefix(1);
  }
  if (t.size() >= 2 && t.front() == '|' && t.back() == '|') {
    o.abs = true;
    t = t.substr(1, t.size() - 2);
  }
  if (leading_minus) {
    if (t == "inf" || t == "nan") return c.reason = "operand '-" + std::string(t) + "'", false;
    o.neg = true;
  }

  std::uint32_t first, count;
  if (reg_range(t, "v", first, count) || reg_range(t, "a", first, count)) {
    bool agpr = t.front() == 'a';
    o.kind = OperandKind::Vreg;
    o.agpr = agpr;
    o.width = static_cast<std::uint8_t>(count);
    // One unified file (simulator/README.md "Unified VGPR file"): a[n] is row ACCUM_OFFSET + n,
    // v[n] is row n, so v[n] for n >= ACCUM_OFFSET names the same row as a[n - ACCUM_OFFSET].
    std::uint32_t row = agpr ? c.accum_offset + first : first;
    if (row + count > c.allocated || row + count > kVgprFileRows) {
      c.reason = "register " + std::string(t) + " lies outside the " + std::to_string(c.allocated) +
                 " vector registers the kernel descriptor allocates";
      return false;
    }
    o.reg = static_cast<std::uint16_t>(row);
    return true;
  }
  if (reg_range(t, "s", first, count)) {
    if (first + count > kSgprCount) {
      c.reason = "register " + std::string(t) + " is beyond s101";
      return false;
    }
    o.kind = OperandKind::Sreg;
    o.reg = static_cast<std::uint16_t>(first);
    o.width = static_cast<std::uint8_t>(count);
    return true;
  }
  if (reg_range(t, "ttmp", first, count)) {
    if (first + count > 16) return c.reason = "register " + std::string(t), false;
    o.kind = OperandKind::Sreg;
    o.reg = static_cast<std::uint16_t>(kTtmp0 + first);
    o.width = static_cast<std::uint8_t>(count);
    return true;
  }
  if (named_sreg(t, o)) return true;
  if (t == "off") {
    o.kind = OperandKind::Off;
    return true;
  }
  if (t == "src_scc" || t == "scc") return o.kind = OperandKind::Scc, true;
  if (t == "src_vccz" || t == "vccz") return o.kind = OperandKind::Vccz, true;
  if (t == "src_execz" || t == "execz") return o.kind = OperandKind::Execz, true;
  auto aperture = [&](std::uint64_t v) {
    o.kind = OperandKind::Const;
    o.k32 = static_cast<std::uint32_t>(v);
    o.k64 = v;
    return true;
  };
  // Apertures: *_base returns the high half of the aperture base (as a 32-bit source) or the
  // full 64-bit base; *_limit the last byte of the 4 GiB aperture.
  if (t == "src_shared_base") return aperture(kSharedAperture) , o.k32 = static_cast<std::uint32_t>(kSharedAperture >> 32), true;
  if (t == "src_private_base") return aperture(kPrivateAperture), o.k32 = static_cast<std::uint32_t>(kPrivateAperture >> 32), true;
  if (t == "src_shared_limit") return aperture(kSharedAperture + 0xffffffffull), o.k32 = static_cast<std::uint32_t>((kSharedAperture + 0xffffffffull) >> 32), true;
  if (t == "src_private_limit") return aperture(kPrivateAperture + 0xffffffffull), o.k32 = static_cast<std::uint32_t>((kPrivateAperture + 0xffffffffull) >> 32), true;

  // Constants. The type is per opcode, except v_dot2_f32_f16's src2, the f32 accumulator
  // (ISA guide V_DOT2_F32_F16: D = A.f16[0]*B.f16[0] + A.f16[1]*B.f16[1] + C.f32).
  SrcType type = src_type(c.op);
  if (c.op == Opcode::v_dot2_f32_f16 && c.operand == 3) type = SrcType::F;
  std::int64_t iv;
  if (starts_with(t, "0x") || starts_with(t, "-0x")) {
    if (!parse_int(t, iv)) return c.reason = "literal '" + std::string(t) + "'", false;
    o.kind = OperandKind::Const;
    o.k32 = static_cast<std::uint32_t>(iv);
    if (type == SrcType::D) {
      o.k64 = std::uint64_t{o.k32} << 32;  // a 32-bit literal is the high half of an f64
    } else if (is_signed64_op(c.mnemonic)) {
      o.k64 = static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(o.k32)));
    } else {
      // 64-bit unsigned/bitwise operands zero-extend a 32-bit literal (LLVM's model,
      // SIInstrInfo::isOperandLegal); signed (i64) operands sign-extend.
      o.k64 = o.k32;
    }
    return true;
  }
  if (!t.empty() && ((t.front() >= '0' && t.front() <= '9') || t.front() == '-')) {
    if (t.find('.') != std::string_view::npos || t.find('e') != std::string_view::npos) {
      std::string s(t);
      char* end = nullptr;
      double f = std::strtod(s.c_str(), &end);
      if (end != s.c_str() + s.size()) return c.reason = "constant '" + s + "'", false;
      bool inv2pi = std::fabs(f - 0.15915494309189535) < 1e-6;
      bool ok = inv2pi || f == 0.5 || f == -0.5 || f == 1.0 || f == -1.0 || f == 2.0 ||
                f == -2.0 || f == 4.0 || f == -4.0;
      if (!ok) return c.reason = "float constant '" + s + "' is not an inline constant", false;
      o.kind = OperandKind::Const;
      if (type == SrcType::H) {
        o.k32 = f16_bits_of_inline(inv2pi ? 0.15915494309189535 : f);
      } else {
        o.k32 = inv2pi ? 0x3e22f983u : fbits(static_cast<float>(f));
      }
      o.k64 = inv2pi ? 0x3fc45f306dc9c882ull : dbits(f);
      return true;
    }
    if (!parse_int(t, iv)) return c.reason = "constant '" + std::string(t) + "'", false;
    o.kind = OperandKind::Const;
    o.k32 = static_cast<std::uint32_t>(iv);
    o.k64 = static_cast<std::uint64_t>(iv);
    return true;
  }
  c.reason = "operand '" + std::string(t) + "' not understood";
  return false;
}

bool is_flag(std::string_view t) {
  static const std::set<std::string_view> flags = {
      "sc0", "sc1", "nt", "glc", "slc", "dlc", "offen", "idxen", "lds", "clamp",
      "row_mirror", "row_half_mirror", "gds", "tfe", "lwe", "addr64"};
  return flags.count(t) != 0;
}

bool is_modifier(std::string_view t) {
  if (is_flag(t)) return true;
  int depth = 0;
  for (char ch : t) {
    if (ch == '(' || ch == '[') ++depth;
    else if (ch == ')' || ch == ']') --depth;
    else if (ch == ':' && depth == 0) return true;
  }
  return false;
}

int sdwa_sel(std::string_view v) {
  static const std::map<std::string_view, int> m = {
      {"BYTE_0", 0}, {"BYTE_1", 1}, {"BYTE_2", 2}, {"BYTE_3", 3},
      {"WORD_0", 4}, {"WORD_1", 5}, {"DWORD", 6}};
  auto it = m.find(v);
  return it == m.end() ? -1 : it->second;
}

// The ds_swizzle_b32 offset as LLVM prints it, "swizzle(MODE,...)", back to the 16-bit offset
// (LLVM AMDGPUUsage / AMDGPUAsmParser swizzle macros): QUAD_PERM,a,b,c,d -> 0x8000 | a | b<<2 |
// c<<4 | d<<6; otherwise bit mode and_mask[4:0] | or_mask[9:5] | xor_mask[14:10]:
// BITMASK_PERM,"s4s3s2s1s0" (per bit, MSB first: 0, 1, p preserve, i invert), SWAP,n (xor n),
// REVERSE,n (xor n-1), BROADCAST,n,lane (and ~(n-1), or lane). False if not understood.
bool parse_swizzle(std::string_view v, std::int64_t& out) {
  if (!starts_with(v, "swizzle(") || v.back() != ')') return false;
  v = v.substr(8, v.size() - 9);
  std::vector<std::string_view> f;
  for (std::size_t start = 0;;) {
    const std::size_t comma = v.find(',', start);
    f.push_back(trim(v.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::vector<std::int64_t> n(f.size(), 0);
  for (std::size_t i = 1; i < f.size(); ++i)
    if (f[0] != "BITMASK_PERM" && !parse_int(f[i], n[i])) return false;
  auto bits = [&](std::int64_t and_mask, std::int64_t or_mask, std::int64_t xor_mask) {
    out = (and_mask & 0x1f) | ((or_mask & 0x1f) << 5) | ((xor_mask & 0x1f) << 10);
    return true;
  };
  if (f[0] == "QUAD_PERM" && f.size() == 5) {
    out = 0x8000 | (n[1] & 3) | ((n[2] & 3) << 2) | ((n[3] & 3) << 4) | ((n[4] & 3) << 6);
    return true;
  }
  if (f[0] == "SWAP" && f.size() == 2) return bits(0x1f, 0, n[1]);
  if (f[0] == "REVERSE" && f.size() == 2) return bits(0x1f, 0, n[1] - 1);
  if (f[0] == "BROADCAST" && f.size() == 3) return bits(0x1f & ~(n[1] - 1), n[2], 0);
  if (f[0] == "BITMASK_PERM" && f.size() == 2 && f[1].size() == 7 && f[1].front() == '"') {
    std::int64_t a = 0, o = 0, x = 0;
    for (int b = 0; b < 5; ++b) {
      const char ch = f[1][static_cast<std::size_t>(1 + b)];
      const std::int64_t bit = std::int64_t{1} << (4 - b);
      if (ch == '1') o |= bit;
      else if (ch == 'p') a |= bit;
      else if (ch == 'i') a |= bit, x |= bit;
      else if (ch != '0') return false;
    }
    return bits(a, o, x);
  }
  return false;
}

// MTBUF "format:[BUF_DATA_FORMAT_x,BUF_NUM_FORMAT_y]" (either part may be absent: defaults 8
// and UNORM) or "format:N", as LLVM's AMDGPUInstPrinter prints gfx9 formats, to dfmt | nfmt << 4.
bool parse_buf_format(std::string_view v, std::uint8_t& out) {
  static const char* const dfmt[] = {"INVALID", "8", "16", "8_8", "32", "16_16", "10_11_11",
                                     "11_11_10", "10_10_10_2", "2_10_10_10", "8_8_8_8", "32_32",
                                     "16_16_16_16", "32_32_32", "32_32_32_32", "RESERVED_15"};
  static const char* const nfmt[] = {"UNORM", "SNORM", "USCALED", "SSCALED",
                                     "UINT", "SINT", "RESERVED_6", "FLOAT"};
  std::int64_t n = 0;
  if (parse_int(v, n)) return n >= 0 && n < 128 && (out = static_cast<std::uint8_t>(n), true);
  if (v.size() < 2 || v.front() != '[' || v.back() != ']') return false;
  unsigned d = 1, f = 0;
  for (auto part : tokenize(v.substr(1, v.size() - 2))) {
    bool known = false;
    for (unsigned i = 0; i < 16 && !known; ++i)
      if (part == std::string("BUF_DATA_FORMAT_") + dfmt[i]) d = i, known = true;
    for (unsigned i = 0; i < 8 && !known; ++i)
      if (part == std::string("BUF_NUM_FORMAT_") + nfmt[i]) f = i, known = true;
    if (!known) return false;
  }
  out = static_cast<std::uint8_t>(d | f << 4);
  return true;
}

bool parse_modifier(std::string_view t, Inst& I, Ctx& c) {
  auto colon = t.find(':');
  std::string_view key = t.substr(0, colon);
  std::string_view val = colon == std::string_view::npos ? std::string_view{} : t.substr(colon + 1);
  std::int64_t v = 0;
  auto num = [&]() {
    if (!parse_int(val, v)) {
      c.reason = "modifier '" + std::string(t) + "' not understood";
      return false;
    }
    return true;
  };
  if (key == "sc0" || key == "glc") return I.sc0 = true, true;
  if (key == "sc1" || key == "slc") return I.sc1 = true, true;
  if (key == "nt") return I.nt = true, true;
  if (key == "offen") return I.offen = true, true;
  if (key == "idxen") return I.idxen = true, true;
  if (key == "lds") return I.lds = true, true;
  if (key == "clamp") return I.clamp = true, true;
  if (key == "offset" && starts_with(val, "swizzle(")) {
    if (!parse_swizzle(val, v)) return c.reason = "modifier '" + std::string(t) + "' not understood", false;
    I.offset = static_cast<std::int32_t>(v);
    return true;
  }
  if (key == "offset") return num() && (I.offset = static_cast<std::int32_t>(v), true);
  if (key == "format")
    return parse_buf_format(val, I.format) || (c.reason = "modifier '" + std::string(t) + "' not understood", false);
  if (key == "offset0") return num() && (I.offset0 = static_cast<std::uint8_t>(v), true);
  if (key == "offset1") return num() && (I.offset1 = static_cast<std::uint8_t>(v), true);
  if (key == "mul") {
    if (!num()) return false;
    if (v == 2) return I.omod = 1, true;
    if (v == 4) return I.omod = 2, true;
  }
  if (key == "div" && num() && v == 2) return I.omod = 3, true;
  if (key == "op_sel") return parse_bits(val, I.op_sel) || (c.reason = "op_sel", false);
  if (key == "op_sel_hi") {
    I.op_sel_hi_given = true;
    return parse_bits(val, I.op_sel_hi) || (c.reason = "op_sel_hi", false);
  }
  if (key == "neg_lo" || key == "neg") return parse_bits(val, I.neg_lo) || (c.reason = "neg_lo", false);
  if (key == "neg_hi") return parse_bits(val, I.neg_hi) || (c.reason = "neg_hi", false);
  if (key == "dst_sel" || key == "src0_sel" || key == "src1_sel") {
    int s = sdwa_sel(val);
    if (s < 0) return c.reason = "SDWA select '" + std::string(val) + "'", false;
    (key == "dst_sel" ? I.dst_sel : key == "src0_sel" ? I.src0_sel : I.src1_sel) =
        static_cast<std::uint8_t>(s);
    return true;
  }
  if (key == "dst_unused") {
    if (val == "UNUSED_PAD") return I.dst_unused = 0, true;
    if (val == "UNUSED_SEXT") return I.dst_unused = 1, true;
    if (val == "UNUSED_PRESERVE") return I.dst_unused = 2, true;
    return c.reason = "dst_unused '" + std::string(val) + "'", false;
  }
  if (key == "quad_perm") {
    // [a,b,c,d] -> a | b<<2 | c<<4 | d<<6
    if (val.size() < 2) return c.reason = "quad_perm", false;
    auto inner = val.substr(1, val.size() - 2);
    int sh = 0, ctrl = 0;
    while (!inner.empty()) {
      auto comma = inner.find(',');
      std::int64_t e;
      if (!parse_int(trim(inner.substr(0, comma)), e) || e < 0 || e > 3)
        return c.reason = "quad_perm", false;
      ctrl |= static_cast<int>(e) << sh;
      sh += 2;
      if (comma == std::string_view::npos) break;
      inner.remove_prefix(comma + 1);
    }
    I.dpp_ctrl = static_cast<std::uint16_t>(ctrl);
    return true;
  }
  struct D {
    std::string_view key;
    int base;
  };
  static constexpr D dpp[] = {{"row_shl", 0x100}, {"row_shr", 0x110}, {"row_ror", 0x120}};
  for (const auto& d : dpp) {
    if (key == d.key) {
      if (!num() || v < 1 || v > 15) return c.reason = "DPP " + std::string(t), false;
      I.dpp_ctrl = static_cast<std::uint16_t>(d.base + v);
      return true;
    }
  }
  if (key == "wave_shl") return I.dpp_ctrl = 0x130, true;
  if (key == "wave_rol") return I.dpp_ctrl = 0x134, true;
  if (key == "wave_shr") return I.dpp_ctrl = 0x138, true;
  if (key == "wave_ror") return I.dpp_ctrl = 0x13c, true;
  if (key == "row_mirror") return I.dpp_ctrl = 0x140, true;
  if (key == "row_half_mirror") return I.dpp_ctrl = 0x141, true;
  if (key == "row_bcast") {
    if (!num() || (v != 15 && v != 31)) return c.reason = "row_bcast", false;
    I.dpp_ctrl = v == 15 ? 0x142 : 0x143;
    return true;
  }
  if (key == "row_newbcast") {  // gfx90a+: lane n of each row to the whole row (0x150 + n)
    if (!num() || v < 0 || v > 15) return c.reason = "row_newbcast", false;
    I.dpp_ctrl = static_cast<std::uint16_t>(0x150 + v);
    return true;
  }
  if (key == "row_mask") return num() && (I.row_mask = static_cast<std::uint8_t>(v & 0xf), true);
  if (key == "bank_mask") return num() && (I.bank_mask = static_cast<std::uint8_t>(v & 0xf), true);
  if (key == "bound_ctrl") return num() && (I.bound_ctrl = (v != 0), true);
  if (key == "cbsz") return num() && (I.cbsz = static_cast<std::uint8_t>(v), true);
  if (key == "abid") return num() && (I.abid = static_cast<std::uint8_t>(v), true);
  if (key == "blgp") return num() && (I.blgp = static_cast<std::uint8_t>(v), true);
  c.reason = "modifier '" + std::string(t) + "' not supported";
  return false;
}

// hwreg(HW_REG_MODE, 0, 4) / hwreg(HW_REG_MODE) / hwreg(1, 2, 3) -> id | offset<<6 | (size-1)<<11
bool parse_hwreg(std::string_view t, std::int32_t& simm) {
  if (!starts_with(t, "hwreg(") || t.back() != ')') return false;
  auto inner = t.substr(6, t.size() - 7);
  std::vector<std::string_view> parts;
  while (true) {
    auto comma = inner.find(',');
    parts.push_back(trim(inner.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    inner.remove_prefix(comma + 1);
  }
  static const std::map<std::string_view, int> ids = {
      {"HW_REG_MODE", 1},   {"HW_REG_STATUS", 2},   {"HW_REG_TRAPSTS", 3},
      {"HW_REG_HW_ID", 4},  {"HW_REG_GPR_ALLOC", 5}, {"HW_REG_LDS_ALLOC", 6},
      {"HW_REG_IB_STS", 7}, {"HW_REG_SH_MEM_BASES", 15}, {"HW_REG_XCC_ID", 20}};
  std::int64_t id, off = 0, size = 32;
  auto it = ids.find(parts[0]);
  if (it != ids.end()) id = it->second;
  else if (!parse_int(parts[0], id)) return false;
  if (parts.size() == 3) {
    if (!parse_int(parts[1], off) || !parse_int(parts[2], size)) return false;
  } else if (parts.size() != 1) {
    return false;
  }
  if (size < 1 || size > 32 || off < 0 || off > 31) return false;
  simm = static_cast<std::int32_t>(id | (off << 6) | ((size - 1) << 11));
  return true;
}

// gpr_idx(SRC0,SRC1,SRC2,DST) (any subset, any order) -> bits 0..3 (LLVM AMDGPU docs, imask).
bool parse_gpr_idx(std::string_view t, std::int32_t& simm) {
  if (!starts_with(t, "gpr_idx(") || t.back() != ')') return false;
  std::string_view inner = t.substr(8, t.size() - 9);
  simm = 0;
  while (!inner.empty()) {
    const auto comma = inner.find(',');
    const std::string_view name = trim(inner.substr(0, comma));
    if (name == "SRC0") simm |= 1;
    else if (name == "SRC1") simm |= 2;
    else if (name == "SRC2") simm |= 4;
    else if (name == "DST") simm |= 8;
    else return false;
    if (comma == std::string_view::npos) break;
    inner.remove_prefix(comma + 1);
  }
  return true;
}

bool has_carry_out(Opcode op) {
  switch (op) {
    case Opcode::v_add_co_u32: case Opcode::v_sub_co_u32: case Opcode::v_subrev_co_u32:
    case Opcode::v_addc_co_u32: case Opcode::v_subb_co_u32: case Opcode::v_subbrev_co_u32:
    case Opcode::v_div_scale_f32: case Opcode::v_div_scale_f64: case Opcode::v_mad_u64_u32: case Opcode::v_mad_i64_i32:
      return true;
    default:
      return false;
  }
}

// VOP1/VOP2 opcodes of exec/valu_three.cpp whose SDWA and DPP forms are not modelled (16-bit
// results, accumulators in the destination): refused at decode.
bool no_sdwa_dpp(Opcode op) {
  switch (op) {
    case Opcode::v_mac_f16: case Opcode::v_subrev_u16: case Opcode::v_dot2c_i32_i16:
    case Opcode::v_dot4c_i32_i8: case Opcode::v_dot8c_i32_i4: case Opcode::v_pk_fmac_f16:
    case Opcode::v_cvt_norm_i16_f16: case Opcode::v_cvt_norm_u16_f16: case Opcode::v_cvt_off_f32_i4:
    case Opcode::v_sat_pk_u8_i16:
      return true;
    default:
      return false;
  }
}

bool is_branch(Opcode op) {
  switch (op) {
    case Opcode::s_branch: case Opcode::s_cbranch_scc0: case Opcode::s_cbranch_scc1:
    case Opcode::s_cbranch_vccz: case Opcode::s_cbranch_vccnz: case Opcode::s_cbranch_execz:
    case Opcode::s_cbranch_execnz:
      return true;
    default:
      return false;
  }
}

// CBSZ/ABID/BLGP of the matrix instructions: the values with a defined meaning (AMD Matrix
// Instruction Calculator README, "Modifying the Queried Matrix" and the CDNA3 examples): dense
// MFMA of B blocks: CBSZ 0..log2(B), ABID 0..2^CBSZ-1, BLGP 0..7; f64 MFMA: no CBSZ/ABID, the
// BLGP field is neg:[A,B,C] (LLVM spells it neg, parsed into neg_lo); v_smfmac: CBSZ any, ABID
// selects one of the 4 (16-bit inputs) or 2 (8-bit inputs) index segments when CBSZ = 0 and is
// ignored otherwise, no BLGP. Empty if the instruction's modifiers are valid.
std::string check_mai_modifiers(std::string_view m, const Inst& I) {
  const bool sparse = starts_with(m, "v_smfmac_");
  if (!sparse && !starts_with(m, "v_mfma_")) {
    if (I.cbsz || I.abid || I.blgp) return "cbsz/abid/blgp apply only to matrix instructions";
    return {};
  }
  const std::string mods = "cbsz:" + std::to_string(I.cbsz) + " abid:" + std::to_string(I.abid) +
                           " blgp:" + std::to_string(I.blgp);
  if (sparse) {
    const int segments = ends_with(m, "8") ? 2 : 4;
    if (I.blgp) return "v_smfmac has no blgp field (" + mods + ")";
    if (I.cbsz == 0 && I.abid >= segments)
      return "v_smfmac abid:" + std::to_string(I.abid) + " selects no index segment (this type has " +
             std::to_string(segments) + "); no defined behaviour";
    return {};
  }
  if (ends_with(m, "_f64")) {
    if (I.cbsz || I.abid || I.blgp)
      return "f64 MFMA with " + mods + ": no defined behaviour (only neg:[..] is)";
    return {};
  }
  const int blocks = m.find("_16b_") != std::string_view::npos  ? 16
                     : m.find("_4b_") != std::string_view::npos ? 4
                     : m.find("_2b_") != std::string_view::npos ? 2
                                                                 : 1;
  if ((1 << I.cbsz) > blocks || I.abid >= (1 << I.cbsz))
    return "MFMA " + mods + " on an instruction of " + std::to_string(blocks) +
           " block(s): cbsz must be 0..log2(blocks) and abid below 2^cbsz; no defined behaviour";
  return {};
}

// A DS instruction (encoding bits 31:26 = 0b110110) with the GDS bit (16) set. LLVM's gfx942
// disassembler prints such words without "gds" (gfx942 has no GDS for its assembler), so the
// bit is checked on the machine word. Encoding: CDNA3 ISA guide, "DS" microcode format.
bool is_ds_gds(std::uint32_t word0) { return (word0 >> 26) == 0x36u && ((word0 >> 16) & 1u); }

}  // namespace

void exec_unsupported(Wave& w, const Inst& I);
void exec_sdwa(Wave& w, const Inst& I);
void exec_dpp(Wave& w, const Inst& I);

std::string parse_instruction(std::string_view text, std::uint64_t address,
                              std::uint32_t accum_offset, std::uint32_t allocated_vgprs,
                              Inst& I) {
  I = Inst{};
  I.address = address;
  I.fn = &exec_unsupported;
  text = trim(text);
  // LLVM prints a note where the bits hold no valid value ("/* Invalid dpp_ctrl value */").
  if (const auto note = text.find("/*"); note != std::string_view::npos) {
    const auto end = text.find("*/", note);
    return "LLVM's disassembler marks a field of this instruction invalid: '" +
           std::string(trim(text.substr(note + 2, end == std::string_view::npos ? std::string_view::npos : end - note - 2))) +
           "'";
  }
  auto sp = text.find_first_of(" \t");
  std::string_view mnem = text.substr(0, sp);
  std::string_view rest = sp == std::string_view::npos ? std::string_view{} : text.substr(sp + 1);
  std::string_view base = mnem;
  if (ends_with(base, "_e32")) I.enc = Encoding::E32, base.remove_suffix(4);
  else if (ends_with(base, "_e64")) I.enc = Encoding::E64, base.remove_suffix(4);
  else if (ends_with(base, "_sdwa")) I.enc = Encoding::Sdwa, base.remove_suffix(5);
  else if (ends_with(base, "_dpp")) I.enc = Encoding::Dpp, base.remove_suffix(4);

  Opcode op = opcode_from_mnemonic(base);
  Handler h = op == Opcode::kUnsupported ? nullptr : handler_table()[static_cast<std::size_t>(op)];
  if (!h) {
    const std::string_view why = unsupported_reason(base);
    return why.empty() ? "instruction not implemented by the simulator"
                       : "instruction not implemented by the simulator: " + std::string(why);
  }
  Ctx c{accum_offset, allocated_vgprs, op, base, {}};

  auto tokens = tokenize(rest);
  const bool is_waitcnt = op == Opcode::s_waitcnt;
  // Of s_waitcnt only vmcnt matters (the memory-model mode's pending stores, exec/scalar.cpp).
  if (is_waitcnt && !parse_vmcnt(tokens, I.simm)) return "s_waitcnt operand '" + std::string(rest) + "' not understood";
  for (auto t : tokens) {
    if (is_waitcnt) continue;
    if (starts_with(t, "hwreg(")) {
      if (!parse_hwreg(t, I.simm)) return "hwreg operand '" + std::string(t) + "' not understood";
      continue;
    }
    if (starts_with(t, "gpr_idx(")) {
      if (!parse_gpr_idx(t, I.simm)) return "gpr_idx operand '" + std::string(t) + "' not understood";
      continue;
    }
    if (is_modifier(t)) {
      if (!parse_modifier(t, I, c)) return c.reason;
      continue;
    }
    if (I.nops == kMaxOperands) return "too many operands";
    c.operand = I.nops;
    if (!parse_operand(t, c, I.ops[I.nops])) return c.reason;
    ++I.nops;
  }
  I.op = op;
  I.src0 = has_carry_out(op) ? 2 : 1;

  // Immediates of SOPP / SOPK instructions.
  if (is_branch(op)) {
    if (I.nops != 1 || I.ops[0].kind != OperandKind::Const) return "branch offset missing";
    auto simm16 = static_cast<std::int16_t>(static_cast<std::uint16_t>(I.ops[0].k32));
    I.simm = simm16;
  } else if (op == Opcode::s_nop || op == Opcode::s_sleep || op == Opcode::s_setprio ||
             op == Opcode::s_trap) {
    I.simm = I.nops ? static_cast<std::int32_t>(I.ops[0].k32) : 0;
  } else if (op == Opcode::s_call_b64 || op == Opcode::s_cbranch_i_fork) {
    if (I.nops != 2 || I.ops[1].kind != OperandKind::Const) return "branch offset missing";
    I.simm = static_cast<std::int16_t>(static_cast<std::uint16_t>(I.ops[1].k32));
  } else if (op == Opcode::s_set_gpr_idx_mode && I.nops == 1) {
    if (I.ops[0].kind != OperandKind::Const) return "s_set_gpr_idx_mode operand missing";
    I.simm = static_cast<std::int32_t>(I.ops[0].k32 & 0xf);
  } else if (op >= Opcode::s_movk_i32 && op <= Opcode::s_mulk_i32) {
    if (I.nops != 2 || I.ops[1].kind != OperandKind::Const) return "SOPK immediate missing";
    I.simm = static_cast<std::int16_t>(static_cast<std::uint16_t>(I.ops[1].k32));
  }

  // Modifiers the executors do not honour are refused here, not ignored.
  if (auto why = check_mai_modifiers(base, I); !why.empty()) return why;
  if ((I.enc == Encoding::Sdwa || I.enc == Encoding::Dpp) && no_sdwa_dpp(op))
    return "SDWA/DPP form of " + std::string(base) + " is not supported";
  if (I.enc == Encoding::Sdwa) {
    if (h == nullptr) return "SDWA form not supported";
    I.fn = &exec_sdwa;
  } else if (I.enc == Encoding::Dpp) {
    I.fn = &exec_dpp;
  } else {
    I.fn = h;
  }
  return {};
}

// ---- LLVM disassembler

Disassembler::Disassembler() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
  });
  ctx_ = LLVMCreateDisasmCPU("amdgcn-amd-amdhsa", "gfx942", nullptr, 0, nullptr, nullptr);
  if (!ctx_)
    throw std::runtime_error(
        "simulator: LLVM's AMDGPU disassembler for gfx942 is unavailable; expected libLLVM-19 "
        "built with the AMDGPU target");
}

Disassembler::~Disassembler() {
  if (ctx_) LLVMDisasmDispose(static_cast<LLVMDisasmContextRef>(ctx_));
}

namespace {

// LLVM 19's AMDGPU instruction printer crashes (a read out of bounds, SIGSEGV) on an SDWA form of
// VOP1, VOP2 or VOPC whose dst_sel, src0_sel or src1_sel field holds 7, which names no operand
// select (SdwaSel is BYTE_0..WORD_1, DWORD = 0..6; SIInstrInfo.td / SIDefines.h): found by the
// decoder fuzzer, reproduced with llvm-mc-19 --disassemble on f9 54 28 27 00 07 06 06. Such a word
// is no instruction, so it is refused before LLVM sees it. Fields (CDNA3 ISA guide, SDWA): dword 1
// bits 10:8 dst_sel (not in VOPC, where 14:8 is SDST), 18:16 src0_sel, 26:24 src1_sel.
bool sdwa_with_invalid_select(const std::uint8_t* bytes, std::size_t available) {
  if (available < 8) return false;
  auto dword = [&](std::size_t at) {
    return static_cast<std::uint32_t>(bytes[at]) | static_cast<std::uint32_t>(bytes[at + 1]) << 8 |
           static_cast<std::uint32_t>(bytes[at + 2]) << 16 | static_cast<std::uint32_t>(bytes[at + 3]) << 24;
  };
  const std::uint32_t w = dword(0), sdwa = dword(4);
  constexpr std::uint32_t kSdwaSrc0 = 0xf9;
  if ((w & 0x1ff) != kSdwaSrc0) return false;
  const bool vopc = (w >> 25) == 0x3e, vop1 = (w >> 25) == 0x3f, vop2 = (w >> 31) == 0;
  if (!vopc && !vop1 && !vop2) return false;
  const bool dst_bad = !vopc && ((sdwa >> 8) & 7) == 7;
  const bool src0_bad = ((sdwa >> 16) & 7) == 7;
  const bool src1_bad = !vop1 && ((sdwa >> 24) & 7) == 7;
  return dst_bad || src0_bad || src1_bad;
}

}  // namespace

Disassembled Disassembler::at(const std::uint8_t* bytes, std::size_t available,
                              std::uint64_t address) {
  if (sdwa_with_invalid_select(bytes, available)) return Disassembled{};  // size 0: undecodable
  char buf[512];
  buf[0] = 0;
  std::size_t n = LLVMDisasmInstruction(static_cast<LLVMDisasmContextRef>(ctx_),
                                        const_cast<std::uint8_t*>(bytes), available, address,
                                        buf, sizeof buf);
  Disassembled d;
  d.size = static_cast<std::uint32_t>(n);
  d.text = std::string(trim(buf));
  return d;
}

DecodedInstruction decode_instruction(Disassembler& dis, const CodeSection* sec, std::uint64_t a,
                                      std::uint32_t accum, std::uint32_t allocated) {
  DecodedInstruction d;
  std::uint32_t word0 = 0;
  if (sec) {
    std::size_t off = a - sec->address;
    auto r = dis.at(sec->bytes.data() + off, sec->bytes.size() - off, a);
    d.size = r.size;
    d.text = r.text;
    if (r.size >= 4) std::memcpy(&word0, sec->bytes.data() + off, 4);
  }
  if (d.size == 0) {
    d.text = sec ? "<bytes that do not decode as a gfx942 instruction>" : "<address outside the code>";
    d.reason = sec ? "undecodable instruction" : "control reaches an address outside the code";
    d.inst = Inst{};
    d.inst.address = a;
    d.inst.fn = &exec_unsupported;
    return d;
  }
  d.reason = parse_instruction(d.text, a, accum, allocated, d.inst);
  if (d.reason.empty() && is_ds_gds(word0))
    d.reason = "GDS access (the DS gds bit) is not supported: the simulator models LDS only";
  if (!d.reason.empty()) {
    d.inst.op = Opcode::kUnsupported;
    d.inst.fn = &exec_unsupported;
  }
  return d;
}

std::shared_ptr<const Program> decode_kernel(const CodeObject& co, const KernelInfo& k) {
  auto prog = std::make_shared<Program>();
  prog->kernel = k.name;
  prog->code_object = co.label();
  // With kernel arguments preloaded into SGPRs, firmware that supports preloading starts the
  // wave 256 bytes into the code; the first 256 bytes are a fallback for firmware that does
  // not (AMDGPUUsage "Preloaded Kernel Arguments").
  const std::uint64_t start = k.entry_address + (k.descriptor.kernarg_preload_length() ? 256 : 0);
  prog->entry_address = start;
  prog->code_entry = k.entry_address;
  const std::uint32_t accum = k.descriptor.accum_offset();
  const std::uint32_t allocated = k.descriptor.allocated_vgprs();

  Disassembler dis;
  using Decoded = DecodedInstruction;
  std::map<std::uint64_t, Decoded> decoded;
  std::vector<std::uint64_t> work{start};
  constexpr std::size_t kMaxInstructions = 1u << 20;
  while (!work.empty()) {
    std::uint64_t a = work.back();
    work.pop_back();
    while (true) {
      if (decoded.count(a)) break;
      if (decoded.size() >= kMaxInstructions)
        throw std::runtime_error("code object '" + co.label() + "': kernel '" + k.name +
                                 "' has more than 2^20 reachable instructions; expected a kernel");
      Decoded d = decode_instruction(dis, co.section_at(a), a, accum, allocated);
      if (d.size == 0) {
        decoded.emplace(a, std::move(d));
        break;
      }
      Opcode op = d.inst.op;
      std::uint32_t size = d.size;
      bool stop = false;
      if (d.reason.empty() && (is_branch(op) || op == Opcode::s_call_b64 || op == Opcode::s_cbranch_i_fork)) {
        std::uint64_t target = a + 4 + static_cast<std::uint64_t>(static_cast<std::int64_t>(d.inst.simm) * 4);
        work.push_back(target);
        if (op == Opcode::s_branch) stop = true;
      }
      if (op == Opcode::s_endpgm || op == Opcode::s_setpc_b64 || op == Opcode::s_trap ||
          op == Opcode::kUnsupported)
        stop = true;
      decoded.emplace(a, std::move(d));
      if (stop) break;
      a += size;
    }
  }

  prog->insts.reserve(decoded.size());
  for (auto& [addr, d] : decoded) {
    prog->index_of.emplace(addr, static_cast<std::uint32_t>(prog->insts.size()));
    prog->insts.push_back(d.inst);
    prog->text.push_back(d.text);
    prog->reason.push_back(d.reason);
  }
  prog->entry_index = prog->index_of.at(start);
  prog->accum_offset = accum;
  prog->allocated_vgprs = allocated;
  prog->hazards.reserve(prog->insts.size());
  for (const Inst& I : prog->insts) prog->hazards.push_back(classify_hazards(I));
  for (std::size_t i = 0; i < prog->insts.size(); ++i) {
    Inst& I = prog->insts[i];
    if (prog->reason[i].empty() && (is_branch(I.op) || I.op == Opcode::s_call_b64 || I.op == Opcode::s_cbranch_i_fork)) {
      std::uint64_t target = I.address + 4 + static_cast<std::uint64_t>(static_cast<std::int64_t>(I.simm) * 4);
      I.target = prog->index_of.at(target);
    }
    // Derived instruction for the SDWA/DPP wrappers: sources (and the SDWA destination) in
    // scratch rows, run by the plain handler.
    if (I.fn == &exec_sdwa || I.fn == &exec_dpp) {
      Inst d = I;
      d.fn = handler_table()[static_cast<std::size_t>(I.op)];
      d.enc = Encoding::E32;
      int nsrc = std::min(2, static_cast<int>(I.nops) - static_cast<int>(I.src0));
      if (I.fn == &exec_dpp) nsrc = std::min(nsrc, 1);
      for (int s = 0; s < nsrc; ++s) {
        Operand& o = d.ops[I.src0 + s];
        o.kind = OperandKind::Vreg;
        o.reg = static_cast<std::uint16_t>(kScratchRow0 + s);
        o.width = 1;
        o.sext = false;
      }
      if (I.fn == &exec_sdwa && d.ops[0].kind == OperandKind::Vreg && I.op != Opcode::kUnsupported) {
        d.ops[0].reg = static_cast<std::uint16_t>(kScratchRow0 + 4);
      }
      I.aux = static_cast<std::uint32_t>(prog->aux.size());
      prog->aux.push_back(d);
    }
  }
  return prog;
}

}  // namespace cdna::simulator
