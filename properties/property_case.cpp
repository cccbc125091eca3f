#include "properties/property_case.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <stdexcept>

namespace cdna::properties {
namespace {

std::string join(const std::vector<std::int64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

std::uint64_t parse_u64(const std::string& key, const std::string& text, int base = 10) {
  std::uint64_t x = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x, base);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    throw std::invalid_argument("metadata " + key + " = '" + text + "' is not an unsigned integer");
  }
  return x;
}

std::vector<std::int64_t> split(const std::string& key, const std::string& text) {
  std::vector<std::int64_t> v;
  if (text.empty()) return v;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    v.push_back(static_cast<std::int64_t>(parse_u64(key, item)));
  }
  return v;
}

const std::string& at(const std::map<std::string, std::string>& m, const std::string& key) {
  const auto it = m.find(key);
  if (it == m.end()) throw std::invalid_argument("metadata key '" + key + "' is missing");
  return it->second;
}

}  // namespace

reference::AttentionProblem sequence_alone(const PropertyCase& c, std::int64_t b) {
  const auto& p = c.problem;
  const auto& s = p.shape;
  reference::AttentionProblem e;
  const auto i = static_cast<std::size_t>(b);
  e.shape = {1, c.seqlens_q[i], c.seqlens_k[i], s.heads_q, s.heads_kv, s.head_dim};
  e.mask = p.mask, e.scale = p.scale;
  const auto rows = [&](const std::vector<std::uint16_t>& x, std::int64_t seq, std::int64_t heads,
                        std::int64_t len) {
    const auto first = x.begin() + b * seq * heads * s.head_dim;
    return std::vector<std::uint16_t>(first, first + len * heads * s.head_dim);
  };
  e.q = rows(p.q, s.seqlen_q, s.heads_q, e.shape.seqlen_q);
  e.k = rows(p.k, s.seqlen_k, s.heads_kv, e.shape.seqlen_k);
  e.v = rows(p.v, s.seqlen_k, s.heads_kv, e.shape.seqlen_k);
  return e;
}

bool PropertyCase::has_output_row() const {
  if (problem.shape.o_elements() == 0) return false;
  return !varlen() || std::any_of(seqlens_q.begin(), seqlens_q.end(), [](std::int64_t n) { return n > 0; });
}

std::map<std::string, std::string> case_metadata(const PropertyCase& c) {
  char bits[8];
  std::snprintf(bits, sizeof bits, "%04x", c.layout.pad_bits);
  return {{"case_layout", c.layout.kind == LayoutKind::Bshd ? "bshd" : "bhsd"},
          {"case_row_pad", std::to_string(c.layout.row_pad)},
          {"case_seq_slack", std::to_string(c.layout.seq_slack)},
          {"case_pad_bits", bits},
          {"case_seqlens_q", join(c.seqlens_q)},
          {"case_seqlens_k", join(c.seqlens_k)},
          {"case_aux_seed", std::to_string(c.aux_seed)}};
}

void apply_case_metadata(const std::map<std::string, std::string>& m, PropertyCase& c) {
  const std::string& kind = at(m, "case_layout");
  if (kind != "bshd" && kind != "bhsd") {
    throw std::invalid_argument("metadata case_layout = '" + kind + "', expected bshd or bhsd");
  }
  c.layout.kind = kind == "bshd" ? LayoutKind::Bshd : LayoutKind::Bhsd;
  c.layout.row_pad = static_cast<std::int64_t>(parse_u64("case_row_pad", at(m, "case_row_pad")));
  c.layout.seq_slack = static_cast<std::int64_t>(parse_u64("case_seq_slack", at(m, "case_seq_slack")));
  const std::uint64_t bits = parse_u64("case_pad_bits", at(m, "case_pad_bits"), 16);
  if (bits > 0xFFFF) throw std::invalid_argument("metadata case_pad_bits exceeds 16 bits");
  c.layout.pad_bits = static_cast<std::uint16_t>(bits);
  c.seqlens_q = split("case_seqlens_q", at(m, "case_seqlens_q"));
  c.seqlens_k = split("case_seqlens_k", at(m, "case_seqlens_k"));
  const auto& s = c.problem.shape;
  if (c.seqlens_q.size() != c.seqlens_k.size() ||
      (!c.seqlens_q.empty() && c.seqlens_q.size() != static_cast<std::size_t>(s.batch))) {
    throw std::invalid_argument("metadata case_seqlens_q/k must both be empty or have B entries");
  }
  for (std::size_t b = 0; b < c.seqlens_q.size(); ++b) {
    if (c.seqlens_q[b] > s.seqlen_q || c.seqlens_k[b] > s.seqlen_k) {
      throw std::invalid_argument("metadata case_seqlens: entry " + std::to_string(b) + " exceeds Sq or Sk");
    }
  }
  c.aux_seed = parse_u64("case_aux_seed", at(m, "case_aux_seed"));
}

std::string describe(const PropertyCase& c) {
  const auto& s = c.problem.shape;
  std::ostringstream o;
  o << "B=" << s.batch << " Sq=" << s.seqlen_q << " Sk=" << s.seqlen_k << " Hq=" << s.heads_q
    << " Hkv=" << s.heads_kv << " D=" << s.head_dim << " mask=" << reference::to_string(c.problem.mask)
    << " scale=" << c.problem.scale << " mode=" << numerics::to_string(c.mode)
    << " layout=" << (c.layout.kind == LayoutKind::Bshd ? "bshd" : "bhsd") << "+" << c.layout.row_pad
    << "/" << c.layout.seq_slack << " pad=0x" << std::hex << c.layout.pad_bits << std::dec;
  if (c.varlen()) o << " seqlens_q=" << join(c.seqlens_q) << " seqlens_k=" << join(c.seqlens_k);
  o << " aux_seed=" << c.aux_seed << " values: " << c.values;
  return o.str();
}

}  // namespace cdna::properties
