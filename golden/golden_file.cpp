#include "golden/golden_file.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "golden/digest.hpp"
#include "golden/printable.hpp"
#include "golden/stored_values.hpp"
#include "reference/attention/floor.hpp"

namespace cdna::golden {
namespace {

using reference::AttentionProblem;
using reference::AttentionShape;

constexpr std::int64_t kMaxExtent = (std::int64_t{1} << 31) - 1;

const char* const kTensorLayout =
    "row-major; values contiguous whatever 'layout' says (its strides are how a kernel reads them). Dense: q "
    "[B,Sq,Hq,D]; k [B,Sk,Hkv,D]; v [B,Sk,Hkv,Dv]; o_exact, o_bound, o_floor, o_kernel [B,Sq,Hq,Dv]; lse_exact, "
    "lse_bound, lse_kernel [B,Hq,Sq]. Varlen: q [rows_q,Hq,D]; k, v [rows_k,Hkv,D|Dv] or paged "
    "[pages,page_size,Hkv,D|Dv]; o_* [rows_q,Hq,Dv]; lse_* [Hq,rows_q]. Query head h reads KV head h/(Hq/Hkv)";
const char* const kOracle =
    "reference::attention_forward_exact (MPFR; Auto algorithm: exact dot products, 192-bit fixed-point exp, "
    "256-bit fixed-point sums); docs/semantics.md section 6";
const char* const kOracleError =
    "o_exact = RN_double(o~), |o~ - O| <= (2n+8)*2^-128*sum_j P_j|V_jd|; lse_exact = RN_double(l~), "
    "|l~ - LSE| <= (2n+8+|LSE|)*2^-128; n = visible keys of the row";
const char* const kBound =
    "reference::attention_bounds: certified bound on |kernel - exact| for any online-softmax kernel that rounds P "
    "and O to bf16 in the file's rounding mode, with bf16 MFMA (block model, any blocking), fp32 VALU and 1-ULP "
    "v_exp/v_log/v_rcp with denormal flush, plus the oracle's own error; docs/error-analysis.md";
const char* const kFloorModel =
    "reference::attention_floor_output: an ideal kernel that rounds only P (before P.V) and the stored O to bf16 "
    "in the file's rounding mode, exact elsewhere; a passing kernel has rel-RMS error of O <= 2x the floor's";
const char* const kMfmaModel =
    "CDNA3 bf16 MFMA block model (numerics/mfma.hpp): blocks of 8 products, exact products truncated to "
    "2^(E-24), block sum and C rounded toward -inf to 2^(M-31) and 2^(M-24), one RNE to fp32; sources: "
    "cdna3-facts.md section 4, MMA-Sim (arXiv 2511.10909), Khattak & Mikaitis (arXiv 2510.15884); fp8 inputs: Q.K^T "
    "on the fp8 MFMA, blocks of 16 (numerics::mfma_dot_fp8), P.V on the bf16 MFMA (docs/semantics.md)";

// Format v2's keys (read only; files are written as v3).
const std::vector<std::string> kRequiredKeys = {
    "format",  "case_id", "description", "batch",  "seqlen_q",   "seqlen_k", "heads_q",
    "heads_kv", "head_dim", "mask",      "scale",  "scale_hex",  "rounding", "seeds",
    "inputs",  "executor", "tool",       "oracle", "oracle_precision_bits", "oracle_error",
    "bound",   "floor_model", "mfma_model", "layout", "digest"};
const std::vector<std::string> kOptionalKeys = {"fact_o_equals_v"};
// Provenance keys the tools write (golden gen, golden make); seeds, inputs and executor are
// required keys that the writer takes from GoldenFile::provenance.
// The property runner's regression files (properties/regressions.cpp) add how the property ran
// the problem (layout, padding, per-sequence lengths; properties/property_case.hpp) and why it
// failed; the stored reference values are always those of the dense problem.
const std::vector<std::string> kToolProvenanceKeys = {
    "seeds",         "inputs",         "executor",       "generated_by",       "reduction",
    "kernel_code_object", "kernel",    "kernel_adapter", "source_q",       "source_k",           "source_v",
    "property",      "failure",        "failed_code_object", "rc_params",      "case_aux_seed",
    "case_layout",   "case_pad_bits",  "case_row_pad",   "case_seq_slack",     "case_seqlens_q",
    "case_seqlens_k"};

bool listed(const std::vector<std::string>& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// Messages quote metadata keys and values as the file has them: control characters become '?'
// so that the message stays one line (the CLI prints one error line).
[[noreturn]] void bad(const std::string& label, const std::string& what) {
  const std::string line = label + ": " + what;
  throw SafetensorsError(printable(line, line.size()));
}

std::int64_t parse_extent(const std::string& label, const std::string& key, const std::string& text) {
  if (text.empty() || text.size() > 10 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    bad(label, "metadata '" + key + "' = '" + text + "' is not an integer in 0 .. 2147483647");
  }
  const std::int64_t v = std::stoll(text);
  if (v > kMaxExtent) bad(label, "metadata '" + key + "' = " + text + " exceeds 2147483647");
  return v;
}

// strtod over the whole string, or nullopt.
std::optional<double> parse_double(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

std::optional<float> exact_float(const std::string& text) {
  const auto d = parse_double(text);
  if (!d) return std::nullopt;
  const float f = static_cast<float>(*d);
  if (std::isnan(*d)) return f;
  if (static_cast<double>(f) != *d) return std::nullopt;  // not an fp32 value
  return f;
}

std::optional<RowsEqualV> parse_fact(const std::string& text) {
  RowsEqualV f;
  char tail = 0;
  long long a = 0, b = 0, c = 0;
  if (std::sscanf(text.c_str(), "%lld-%lld:%lld%c", &a, &b, &c, &tail) != 3) return std::nullopt;
  if (a < 0 || b < a || c < 0) return std::nullopt;
  f.first = a;
  f.last = b;
  f.key = c;
  if (text != std::to_string(a) + "-" + std::to_string(b) + ":" + std::to_string(c)) return std::nullopt;
  return f;
}

// Strides are products of inner extents, formed even when another extent is 0 (an empty
// tensor, whose element count is 0), so every product of the non-zero extents of Q, K, V and O
// must fit int64. "" if it does, else one line.
std::string extent_products_problem(const AttentionShape& s) {
  const std::int64_t tensors[4][4] = {{s.batch, s.seqlen_q, s.heads_q, s.head_dim},
                                      {s.batch, s.seqlen_k, s.heads_kv, s.head_dim},
                                      {s.batch, s.seqlen_k, s.heads_kv, s.dv()},
                                      {s.batch, s.seqlen_q, s.heads_q, s.dv()}};
  for (const auto& t : tensors) {
    std::int64_t n = 1;
    for (std::int64_t e : t)
      if (e > 0 && __builtin_mul_overflow(n, e, &n))
        return "metadata extents B, Sq, Sk, Hq, Hkv, D, Dv = " + std::to_string(s.batch) + ", " +
               std::to_string(s.seqlen_q) + ", " + std::to_string(s.seqlen_k) + ", " + std::to_string(s.heads_q) +
               ", " + std::to_string(s.heads_kv) + ", " + std::to_string(s.head_dim) + ", " + std::to_string(s.dv()) +
               ": the product of a tensor's non-zero extents overflows 64 bits";
  }
  return "";
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

const Tensor& expect_tensor(const SafetensorsFile& f, const std::string& label, const std::string& name, Dtype dtype,
                            const std::vector<std::int64_t>& shape) {
  const Tensor& t = f.at(name, label);
  if (t.dtype != dtype) {
    bad(label, "tensor '" + name + "' has dtype " + std::string(to_string(t.dtype)) + ", expected " +
                   std::string(to_string(dtype)));
  }
  if (t.shape != shape) {
    bad(label, "tensor '" + name + "' has shape " + shape_text(t.shape) + ", expected " + shape_text(shape) +
                   " from the metadata");
  }
  return t;
}

double bf16_value(std::uint16_t bits) { return static_cast<double>(numerics::f32_from_bf16(bits)); }

// Where element o_index of an O tensor (or lse_index of an LSE tensor) is, in the order of
// compare_attention's messages; varlen files name the storage row.
std::string where(const GoldenFile& g, std::size_t o_index) {
  const AttentionShape& s = g.features().shape;
  const auto n = static_cast<std::int64_t>(o_index);
  const std::int64_t dv = s.dv(), d = n % dv, h = n / dv % s.heads_q;
  std::ostringstream o;
  if (g.varlen) {
    o << "row=" << n / dv / s.heads_q << " h=" << h << " d=" << d;
  } else {
    o << "b=" << n / dv / s.heads_q / s.seqlen_q << " h=" << h << " i=" << n / dv / s.heads_q % s.seqlen_q << " d=" << d;
  }
  return o.str();
}

std::string where_lse(const GoldenFile& g, std::size_t lse_index) {
  const AttentionShape& s = g.features().shape;
  const auto n = static_cast<std::int64_t>(lse_index);
  std::ostringstream o;
  if (g.varlen) {
    const std::int64_t rows = g.varlen->rows_q();
    o << "h=" << n / rows << " row=" << n % rows;
  } else {
    o << "b=" << n / s.seqlen_q / s.heads_q << " h=" << n / s.seqlen_q % s.heads_q << " i=" << n % s.seqlen_q;
  }
  return o.str();
}

bool same_special(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// The first element where two value lists differ by more than tol(i), or nullopt.
template <class Tol>
std::optional<std::size_t> first_difference(const std::vector<double>& a, const std::vector<double>& b, Tol tol) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i]) || !std::isfinite(b[i])) {
      if (!same_special(a[i], b[i])) return i;
      continue;
    }
    if (!(std::abs(a[i] - b[i]) <= tol(i))) return i;
  }
  return std::nullopt;
}

std::string fmt(double x) { return full_precision(x); }  // short name for messages

// ---- format v3: feature keys and tensors ----

const std::vector<std::string> kCommonKeysV3 = {
    "format",     "case_id",      "description", "batch",    "heads_q",   "heads_kv",   "head_dim",
    "head_dim_v", "mask",         "scale",       "scale_hex", "window_left", "window_right", "softcap",
    "dtype",      "rounding",     "seeds",       "inputs",   "executor",  "tool",       "oracle",
    "oracle_precision_bits", "oracle_error", "bound", "floor_model", "mfma_model", "tensor_layout", "layout",
    "digest"};
const std::vector<std::string> kDenseKeysV3 = {"seqlen_q", "seqlen_k", "stride_q", "stride_k", "stride_v", "stride_o"};
const std::vector<std::string> kVarlenKeysV3 = {"rows_q"};
const std::vector<std::string> kPackedKeysV3 = {"rows_k"};
const std::vector<std::string> kPagedKeysV3 = {"page_size", "pages"};

const std::vector<std::string> kTensors = {"q",       "k",         "v",       "o_exact",  "lse_exact",
                                           "o_bound", "lse_bound", "o_floor", "o_kernel", "lse_kernel"};
const std::vector<std::string> kTensorsV3 = {"sinks",      "descale_q",  "descale_k", "descale_v",
                                             "cu_seqlens_q", "cu_seqlens_k", "seqstart_q", "seqstart_k",
                                             "seqused_k",  "block_table"};
// Varlen tensors other than cu_seqlens_q (whose presence makes a file varlen).
const std::vector<std::string> kVarlenTensors = {"cu_seqlens_k", "seqstart_q", "seqstart_k", "seqused_k", "block_table"};

bool known_key(int version, const std::string& k) {
  if (version == 2) return listed(kRequiredKeys, k);
  return listed(kCommonKeysV3, k) || listed(kDenseKeysV3, k) || listed(kVarlenKeysV3, k) || listed(kPackedKeysV3, k) ||
         listed(kPagedKeysV3, k);
}

}  // namespace

