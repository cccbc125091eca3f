#include "audit/lint/isa_coverage.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "simulator/decode/decoder.hpp"

namespace cdna::audit {

namespace {

bool is_register_or_constant(std::string_view t) {
  if (t.empty()) return true;
  const char c = t[0];
  if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '[') return true;
  static const std::set<std::string_view, std::less<>> named = {
      "vcc", "vcc_lo", "vcc_hi", "exec", "exec_lo", "exec_hi", "m0", "scc", "off", "null", "flat_scratch",
      "flat_scratch_lo", "flat_scratch_hi", "xnack_mask", "xnack_mask_lo", "xnack_mask_hi", "src_scc",
      "src_vccz", "src_execz", "src_lds_direct", "lds_direct", "src_shared_base", "src_shared_limit",
      "src_private_base", "src_private_limit", "src_pops_exiting_wave_id", "vccz", "execz", "tba", "tma",
      "tba_lo", "tba_hi", "tma_lo", "tma_hi"};
  if (named.count(t)) return true;
  // v7, s[4:5], a[0:3], ttmp8, ttmp[4:7]
  for (std::string_view p : {"ttmp", "v", "s", "a"}) {
    if (!t.starts_with(p)) continue;
    const std::string_view rest = t.substr(p.size());
    if (!rest.empty() && (rest[0] == '[' || std::all_of(rest.begin(), rest.end(), [](char ch) {
                            return std::isdigit(static_cast<unsigned char>(ch)) != 0;
                          })))
      return true;
  }
  return false;
}

}  // namespace

std::string instruction_form(std::string_view full) {
  // LLVM's notes in the text ("/* Invalid dpp_ctrl value */") are not operands or modifiers.
  std::string stripped;
  for (std::size_t at = 0; at < full.size();) {
    const std::size_t open = full.find("/*", at);
    if (open == std::string_view::npos) {
      stripped += full.substr(at);
      break;
    }
    stripped += full.substr(at, open - at);
    const std::size_t close = full.find("*/", open + 2);
    at = close == std::string_view::npos ? full.size() : close + 2;
  }
  const std::string_view text = stripped;
  const std::size_t space = text.find_first_of(" \t");
  const std::string mnemonic(text.substr(0, space));
  std::set<std::string> mods;
  std::string_view rest = space == std::string_view::npos ? std::string_view() : text.substr(space);
  // Tokens are separated by spaces and commas outside brackets ("op_sel:[0,1]", "v[0:1]").
  std::string token;
  int depth = 0;
  auto flush = [&] {
    std::string_view t = token;
    while (!t.empty() && (t.front() == '-' || t.front() == '|')) {
      if (t.size() > 1 && t.front() == '-' && !std::isdigit(static_cast<unsigned char>(t[1])) && t[1] != '.') mods.insert("neg");
      if (t.front() == '|') mods.insert("abs");
      t.remove_prefix(1);
    }
    while (!t.empty() && t.back() == '|') t.remove_suffix(1);
    if (!t.empty()) {
      const std::size_t cut = t.find_first_of(":(");
      const std::string_view key = t.substr(0, cut);
      // neg(v1), abs(v1), sext(v1): source modifiers; key:value and name(...) modifiers; the rest
      // of the tokens are operands.
      if (!is_register_or_constant(t)) mods.insert(std::string(key));
    }
    token.clear();
  };
  for (char ch : rest) {
    if (ch == '[' || ch == '(') ++depth;
    if (ch == ']' || ch == ')') --depth;
    if (depth == 0 && (ch == ' ' || ch == ',' || ch == '\t')) {
      flush();
      continue;
    }
    token += ch;
  }
  flush();
  std::string form = mnemonic;
  for (const std::string& m : mods) form += " " + m;
  return form;
}

CodeObjectCoverage isa_coverage(const simulator::CodeObject& co) {
  CodeObjectCoverage c;
  std::vector<const simulator::KernelInfo*> by_entry;
  for (const auto& k : co.kernels()) {
    c.kernels.push_back(k.name);
    by_entry.push_back(&k);
  }
  std::sort(by_entry.begin(), by_entry.end(),
            [](const auto* a, const auto* b) { return a->entry_address < b->entry_address; });
  simulator::Disassembler dis;
  std::map<std::string, std::size_t> refused_at;  // reason -> index into c.refused
  for (const simulator::CodeSection& sec : co.sections()) {
    if (!sec.executable) continue;
    for (std::uint64_t a = sec.address; a < sec.address + sec.bytes.size();) {
      const simulator::KernelInfo* k = by_entry.empty() ? nullptr : by_entry.front();
      for (const auto* e : by_entry)
        if (e->entry_address <= a) k = e;
      const std::uint32_t accum = k ? k->descriptor.accum_offset() : 256, vgprs = k ? k->descriptor.allocated_vgprs() : 512;
      const simulator::DecodedInstruction d = simulator::decode_instruction(dis, &sec, a, accum, vgprs);
      ++c.instructions;
      if (d.size == 0) ++c.undecodable_words;
      else ++c.forms[instruction_form(d.text)];
      if (d.reason.empty()) {
        ++c.decoded;
      } else {
        auto [it, fresh] = refused_at.emplace(d.reason, c.refused.size());
        if (fresh) c.refused.push_back({d.reason, d.text, a, 0});
        ++c.refused[it->second].count;
      }
      a += d.size == 0 ? 4 : d.size;
    }
  }
  return c;
}

}  // namespace cdna::audit
