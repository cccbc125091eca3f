#include "reference/attention/varlen.hpp"

#include "reference/attention/floor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace cdna::reference {

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("VarlenProblem: " + what); }

std::string at(const char* name, std::int64_t i) { return std::string(name) + "[" + std::to_string(i) + "]"; }

// A cumulative list: B + 1 values, the first 0 (if `from_zero`), non-decreasing.
void check_cumulative(const char* name, const std::vector<std::int32_t>& c, std::int64_t batch, bool from_zero) {
  if (std::ssize(c) != batch + 1) {
    fail(std::string(name) + " has " + std::to_string(c.size()) + " values; it needs B + 1 = " +
         std::to_string(batch + 1));
  }
  if (from_zero && c[0] != 0) fail(at(name, 0) + " = " + std::to_string(c[0]) + "; it must be 0");
  if (c[0] < 0) fail(at(name, 0) + " = " + std::to_string(c[0]) + "; starts must be >= 0");
  for (std::int64_t b = 0; b < batch; ++b) {
    if (c[static_cast<std::size_t>(b + 1)] < c[static_cast<std::size_t>(b)]) {
      fail(at(name, b + 1) + " = " + std::to_string(c[static_cast<std::size_t>(b + 1)]) + " < " + at(name, b) +
           " = " + std::to_string(c[static_cast<std::size_t>(b)]) + "; the list must be non-decreasing");
    }
  }
}

std::int64_t rows_of(std::size_t elements, std::int64_t heads, std::int64_t dim) {
  const std::int64_t row = heads * dim;
  return row > 0 ? static_cast<std::int64_t>(elements) / row : 0;
}

}  // namespace

std::int64_t VarlenProblem::rows_q() const { return rows_of(q.size(), base.shape.heads_q, base.shape.head_dim); }

std::int64_t VarlenProblem::rows_k() const { return rows_of(k.size(), base.shape.heads_kv, base.shape.head_dim); }

std::int64_t VarlenProblem::seqlen_q(std::int64_t b) const {
  return cu_seqlens_q[static_cast<std::size_t>(b + 1)] - cu_seqlens_q[static_cast<std::size_t>(b)];
}

std::int64_t VarlenProblem::seqlen_k(std::int64_t b) const {
  if (!seqused_k.empty()) return seqused_k[static_cast<std::size_t>(b)];
  return cu_seqlens_k[static_cast<std::size_t>(b + 1)] - cu_seqlens_k[static_cast<std::size_t>(b)];
}

std::int64_t VarlenProblem::q_row(std::int64_t b, std::int64_t i) const {
  const auto& start = seqstart_q.empty() ? cu_seqlens_q : seqstart_q;
  return start[static_cast<std::size_t>(b)] + i;
}

std::int64_t VarlenProblem::k_row(std::int64_t b, std::int64_t j) const {
  if (paged()) {
    const std::int32_t page =
        block_table[static_cast<std::size_t>(b * pages_per_sequence + j / page_size)];
    return page * page_size + j % page_size;
  }
  const auto& start = seqstart_k.empty() ? cu_seqlens_k : seqstart_k;
  return start[static_cast<std::size_t>(b)] + j;
}