std::vector<std::string> required_metadata_keys(int version, bool varlen, bool paged) {
  if (version == 2) return kRequiredKeys;
  std::vector<std::string> keys = kCommonKeysV3;
  const auto& more = !varlen ? kDenseKeysV3 : paged ? kPagedKeysV3 : kPackedKeysV3;
  keys.insert(keys.end(), more.begin(), more.end());
  if (varlen) keys.insert(keys.end(), kVarlenKeysV3.begin(), kVarlenKeysV3.end());
  return keys;
}

namespace {

// A v3 file's keys and tensors must describe one kind of problem: dense, varlen packed, or paged.
void check_combination(const SafetensorsFile& f, const std::string& label, bool varlen, bool paged) {
  const auto& m = f.metadata;
  if (!varlen) {
    for (const auto* keys : {&kVarlenKeysV3, &kPackedKeysV3, &kPagedKeysV3})
      for (const auto& k : *keys)
        if (m.count(k)) bad(label, "metadata '" + k + "' is for varlen files, but the file has no tensor 'cu_seqlens_q'");
    for (const auto& t : kVarlenTensors)
      if (f.find(t)) bad(label, "tensor '" + t + "' without tensor 'cu_seqlens_q' (varlen files only)");
    return;
  }
  for (const auto& k : kDenseKeysV3)
    if (m.count(k)) bad(label, "metadata '" + k + "' is for dense files; a varlen file (tensor 'cu_seqlens_q') has "
                               "per-sequence lengths and is stored packed");
  if (m.count("fact_o_equals_v")) bad(label, "metadata 'fact_o_equals_v' is for dense files, not varlen ones");
  if (paged) {
    if (m.count("rows_k")) bad(label, "metadata 'rows_k' with 'page_size': a paged file's K and V are [pages, page_size, Hkv, D]");
    if (!f.find("block_table")) bad(label, "metadata 'page_size' without tensor 'block_table'; a paged file needs both");
  } else {
    if (f.find("block_table")) bad(label, "tensor 'block_table' without metadata 'page_size'; a paged file needs both");
    if (m.count("pages")) bad(label, "metadata 'pages' without 'page_size'; a paged file needs both");
  }
}

std::int64_t parse_window(const std::string& label, const std::string& key, const std::string& text) {
  if (text == "-1") return -1;
  return parse_extent(label, key, text);
}

// Shapes of q, k, v as stored.
struct InputShapes {
  std::vector<std::int64_t> q, k, v;
};
InputShapes dense_input_shapes(const AttentionShape& s) {
  return {{s.batch, s.seqlen_q, s.heads_q, s.head_dim},
          {s.batch, s.seqlen_k, s.heads_kv, s.head_dim},
          {s.batch, s.seqlen_k, s.heads_kv, s.dv()}};
}
// Varlen: q [rows_q, Hq, D]; k, v [rows_k, Hkv, D|Dv], or paged [pages, page_size, Hkv, D|Dv].
InputShapes varlen_input_shapes(const AttentionShape& s, std::int64_t rows_q, std::int64_t rows_or_pages,
                                std::int64_t page_size) {
  InputShapes in{{rows_q, s.heads_q, s.head_dim}, {rows_or_pages}, {rows_or_pages}};
  if (page_size > 0) {
    in.k.push_back(page_size);
    in.v.push_back(page_size);
  }
  for (auto* x : {&in.k, &in.v}) x->push_back(s.heads_kv);
  in.k.push_back(s.head_dim);
  in.v.push_back(s.dv());
  return in;
}
InputShapes input_shapes(const GoldenFile& g) {
  if (!g.varlen) return dense_input_shapes(g.problem.shape);
  const reference::VarlenProblem& vp = *g.varlen;
  return varlen_input_shapes(vp.base.shape, vp.rows_q(), vp.paged() ? vp.rows_k() / vp.page_size : vp.rows_k(),
                             vp.page_size);
}

// Inputs are stored as BF16 bits, or U8 fp8 patterns (the low byte of each uint16_t).
Tensor input_tensor(const std::vector<std::int64_t>& shape, const std::vector<std::uint16_t>& bits,
                    reference::ElementType dtype) {
  if (dtype == reference::ElementType::BF16) return make_bf16(shape, bits);
  std::vector<std::uint8_t> bytes(bits.size());
  std::transform(bits.begin(), bits.end(), bytes.begin(), [](std::uint16_t b) { return static_cast<std::uint8_t>(b); });
  return make_u8(shape, bytes);
}
std::vector<std::uint16_t> read_input(const SafetensorsFile& f, const std::string& label, const std::string& name,
                                      reference::ElementType dtype, const std::vector<std::int64_t>& shape) {
  if (dtype == reference::ElementType::BF16) return as_bf16(expect_tensor(f, label, name, Dtype::BF16, shape), label);
  const std::vector<std::uint8_t> bytes = as_u8(expect_tensor(f, label, name, Dtype::U8, shape), label);
  return {bytes.begin(), bytes.end()};
}

// v3 feature metadata and tensors into p (shape extents already read).
void read_features(const SafetensorsFile& f, const std::string& label, AttentionProblem& p) {
  const auto& m = f.metadata;
  AttentionShape& s = p.shape;
  const std::int64_t dv = parse_extent(label, "head_dim_v", m.at("head_dim_v"));
  if (dv < 1) bad(label, "metadata 'head_dim_v' = 0, must be >= 1");
  s.head_dim_v = dv == s.head_dim ? 0 : dv;  // 0: Dv = D, the base definition
  p.window_left = parse_window(label, "window_left", m.at("window_left"));
  p.window_right = parse_window(label, "window_right", m.at("window_right"));
  const auto cap = exact_float(m.at("softcap"));
  if (!cap) bad(label, "metadata 'softcap' = '" + m.at("softcap") + "' is not the exact decimal of an fp32 value");
  p.softcap = *cap;
  const auto dtype = reference::parse_element_type(m.at("dtype"));
  if (!dtype) bad(label, "metadata 'dtype' = '" + m.at("dtype") + "' is not bf16, fp8_e4m3fnuz or fp8_e5m2fnuz");
  p.dtype = *dtype;
  if (f.find("sinks")) p.sinks = as_f32(expect_tensor(f, label, "sinks", Dtype::F32, {s.heads_q}), label);
  for (auto [name, x] : {std::pair{"descale_q", &p.descale_q}, std::pair{"descale_k", &p.descale_k},
                         std::pair{"descale_v", &p.descale_v}}) {
    const Tensor* t = f.find(name);
    if (!t) continue;
    const std::vector<std::int64_t> per_head{s.batch, s.heads_kv};
    if (t->shape != std::vector<std::int64_t>{1} && t->shape != per_head) {
      bad(label, std::string("tensor '") + name + "' has shape " + shape_text(t->shape) + ", expected [1] or " +
                     shape_text(per_head) + " ([B, Hkv])");
    }
    *x = as_f32(expect_tensor(f, label, name, Dtype::F32, t->shape), label);
  }
}

// A varlen file's lengths, paging and storage (rows, pages and tensor shapes from the metadata).
void read_varlen(const SafetensorsFile& f, const std::string& label, const AttentionProblem& p, bool paged,
                 reference::VarlenProblem& vp) {
  const auto& m = f.metadata;
  const AttentionShape& s = p.shape;
  const std::int64_t B = s.batch;
  if (s.heads_q < 1) bad(label, "metadata 'heads_q' = 0: a varlen file needs Hq >= 1");
  auto i32 = [&](const char* name, std::vector<std::int64_t> shape) -> std::vector<std::int32_t> {
    if (!f.find(name)) return {};
    return as_i32(expect_tensor(f, label, name, Dtype::I32, shape), label);
  };
  vp.cu_seqlens_q = i32("cu_seqlens_q", {B + 1});
  vp.cu_seqlens_k = i32("cu_seqlens_k", {B + 1});
  vp.seqstart_q = i32("seqstart_q", {B + 1});
  vp.seqstart_k = i32("seqstart_k", {B + 1});
  vp.seqused_k = i32("seqused_k", {B});
  const std::int64_t rows_q = parse_extent(label, "rows_q", m.at("rows_q"));
  std::int64_t rows_or_pages = 0;
  if (paged) {
    vp.page_size = parse_extent(label, "page_size", m.at("page_size"));
    if (vp.page_size < 1) bad(label, "metadata 'page_size' = 0, must be >= 1");
    rows_or_pages = parse_extent(label, "pages", m.at("pages"));
    const Tensor& bt = f.at("block_table", label);
    if (bt.shape.size() != 2 || bt.shape[0] != B) {
      bad(label, "tensor 'block_table' has shape " + shape_text(bt.shape) + ", expected [" + std::to_string(B) +
                     ", pages_per_sequence]");
    }
    vp.pages_per_sequence = bt.shape[1];
    vp.block_table = i32("block_table", bt.shape);
  } else {
    rows_or_pages = parse_extent(label, "rows_k", m.at("rows_k"));
  }
  const InputShapes in = varlen_input_shapes(s, rows_q, rows_or_pages, vp.page_size);
  vp.q = read_input(f, label, "q", p.dtype, in.q);
  vp.k = read_input(f, label, "k", p.dtype, in.k);
  vp.v = read_input(f, label, "v", p.dtype, in.v);
}

Layout read_layout(const std::map<std::string, std::string>& m, const std::string& label, const AttentionShape& s) {
  Layout l;
  l.name = m.at("layout");
  for (auto [key, x] : {std::pair{"stride_q", &l.q}, std::pair{"stride_k", &l.k}, std::pair{"stride_v", &l.v},
                        std::pair{"stride_o", &l.o}}) {
    const auto parsed = parse_strides(m.at(key));
    if (!parsed) bad(label, std::string("metadata '") + key + "' = '" + m.at(key) + "' is not four integers b,s,h,d");
    *x = *parsed;
  }
  if (const std::string why = layout_problem(l, s); !why.empty()) bad(label, "metadata " + why);
  return l;
}

}  // namespace

std::string full_precision(double x) {
  std::ostringstream o;
  o.precision(17);
  o << x;
  return o.str();
}

bool is_provenance_key(const std::string& key) {
  return listed(kToolProvenanceKeys, key) ||
         (key.size() > std::string_view(kNotePrefix).size() && key.rfind(kNotePrefix, 0) == 0);
}

const std::vector<std::string>& metadata_keys() {
  static const std::vector<std::string> keys = [] {
    auto k = kRequiredKeys;
    for (const auto* more : {&kOptionalKeys, &kCommonKeysV3, &kDenseKeysV3, &kVarlenKeysV3, &kPackedKeysV3, &kPagedKeysV3})
      k.insert(k.end(), more->begin(), more->end());
    return k;
  }();
  return keys;
}

std::string exact_decimal(float x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  // glibc prints the exact binary value; 120 significant digits exceed any float's expansion.
  char buf[256];
  std::snprintf(buf, sizeof buf, "%.120g", static_cast<double>(x));
  return buf;
}

std::string hex_float(float x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", static_cast<double>(x));
  return buf;
}

void compute_reference_values(GoldenFile& g, unsigned threads) {
  reference::ExactOptions options;
  options.threads = threads;
  if (g.varlen) {
    reference::validate(*g.varlen);
    g.exact = reference::varlen_forward_exact(*g.varlen, options);
    reference::AttentionBounds bounds = reference::varlen_bounds(*g.varlen, g.exact, g.mode);
    g.o_bound = std::move(bounds.o);
    g.lse_bound = std::move(bounds.lse);
    g.o_floor = reference::varlen_floor_output(*g.varlen, g.mode);
    return;
  }
  reference::validate(g.problem);
  g.exact = reference::attention_forward_exact_with(g.problem, options);
  reference::AttentionBounds bounds = reference::attention_bounds(g.problem, g.exact, g.mode);
  g.o_bound = std::move(bounds.o);
  g.lse_bound = std::move(bounds.lse);
  g.o_floor = reference::attention_floor_output(g.problem, g.mode);
}