void validate(const VarlenProblem& p) {
  const AttentionShape& s = p.base.shape;
  const std::int64_t B = s.batch;
  if (!p.base.q.empty() || !p.base.k.empty() || !p.base.v.empty()) {
    fail("base.q/k/v must be empty: the inputs of a varlen problem are its own q, k, v storage");
  }
  {
    AttentionProblem features = p.base;  // the base's own checks, with no dense extents
    features.shape.seqlen_q = features.shape.seqlen_k = 0;
    try {
      validate(features);
    } catch (const std::invalid_argument& e) {
      fail(std::string("base: ") + e.what());
    }
  }
  if (s.heads_q < 1) fail("base.shape.heads_q = " + std::to_string(s.heads_q) + "; a varlen problem needs Hq >= 1");
  const std::int64_t qrow = s.heads_q * s.head_dim, krow = s.heads_kv * s.head_dim, vrow = s.heads_kv * s.dv();
  if (std::ssize(p.q) % qrow != 0) {
    fail("q has " + std::to_string(p.q.size()) + " elements, not whole rows of Hq*D = " + std::to_string(qrow));
  }
  const std::int64_t slots = p.paged() ? p.page_size * krow : krow;
  if (std::ssize(p.k) % slots != 0) {
    fail("k has " + std::to_string(p.k.size()) + " elements, not whole " + (p.paged() ? "pages of page_size*Hkv*D = " : "rows of Hkv*D = ") +
         std::to_string(slots));
  }
  const std::int64_t rows_q = p.rows_q(), rows_k = p.rows_k();
  if (std::ssize(p.v) != rows_k * vrow) {
    fail("v has " + std::to_string(p.v.size()) + " elements; k's " + std::to_string(rows_k) +
         " rows need rows*Hkv*Dv = " + std::to_string(rows_k * vrow));
  }
  if (const auto e = pattern_error(p.base.dtype, p.q, p.k, p.v)) fail(*e);
  check_cumulative("cu_seqlens_q", p.cu_seqlens_q, B, true);
  if (!p.seqstart_q.empty()) check_cumulative("seqstart_q", p.seqstart_q, B, false);
  for (std::int64_t b = 0; b < B; ++b) {
    const std::int64_t end = p.q_row(b, p.seqlen_q(b));
    const std::int64_t limit = p.seqstart_q.empty() ? rows_q : std::min<std::int64_t>(rows_q, p.seqstart_q[static_cast<std::size_t>(b + 1)]);
    if (end > limit) {
      fail("sequence " + std::to_string(b) + ": query rows up to " + std::to_string(end) + " pass " +
           (p.seqstart_q.empty() || limit == rows_q ? "the end of q (" + std::to_string(rows_q) + " rows)"
                                                    : "the next padded start " + std::to_string(limit)));
    }
  }
  if (!p.seqused_k.empty() && std::ssize(p.seqused_k) != B) {
    fail("seqused_k has " + std::to_string(p.seqused_k.size()) + " values; it needs B = " + std::to_string(B));
  }
  for (std::int64_t b = 0; b < std::ssize(p.seqused_k); ++b) {
    if (p.seqused_k[static_cast<std::size_t>(b)] < 0) fail(at("seqused_k", b) + " < 0");
  }
  if (p.page_size < 0) fail("page_size = " + std::to_string(p.page_size) + "; it must be 0 (not paged) or > 0");
  if (p.paged()) {
    if (!p.cu_seqlens_k.empty() || !p.seqstart_k.empty()) {
      fail("a paged problem takes its key lengths from seqused_k; cu_seqlens_k and seqstart_k must be empty");
    }
    if (p.seqused_k.empty()) fail("a paged problem needs seqused_k (the used length of each sequence)");
    if (p.pages_per_sequence < 0 || std::ssize(p.block_table) != B * p.pages_per_sequence) {
      fail("block_table has " + std::to_string(p.block_table.size()) + " values; it needs B*pages_per_sequence = " +
           std::to_string(B) + "*" + std::to_string(p.pages_per_sequence));
    }
    const std::int64_t pages = rows_k / p.page_size;
    for (std::int64_t b = 0; b < B; ++b) {
      const std::int64_t used = p.seqlen_k(b);
      if (used > p.pages_per_sequence * p.page_size) {
        fail(at("seqused_k", b) + " = " + std::to_string(used) + " exceeds the block table's capacity " +
             std::to_string(p.pages_per_sequence) + "*" + std::to_string(p.page_size));
      }
      for (std::int64_t c = 0; c * p.page_size < used; ++c) {
        const std::int32_t page = p.block_table[static_cast<std::size_t>(b * p.pages_per_sequence + c)];
        if (page < 0) {
          // A masked (unmapped) page: onnxruntime's paged kernels skip its keys (PR #32391,
          // "block_id < 0 => unmapped"). The definition has no such keys (docs/semantics.md §8).
          fail("block_table[" + std::to_string(b) + ", " + std::to_string(c) + "] = " + std::to_string(page) +
               " marks a masked page inside sequence " + std::to_string(b) + "'s " + std::to_string(used) +
               " used keys; the definition takes no masked pages (a sequence's keys are 0 .. seqused_k - 1, each in a "
               "page of the cache, docs/semantics.md §8): give the sequence without those keys");
        }
        if (page >= pages) {
          fail("block_table[" + std::to_string(b) + ", " + std::to_string(c) + "] = " + std::to_string(page) +
               " is not a page of the cache (0 .. " + std::to_string(pages - 1) + ")");
        }
      }
    }
    return;
  }
  if (p.pages_per_sequence != 0 || !p.block_table.empty()) fail("block_table is given but page_size is 0 (not paged)");
  check_cumulative("cu_seqlens_k", p.cu_seqlens_k, B, true);
  if (!p.seqstart_k.empty()) check_cumulative("seqstart_k", p.seqstart_k, B, false);
  const auto& start = p.seqstart_k.empty() ? p.cu_seqlens_k : p.seqstart_k;
  for (std::int64_t b = 0; b < B; ++b) {
    const std::int64_t capacity = p.cu_seqlens_k[static_cast<std::size_t>(b + 1)] - p.cu_seqlens_k[static_cast<std::size_t>(b)];
    if (p.seqlen_k(b) > capacity) {
      fail(at("seqused_k", b) + " = " + std::to_string(p.seqlen_k(b)) + " exceeds the sequence's " +
           std::to_string(capacity) + " key rows (cu_seqlens_k)");
    }
    const std::int64_t end = start[static_cast<std::size_t>(b)] + capacity;
    const std::int64_t limit = p.seqstart_k.empty() ? rows_k : std::min<std::int64_t>(rows_k, p.seqstart_k[static_cast<std::size_t>(b + 1)]);
    if (end > limit) {
      fail("sequence " + std::to_string(b) + ": key rows up to " + std::to_string(end) + " pass " +
           (p.seqstart_k.empty() || limit == rows_k ? "the end of k and v (" + std::to_string(rows_k) + " rows)"
                                                    : "the next padded start " + std::to_string(limit)));
    }
  }
}