std::vector<std::int64_t> GoldenFile::o_shape() const {
  const AttentionShape& s = features().shape;
  if (varlen) return {varlen->rows_q(), s.heads_q, s.dv()};
  return {s.batch, s.seqlen_q, s.heads_q, s.dv()};
}
std::vector<std::int64_t> GoldenFile::lse_shape() const {
  const AttentionShape& s = features().shape;
  if (varlen) return {s.heads_q, varlen->rows_q()};
  return {s.batch, s.heads_q, s.seqlen_q};
}
std::int64_t GoldenFile::o_elements() const { return varlen ? varlen->o_elements() : problem.shape.o_elements(); }
std::int64_t GoldenFile::lse_elements() const { return varlen ? varlen->lse_elements() : problem.shape.lse_elements(); }

SafetensorsFile to_safetensors(const GoldenFile& g) {
  const AttentionProblem& p = g.features();
  const AttentionShape& s = p.shape;
  if (g.varlen) {
    reference::validate(*g.varlen);
    if (g.layout.name != "bshd") throw std::invalid_argument("golden file: varlen inputs are stored packed; layout must be bshd");
    if (g.fact_o_equals_v) throw std::invalid_argument("golden file: fact_o_equals_v is for dense files only");
  }
  // A named layout left without strides (GoldenFile's default) gets that layout's own.
  Layout layout = g.layout;
  if (layout.name != "strided" && layout.q == Strides{} && layout.k == Strides{} && layout.v == Strides{} &&
      layout.o == Strides{}) {
    if (auto named = named_layout(layout.name, s)) layout = *named;
  }
  if (!g.varlen) {
    reference::validate(g.problem);
    if (const std::string why = layout_problem(layout, s); !why.empty()) throw std::invalid_argument("golden file: " + why);
  }
  auto need = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("golden file: ") + what + " does not match the shape");
  };
  const std::int64_t n_o = g.o_elements(), n_lse = g.lse_elements();
  need(std::ssize(g.exact.o) == n_o && std::ssize(g.exact.lse) == n_lse, "exact result");
  need(std::ssize(g.o_bound) == n_o && std::ssize(g.lse_bound) == n_lse, "bound");
  need(std::ssize(g.o_floor) == n_o, "floor");
  if (g.kernel) need(std::ssize(g.kernel->o) == n_o && (g.kernel->lse.empty() || std::ssize(g.kernel->lse) == n_lse), "kernel output");
  for (const auto& [k, v] : g.provenance) {
    if (!is_provenance_key(k)) {
      throw std::invalid_argument("golden file: provenance key '" + k + "' is neither one the tools write nor '" +
                                  kNotePrefix + "...'");
    }
  }

  SafetensorsFile f;
  auto& m = f.metadata;
  m = g.provenance;
  m.try_emplace("seeds", "none");
  m.try_emplace("inputs", "given");
  m.try_emplace("executor", "none");
  m["format"] = kGoldenFormat;
  m["case_id"] = g.case_id;
  m["description"] = g.description;
  m["batch"] = std::to_string(s.batch);
  m["heads_q"] = std::to_string(s.heads_q);
  m["heads_kv"] = std::to_string(s.heads_kv);
  m["head_dim"] = std::to_string(s.head_dim);
  m["head_dim_v"] = std::to_string(s.dv());
  m["mask"] = std::string(reference::to_string(p.mask));
  m["scale"] = exact_decimal(p.scale);
  m["scale_hex"] = hex_float(p.scale);
  m["window_left"] = std::to_string(p.window_left);
  m["window_right"] = std::to_string(p.window_right);
  m["softcap"] = exact_decimal(p.softcap);
  m["dtype"] = std::string(reference::to_string(p.dtype));
  m["rounding"] = std::string(numerics::to_string(g.mode));
  m["tool"] = std::string("cdna-verify ") + CDNA_VERSION;
  m["oracle"] = kOracle;
  m["oracle_precision_bits"] = "128";
  m["oracle_error"] = kOracleError;
  m["bound"] = kBound;
  m["floor_model"] = kFloorModel;
  m["mfma_model"] = kMfmaModel;
  m["tensor_layout"] = kTensorLayout;
  m["layout"] = g.layout.name;
  if (g.fact_o_equals_v) {
    const auto& fact = *g.fact_o_equals_v;
    m["fact_o_equals_v"] = std::to_string(fact.first) + "-" + std::to_string(fact.last) + ":" + std::to_string(fact.key);
  }

  const InputShapes in = input_shapes(g);
  if (g.varlen) {
    const reference::VarlenProblem& vp = *g.varlen;
    m["rows_q"] = std::to_string(vp.rows_q());
    if (vp.paged()) {
      m["page_size"] = std::to_string(vp.page_size);
      m["pages"] = std::to_string(vp.rows_k() / vp.page_size);
    } else {
      m["rows_k"] = std::to_string(vp.rows_k());
    }
    const std::int64_t B = s.batch;
    auto put = [&](const char* name, const std::vector<std::int32_t>& x, std::vector<std::int64_t> shape) {
      if (!x.empty()) f.tensors[name] = make_i32(std::move(shape), x);
    };
    put("cu_seqlens_q", vp.cu_seqlens_q, {B + 1});
    put("cu_seqlens_k", vp.cu_seqlens_k, {B + 1});
    put("seqstart_q", vp.seqstart_q, {B + 1});
    put("seqstart_k", vp.seqstart_k, {B + 1});
    put("seqused_k", vp.seqused_k, {B});
    put("block_table", vp.block_table, {B, vp.pages_per_sequence});
  } else {
    m["seqlen_q"] = std::to_string(s.seqlen_q);
    m["seqlen_k"] = std::to_string(s.seqlen_k);
    m["stride_q"] = strides_text(layout.q);
    m["stride_k"] = strides_text(layout.k);
    m["stride_v"] = strides_text(layout.v);
    m["stride_o"] = strides_text(layout.o);
  }
  const auto& q = g.varlen ? g.varlen->q : p.q;
  const auto& k = g.varlen ? g.varlen->k : p.k;
  const auto& v = g.varlen ? g.varlen->v : p.v;
  f.tensors["q"] = input_tensor(in.q, q, p.dtype);
  f.tensors["k"] = input_tensor(in.k, k, p.dtype);
  f.tensors["v"] = input_tensor(in.v, v, p.dtype);
  if (!p.sinks.empty()) f.tensors["sinks"] = make_f32({s.heads_q}, p.sinks);
  for (auto [name, x] : {std::pair{"descale_q", &p.descale_q}, std::pair{"descale_k", &p.descale_k},
                         std::pair{"descale_v", &p.descale_v}}) {
    if (x->empty()) continue;
    f.tensors[name] = make_f32(x->size() == 1 ? std::vector<std::int64_t>{1} : std::vector<std::int64_t>{s.batch, s.heads_kv}, *x);
  }
  const auto o_shape = g.o_shape(), lse_shape = g.lse_shape();
  f.tensors["o_exact"] = make_f64(o_shape, g.exact.o);
  f.tensors["lse_exact"] = make_f64(lse_shape, g.exact.lse);
  f.tensors["o_bound"] = make_f64(o_shape, g.o_bound);
  f.tensors["lse_bound"] = make_f64(lse_shape, g.lse_bound);
  f.tensors["o_floor"] = make_f64(o_shape, g.o_floor);
  if (g.kernel) {
    f.tensors["o_kernel"] = make_bf16(o_shape, g.kernel->o);
    // A kernel without an LSE output (MoonMath) stores O only.
    if (!g.kernel->lse.empty()) f.tensors["lse_kernel"] = make_f32(lse_shape, g.kernel->lse);
  }
  m[kDigestKey] = golden_digest(f);
  return f;
}

GoldenFile from_safetensors(const SafetensorsFile& f, const std::string& label) {
  const auto& m = f.metadata;
  auto it = m.find("format");
  if (it == m.end()) bad(label, "no metadata 'format': not a cdna-verify golden file");
  if (it->second == kGoldenFormatV1) {
    bad(label, "golden format v1 has no digest and is no longer read; regenerate the file with `cdna-verify golden "
               "gen` or `golden make`");
  }
  if (it->second != kGoldenFormat && it->second != kGoldenFormatV2) {
    bad(label, "metadata 'format' is '" + it->second + "', expected '" + kGoldenFormat + "' (or v2)");
  }
  const int version = it->second == kGoldenFormat ? 3 : 2;
  const std::string vname = "golden format v" + std::to_string(version);
  // Unknown keys first: a key naming a feature the definition lacks must not be judged without it.
  for (const auto& [k, v] : m) {
    if (!known_key(version, k) && !listed(kOptionalKeys, k) && !is_provenance_key(k)) {
      bad(label, "metadata key '" + k + "' is not part of " + vname + " (the definition has no such feature); "
                 "free provenance keys must start with '" + kNotePrefix + "'");
    }
  }
  auto d_it = m.find(kDigestKey);
  if (d_it == m.end()) bad(label, "no metadata 'digest': the file cannot be checked for changes; regenerate it");
  if (d_it->second != golden_digest(f)) {
    bad(label, "digest mismatch: the file was modified after it was written (tensors or metadata); regenerate it");
  }
  const bool varlen = version == 3 && f.find("cu_seqlens_q") != nullptr;
  const bool paged = varlen && m.count("page_size");
  if (version == 3) check_combination(f, label, varlen, paged);
  for (const auto& key : required_metadata_keys(version, varlen, paged)) {
    if (!m.count(key)) bad(label, "no metadata '" + key + "'");
  }

  GoldenFile g;
  g.format_version = version;
  g.case_id = m.at("case_id");
  g.description = m.at("description");
  AttentionProblem p;  // the features (and, for a dense file, the whole problem)
  AttentionShape& s = p.shape;
  s.batch = parse_extent(label, "batch", m.at("batch"));
  s.seqlen_q = varlen ? 0 : parse_extent(label, "seqlen_q", m.at("seqlen_q"));
  s.seqlen_k = varlen ? 0 : parse_extent(label, "seqlen_k", m.at("seqlen_k"));
  s.heads_q = parse_extent(label, "heads_q", m.at("heads_q"));
  s.heads_kv = parse_extent(label, "heads_kv", m.at("heads_kv"));
  s.head_dim = parse_extent(label, "head_dim", m.at("head_dim"));
  if (s.head_dim < 1) bad(label, "metadata 'head_dim' = 0, must be >= 1");
  if (s.heads_kv < 1) bad(label, "metadata 'heads_kv' = 0, must be >= 1");
  if (s.heads_q % s.heads_kv != 0) {
    bad(label, "metadata 'heads_q' = " + std::to_string(s.heads_q) + " is not a multiple of heads_kv = " +
                   std::to_string(s.heads_kv));
  }
  const auto mask = reference::parse_mask(m.at("mask"));
  if (!mask) bad(label, "metadata 'mask' = '" + m.at("mask") + "' is not none, causal_bottom_right or causal_top_left");
  p.mask = *mask;
  const auto mode = numerics::parse_rounding(m.at("rounding"));
  if (!mode) bad(label, "metadata 'rounding' = '" + m.at("rounding") + "' is not RTNE, RTNA or RTZ");
  g.mode = *mode;
  const auto scale = exact_float(m.at("scale"));
  if (!scale) bad(label, "metadata 'scale' = '" + m.at("scale") + "' is not the exact decimal of an fp32 value");
  const auto scale_hex = exact_float(m.at("scale_hex"));
  if (!scale_hex) bad(label, "metadata 'scale_hex' = '" + m.at("scale_hex") + "' is not an fp32 value");
  const bool same = (std::isnan(*scale) && std::isnan(*scale_hex)) ||
                    std::bit_cast<std::uint32_t>(*scale) == std::bit_cast<std::uint32_t>(*scale_hex);
  if (!same) bad(label, "metadata 'scale' (" + m.at("scale") + ") and 'scale_hex' (" + m.at("scale_hex") + ") differ");
  p.scale = *scale;
  if (m.at("oracle_precision_bits") != "128") {
    bad(label, "metadata 'oracle_precision_bits' = '" + m.at("oracle_precision_bits") + "', this version reads 128");
  }
  if (version == 3) read_features(f, label, p);
  if (auto f_it = m.find("fact_o_equals_v"); f_it != m.end()) {
    g.fact_o_equals_v = parse_fact(f_it->second);
    if (!g.fact_o_equals_v || g.fact_o_equals_v->last >= s.seqlen_q || g.fact_o_equals_v->key >= s.seqlen_k) {
      bad(label, "metadata 'fact_o_equals_v' = '" + f_it->second + "' is not FIRST-LAST:KEY within Sq and Sk");
    }
  }
  for (const auto& [k, v] : m) {
    if (!known_key(version, k) && !listed(kOptionalKeys, k)) g.provenance[k] = v;
  }
  g.provenance["seeds"] = m.at("seeds");
  g.provenance["inputs"] = m.at("inputs");
  g.provenance["executor"] = m.at("executor");

  for (const auto& [name, t] : f.tensors) {
    if (!listed(kTensors, name) && !(version == 3 && listed(kTensorsV3, name))) bad(label, "unknown tensor '" + name + "'");
  }
  if (varlen) {
    g.varlen.emplace();
    reference::VarlenProblem& vp = *g.varlen;
    read_varlen(f, label, p, paged, vp);
    vp.base = std::move(p);
  } else {
    g.problem = std::move(p);
    if (const std::string why = extent_products_problem(g.problem.shape); !why.empty()) bad(label, why);
    // Each tensor shape is checked against the extents before any product of extents is formed;
    // the tensors' byte sizes were checked against 64 bits by the reader.
    const InputShapes in = input_shapes(g);
    const reference::ElementType dtype = g.problem.dtype;
    g.problem.q = read_input(f, label, "q", dtype, in.q);
    g.problem.k = read_input(f, label, "k", dtype, in.k);
    g.problem.v = read_input(f, label, "v", dtype, in.v);
    g.layout = version == 3 ? read_layout(m, label, g.problem.shape) : *named_layout("bshd", g.problem.shape);
  }
  const auto o_shape = g.o_shape(), lse_shape = g.lse_shape();
  g.exact.o = as_f64(expect_tensor(f, label, "o_exact", Dtype::F64, o_shape), label);
  g.exact.lse = as_f64(expect_tensor(f, label, "lse_exact", Dtype::F64, lse_shape), label);
  g.o_bound = as_f64(expect_tensor(f, label, "o_bound", Dtype::F64, o_shape), label);
  g.lse_bound = as_f64(expect_tensor(f, label, "lse_bound", Dtype::F64, lse_shape), label);
  g.o_floor = as_f64(expect_tensor(f, label, "o_floor", Dtype::F64, o_shape), label);
  const bool has_o = f.find("o_kernel") != nullptr, has_lse = f.find("lse_kernel") != nullptr;
  if (has_lse && !has_o) bad(label, "lse_kernel without o_kernel; expected o_kernel with it");
  if (has_o) {
    KernelOutput k;
    k.o = as_bf16(expect_tensor(f, label, "o_kernel", Dtype::BF16, o_shape), label);
    if (has_lse) k.lse = as_f32(expect_tensor(f, label, "lse_kernel", Dtype::F32, lse_shape), label);
    g.kernel = std::move(k);
  }
  try {
    if (g.varlen) reference::validate(*g.varlen);
    else reference::validate(g.problem);
  } catch (const std::invalid_argument& e) {
    bad(label, e.what());
  }
  if (const std::string why = stored_values_problem(g); !why.empty()) bad(label, why);
  return g;
}