AttentionProblem largest_sequence(const VarlenProblem& v) {
  AttentionProblem p = v.base;
  p.shape.seqlen_q = p.shape.seqlen_k = 0;
  for (std::int64_t b = 0; b < v.sequences(); ++b) {
    p.shape.seqlen_q = std::max(p.shape.seqlen_q, v.seqlen_q(b));
    p.shape.seqlen_k = std::max(p.shape.seqlen_k, v.seqlen_k(b));
  }
  return p;
}

AttentionProblem sequence_problem(const VarlenProblem& p, std::int64_t b) {
  AttentionProblem out = p.base;
  const AttentionShape& s = p.base.shape;
  const std::int64_t Sq = p.seqlen_q(b), Sk = p.seqlen_k(b);
  out.shape.batch = 1;
  out.shape.seqlen_q = Sq;
  out.shape.seqlen_k = Sk;
  for (auto* f : {&out.descale_q, &out.descale_k, &out.descale_v}) {
    if (f->size() > 1) {
      f->assign(f->begin() + static_cast<std::ptrdiff_t>(b * s.heads_kv),
                f->begin() + static_cast<std::ptrdiff_t>((b + 1) * s.heads_kv));
    }
  }
  const std::int64_t qrow = s.heads_q * s.head_dim, krow = s.heads_kv * s.head_dim, vrow = s.heads_kv * s.dv();
  out.q.resize(static_cast<std::size_t>(Sq * qrow));
  out.k.resize(static_cast<std::size_t>(Sk * krow));
  out.v.resize(static_cast<std::size_t>(Sk * vrow));
  for (std::int64_t i = 0; i < Sq; ++i) {
    std::copy_n(p.q.begin() + static_cast<std::ptrdiff_t>(p.q_row(b, i) * qrow), qrow,
                out.q.begin() + static_cast<std::ptrdiff_t>(i * qrow));
  }
  for (std::int64_t j = 0; j < Sk; ++j) {
    const std::int64_t r = p.k_row(b, j);
    std::copy_n(p.k.begin() + static_cast<std::ptrdiff_t>(r * krow), krow, out.k.begin() + static_cast<std::ptrdiff_t>(j * krow));
    std::copy_n(p.v.begin() + static_cast<std::ptrdiff_t>(r * vrow), vrow, out.v.begin() + static_cast<std::ptrdiff_t>(j * vrow));
  }
  return out;
}

VarlenProblem as_varlen(const AttentionProblem& problem) {
  VarlenProblem out;
  out.base = problem;
  out.base.q.clear();
  out.base.k.clear();
  out.base.v.clear();
  out.base.shape.seqlen_q = out.base.shape.seqlen_k = 0;
  const AttentionShape& s = problem.shape;
  for (std::int64_t b = 0; b <= s.batch; ++b) {
    out.cu_seqlens_q.push_back(static_cast<std::int32_t>(b * s.seqlen_q));
    out.cu_seqlens_k.push_back(static_cast<std::int32_t>(b * s.seqlen_k));
  }
  out.q = problem.q;
  out.k = problem.k;
  out.v = problem.v;
  return out;
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

AttentionResult nan_result(const VarlenProblem& p) {
  return {std::vector<double>(static_cast<std::size_t>(p.o_elements()), kNaN),
          std::vector<double>(static_cast<std::size_t>(p.lse_elements()), kNaN)};
}

// Sequence b's part of a varlen-layout result, as a dense [1, Sq_b, ...] result.
AttentionResult sequence_result(const VarlenProblem& p, std::int64_t b, const AttentionResult& r) {
  AttentionResult out;
  gather_sequence(p, b, r.o, r.lse, out.o, out.lse);
  if (r.lse.empty()) out.lse.assign(static_cast<std::size_t>(p.base.shape.heads_q * p.seqlen_q(b)), kNaN);
  return out;
}

}  // namespace