GoldenFile read_golden(const std::filesystem::path& path) {
  return from_safetensors(read_safetensors(path), path.string());
}

void write_golden(const std::filesystem::path& path, const GoldenFile& g) {
  // A file the readers would refuse is not written: its values are a bug of whoever computed them.
  if (const std::string why = stored_values_problem(g); !why.empty()) {
    throw std::runtime_error(path.string() + ": not written, its stored values are impossible: " + why);
  }
  write_safetensors(path, to_safetensors(g));
}

std::string verify_reference_values(const GoldenFile& g, unsigned threads) {
  GoldenFile r;
  r.problem = g.problem;
  r.varlen = g.varlen;
  r.mode = g.mode;
  compute_reference_values(r, threads);
  const reference::AttentionBounds oracle = g.varlen ? reference::varlen_bounds(*g.varlen, r.exact, g.mode)
                                                     : reference::attention_bounds(g.problem, r.exact, g.mode);

  // Both values lie within the oracle's stated error of the exact value.
  if (auto i = first_difference(g.exact.o, r.exact.o, [&](std::size_t n) { return 2 * oracle.o_oracle[n]; })) {
    return "o_exact " + where(g, *i) + " is " + fmt(g.exact.o[*i]) + " but the oracle gives " + fmt(r.exact.o[*i]) +
           " (allowed difference " + fmt(2 * oracle.o_oracle[*i]) + ")";
  }
  if (auto i = first_difference(g.exact.lse, r.exact.lse, [&](std::size_t n) { return 2 * oracle.lse_oracle[n]; })) {
    return "lse_exact " + where_lse(g, *i) + " is " + fmt(g.exact.lse[*i]) + " but the oracle gives " +
           fmt(r.exact.lse[*i]) + " (allowed difference " + fmt(2 * oracle.lse_oracle[*i]) + ")";
  }
  auto rel = [](const std::vector<double>& ref) {
    return [&ref](std::size_t n) { return 1e-9 * std::abs(ref[n]); };
  };
  if (auto i = first_difference(g.o_bound, r.o_bound, rel(r.o_bound))) {
    return "o_bound " + where(g, *i) + " is " + fmt(g.o_bound[*i]) + " but recomputed " + fmt(r.o_bound[*i]);
  }
  if (auto i = first_difference(g.lse_bound, r.lse_bound, rel(r.lse_bound))) {
    return "lse_bound " + where_lse(g, *i) + " is " + fmt(g.lse_bound[*i]) + " but recomputed " + fmt(r.lse_bound[*i]);
  }
  if (auto i = first_difference(g.o_floor, r.o_floor, [&](std::size_t n) { return numerics::bf16_ulp(r.o_floor[n]); })) {
    return "o_floor " + where(g, *i) + " is " + fmt(g.o_floor[*i]) + " but recomputed " + fmt(r.o_floor[*i]) +
           " (more than one bf16 ULP apart)";
  }
  const double floor_stored = reference::relative_rms_error(g.o_floor, g.exact.o);
  const double floor_now = reference::relative_rms_error(r.o_floor, r.exact.o);
  if (!(std::abs(floor_stored - floor_now) <= 1e-3 * floor_now) && !(floor_stored == floor_now)) {
    return "o_floor's relative RMS error " + fmt(floor_stored) + " differs from the recomputed " + fmt(floor_now);
  }
  return "";
}