AttentionResult varlen_forward_exact(const VarlenProblem& p, const ExactOptions& options) {
  validate(p);
  AttentionResult out = nan_result(p);
  for (std::int64_t b = 0; b < p.sequences(); ++b) {
    const AttentionResult r = attention_forward_exact_with(sequence_problem(p, b), options);
    scatter_sequence(p, b, r.o, r.lse, out.o, out.lse);
  }
  return out;
}

AttentionBounds varlen_bounds(const VarlenProblem& p, const AttentionResult& exact, numerics::Rounding mode) {
  validate(p);
  if (std::ssize(exact.o) != p.o_elements() || std::ssize(exact.lse) != p.lse_elements()) {
    throw std::invalid_argument("varlen_bounds: exact result sizes do not match the varlen layout");
  }
  const AttentionResult blank = nan_result(p);
  AttentionBounds out{blank.o, blank.lse, blank.o, blank.lse, blank.o};
  for (std::int64_t b = 0; b < p.sequences(); ++b) {
    const AttentionBounds r = attention_bounds(sequence_problem(p, b), sequence_result(p, b, exact), mode);
    scatter_sequence(p, b, r.o, r.lse, out.o, out.lse);
    scatter_sequence(p, b, r.o_oracle, r.lse_oracle, out.o_oracle, out.lse_oracle);
    std::vector<double> scratch(out.lse.size());
    scatter_sequence(p, b, r.o_flush, r.lse, out.o_flush, scratch);
  }
  return out;
}

std::vector<double> varlen_floor_output(const VarlenProblem& p, numerics::Rounding mode) {
  validate(p);
  AttentionResult out = nan_result(p);
  for (std::int64_t b = 0; b < p.sequences(); ++b) {
    const std::vector<double> f = attention_floor_output(sequence_problem(p, b), mode);
    const std::vector<double> no_lse(static_cast<std::size_t>(p.base.shape.heads_q * p.seqlen_q(b)), kNaN);
    scatter_sequence(p, b, f, no_lse, out.o, out.lse);
  }
  return out.o;
}

AttentionComparison compare_varlen(const VarlenProblem& p, const AttentionResult& exact,
                                   std::span<const std::uint16_t> o, std::span<const float> lse,
                                   numerics::Rounding mode, bool lse_given) {
  validate(p);
  if (std::ssize(o) != p.o_elements() || (lse_given && std::ssize(lse) != p.lse_elements()) ||
      std::ssize(exact.o) != p.o_elements() || std::ssize(exact.lse) != p.lse_elements()) {
    throw std::invalid_argument("compare_varlen: output sizes do not match the varlen layout (O [rows_q, Hq, Dv], LSE [Hq, rows_q])");
  }
  const std::vector<std::uint16_t> o_all(o.begin(), o.end());
  const std::vector<float> lse_all = lse_given ? std::vector<float>(lse.begin(), lse.end()) : std::vector<float>{};
  AttentionComparison c;
  std::vector<double> got, want, discount, floor_o;
  for (std::int64_t b = 0; b < p.sequences(); ++b) {
    const AttentionProblem seq = sequence_problem(p, b);
    const AttentionResult seq_exact = sequence_result(p, b, exact);
    std::vector<std::uint16_t> seq_o;
    std::vector<float> seq_lse;
    gather_sequence(p, b, o_all, lse_all, seq_o, seq_lse);
    const AttentionBounds bounds = attention_bounds(seq, seq_exact, mode);
    const AttentionComparison s = compare_elements(seq, seq_exact, seq_o, seq_lse, mode, lse_given, bounds);
    merge_elements(c, s, "sequence " + std::to_string(b) + ": ");
    // Rule 4 once over every sequence (below).
    const std::vector<double> f = attention_floor_output(seq, mode);
    for (std::size_t n = 0; n < seq_o.size(); ++n) got.push_back(numerics::f32_from_bf16(seq_o[n]));
    want.insert(want.end(), seq_exact.o.begin(), seq_exact.o.end());
    discount.insert(discount.end(), bounds.o_flush.begin(), bounds.o_flush.end());
    floor_o.insert(floor_o.end(), f.begin(), f.end());
  }
  judge_floor_rule(c, got, want, discount, floor_o);
  if (!c.judged() && c.first_failure.empty()) {
    c.first_failure = "nothing judged: no sequence has a query row (every Sq_b is 0, or Hq is 0)";
  }
  note_nothing_judged(c);
  return c;
}

}  // namespace cdna::reference