std::string check_rows_equal_v(const AttentionProblem& p, std::span<const std::uint16_t> o, const RowsEqualV& fact) {
  const AttentionShape& s = p.shape;
  const std::int64_t group = s.heads_q / s.heads_kv;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads_q; ++h)
      for (std::int64_t i = fact.first; i <= fact.last && i < s.seqlen_q; ++i)
        for (std::int64_t d = 0; d < s.dv(); ++d) {
          const double got = bf16_value(o[static_cast<std::size_t>(((b * s.seqlen_q + i) * s.heads_q + h) * s.dv() + d)]);
          const double want = reference::element_value(p.dtype, p.v[static_cast<std::size_t>(((b * s.seqlen_k + fact.key) * s.heads_kv + h / group) * s.dv() + d)]);
          if (got != want && !(std::isnan(got) && std::isnan(want))) {
            std::ostringstream m;
            m << "O[b=" << b << ", h=" << h << ", i=" << i << ", d=" << d << "] = " << got << " but V of key " << fact.key
              << " is " << want << " (the definition makes them equal bit for bit)";
            return m.str();
          }
        }
  return "";
}

CandidateVerdict judge_candidate(const GoldenFile& g, std::span<const std::uint16_t> o,
                                 std::optional<std::span<const float>> lse) {
  if (std::ssize(o) != g.o_elements()) {
    throw std::invalid_argument("candidate O has " + std::to_string(o.size()) + " elements, the golden file's shape needs " +
                                std::to_string(g.o_elements()));
  }
  CandidateVerdict v;
  if (lse && std::ssize(*lse) != g.lse_elements()) {
    throw std::invalid_argument("candidate LSE has " + std::to_string(lse->size()) +
                                " elements, the golden file's shape needs " + std::to_string(g.lse_elements()));
  }
  v.lse_given = lse.has_value();
  const std::span<const float> l = lse.value_or(std::span<const float>{});
  v.comparison = g.varlen ? reference::compare_varlen(*g.varlen, g.exact, o, l, g.mode, v.lse_given)
                          : reference::compare_attention(g.problem, g.exact, o, l, g.mode, v.lse_given);
  if (g.fact_o_equals_v) v.fact_failure = check_rows_equal_v(g.problem, o, *g.fact_o_equals_v);
  return v;
}

}  // namespace cdna::golden
