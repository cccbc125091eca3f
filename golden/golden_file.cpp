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
#include "golden/stored_values.hpp"
#include "reference/floor.hpp"

namespace cdna::golden {
namespace {

using reference::AttentionProblem;
using reference::AttentionShape;

constexpr std::int64_t kMaxExtent = (std::int64_t{1} << 31) - 1;

const char* const kLayout =
    "BSHD row-major: q [B,Sq,Hq,D]; k, v [B,Sk,Hkv,D]; o_exact, o_bound, o_floor, o_kernel [B,Sq,Hq,D]; "
    "lse_exact, lse_bound, lse_kernel [B,Hq,Sq]; query head h reads KV head h/(Hq/Hkv)";
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
    "cdna3-facts.md section 4, MMA-Sim (arXiv 2511.10909), Khattak & Mikaitis (arXiv 2510.15884)";

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

[[noreturn]] void bad(const std::string& label, const std::string& what) {
  throw SafetensorsError(label + ": " + what);
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

std::string where(const AttentionShape& s, std::size_t o_index) {
  const auto n = static_cast<std::int64_t>(o_index);
  const std::int64_t d = n % s.head_dim, h = n / s.head_dim % s.heads_q, i = n / s.head_dim / s.heads_q % s.seqlen_q,
                     b = n / s.head_dim / s.heads_q / s.seqlen_q;
  std::ostringstream o;
  o << "b=" << b << " h=" << h << " i=" << i << " d=" << d;  // the order of compare_attention's messages
  return o.str();
}

std::string where_lse(const AttentionShape& s, std::size_t lse_index) {
  const auto n = static_cast<std::int64_t>(lse_index);
  std::ostringstream o;
  o << "b=" << n / s.seqlen_q / s.heads_q << " h=" << n / s.seqlen_q % s.heads_q << " i=" << n % s.seqlen_q;
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
    k.insert(k.end(), kOptionalKeys.begin(), kOptionalKeys.end());
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
  reference::validate(g.problem);
  reference::ExactOptions options;
  options.threads = threads;
  g.exact = reference::attention_forward_exact_with(g.problem, options);
  reference::AttentionBounds bounds = reference::attention_bounds(g.problem, g.exact, g.mode);
  g.o_bound = std::move(bounds.o);
  g.lse_bound = std::move(bounds.lse);
  g.o_floor = reference::attention_floor_output(g.problem, g.mode);
}

SafetensorsFile to_safetensors(const GoldenFile& g) {
  const AttentionShape& s = g.problem.shape;
  reference::validate(g.problem);
  auto need = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("golden file: ") + what + " does not match the shape");
  };
  need(std::ssize(g.exact.o) == s.o_elements() && std::ssize(g.exact.lse) == s.lse_elements(), "exact result");
  need(std::ssize(g.o_bound) == s.o_elements() && std::ssize(g.lse_bound) == s.lse_elements(), "bound");
  need(std::ssize(g.o_floor) == s.o_elements(), "floor");
  if (g.kernel) need(std::ssize(g.kernel->o) == s.o_elements() && std::ssize(g.kernel->lse) == s.lse_elements(), "kernel output");
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
  m["seqlen_q"] = std::to_string(s.seqlen_q);
  m["seqlen_k"] = std::to_string(s.seqlen_k);
  m["heads_q"] = std::to_string(s.heads_q);
  m["heads_kv"] = std::to_string(s.heads_kv);
  m["head_dim"] = std::to_string(s.head_dim);
  m["mask"] = std::string(reference::to_string(g.problem.mask));
  m["scale"] = exact_decimal(g.problem.scale);
  m["scale_hex"] = hex_float(g.problem.scale);
  m["rounding"] = std::string(numerics::to_string(g.mode));
  m["tool"] = std::string("cdna-verify ") + CDNA_VERSION;
  m["oracle"] = kOracle;
  m["oracle_precision_bits"] = "128";
  m["oracle_error"] = kOracleError;
  m["bound"] = kBound;
  m["floor_model"] = kFloorModel;
  m["mfma_model"] = kMfmaModel;
  m["layout"] = kLayout;
  if (g.fact_o_equals_v) {
    const auto& fact = *g.fact_o_equals_v;
    m["fact_o_equals_v"] = std::to_string(fact.first) + "-" + std::to_string(fact.last) + ":" + std::to_string(fact.key);
  }

  const std::vector<std::int64_t> q_shape{s.batch, s.seqlen_q, s.heads_q, s.head_dim};
  const std::vector<std::int64_t> kv_shape{s.batch, s.seqlen_k, s.heads_kv, s.head_dim};
  const std::vector<std::int64_t> lse_shape{s.batch, s.heads_q, s.seqlen_q};
  f.tensors["q"] = make_bf16(q_shape, g.problem.q);
  f.tensors["k"] = make_bf16(kv_shape, g.problem.k);
  f.tensors["v"] = make_bf16(kv_shape, g.problem.v);
  f.tensors["o_exact"] = make_f64(q_shape, g.exact.o);
  f.tensors["lse_exact"] = make_f64(lse_shape, g.exact.lse);
  f.tensors["o_bound"] = make_f64(q_shape, g.o_bound);
  f.tensors["lse_bound"] = make_f64(lse_shape, g.lse_bound);
  f.tensors["o_floor"] = make_f64(q_shape, g.o_floor);
  if (g.kernel) {
    f.tensors["o_kernel"] = make_bf16(q_shape, g.kernel->o);
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
  if (it->second != kGoldenFormat) {
    bad(label, "metadata 'format' is '" + it->second + "', expected '" + kGoldenFormat + "'");
  }
  // Unknown keys first: a key naming a feature the definition lacks must not be judged without it.
  for (const auto& [k, v] : m) {
    if (!listed(kRequiredKeys, k) && !listed(kOptionalKeys, k) && !is_provenance_key(k)) {
      bad(label, "metadata key '" + k + "' is not part of golden format v2 (the definition has no such feature); "
                 "free provenance keys must start with '" + kNotePrefix + "'");
    }
  }
  auto d_it = m.find(kDigestKey);
  if (d_it == m.end()) bad(label, "no metadata 'digest': the file cannot be checked for changes; regenerate it");
  if (d_it->second != golden_digest(f)) {
    bad(label, "digest mismatch: the file was modified after it was written (tensors or metadata); regenerate it");
  }
  for (const auto& key : kRequiredKeys) {
    if (!m.count(key)) bad(label, "no metadata '" + key + "'");
  }

  GoldenFile g;
  g.case_id = m.at("case_id");
  g.description = m.at("description");
  AttentionShape& s = g.problem.shape;
  s.batch = parse_extent(label, "batch", m.at("batch"));
  s.seqlen_q = parse_extent(label, "seqlen_q", m.at("seqlen_q"));
  s.seqlen_k = parse_extent(label, "seqlen_k", m.at("seqlen_k"));
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
  g.problem.mask = *mask;
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
  g.problem.scale = *scale;
  if (m.at("oracle_precision_bits") != "128") {
    bad(label, "metadata 'oracle_precision_bits' = '" + m.at("oracle_precision_bits") + "', this version reads 128");
  }
  if (auto f_it = m.find("fact_o_equals_v"); f_it != m.end()) {
    g.fact_o_equals_v = parse_fact(f_it->second);
    if (!g.fact_o_equals_v || g.fact_o_equals_v->last >= s.seqlen_q || g.fact_o_equals_v->key >= s.seqlen_k) {
      bad(label, "metadata 'fact_o_equals_v' = '" + f_it->second + "' is not FIRST-LAST:KEY within Sq and Sk");
    }
  }
  for (const auto& [k, v] : m) {
    if (!listed(kRequiredKeys, k) && !listed(kOptionalKeys, k)) g.provenance[k] = v;
  }
  g.provenance["seeds"] = m.at("seeds");
  g.provenance["inputs"] = m.at("inputs");
  g.provenance["executor"] = m.at("executor");

  static const std::set<std::string> known = {"q",     "k",         "v",       "o_exact",  "lse_exact",
                                              "o_bound", "lse_bound", "o_floor", "o_kernel", "lse_kernel"};
  for (const auto& [name, t] : f.tensors) {
    if (!known.count(name)) bad(label, "unknown tensor '" + name + "'");
  }
  // Each tensor shape is checked against the extents before any product of extents is formed;
  // the tensors' byte sizes were checked against 64 bits by the reader.
  const std::vector<std::int64_t> q_shape{s.batch, s.seqlen_q, s.heads_q, s.head_dim};
  const std::vector<std::int64_t> kv_shape{s.batch, s.seqlen_k, s.heads_kv, s.head_dim};
  const std::vector<std::int64_t> lse_shape{s.batch, s.heads_q, s.seqlen_q};
  g.problem.q = as_bf16(expect_tensor(f, label, "q", Dtype::BF16, q_shape), label);
  g.problem.k = as_bf16(expect_tensor(f, label, "k", Dtype::BF16, kv_shape), label);
  g.problem.v = as_bf16(expect_tensor(f, label, "v", Dtype::BF16, kv_shape), label);
  g.exact.o = as_f64(expect_tensor(f, label, "o_exact", Dtype::F64, q_shape), label);
  g.exact.lse = as_f64(expect_tensor(f, label, "lse_exact", Dtype::F64, lse_shape), label);
  g.o_bound = as_f64(expect_tensor(f, label, "o_bound", Dtype::F64, q_shape), label);
  g.lse_bound = as_f64(expect_tensor(f, label, "lse_bound", Dtype::F64, lse_shape), label);
  g.o_floor = as_f64(expect_tensor(f, label, "o_floor", Dtype::F64, q_shape), label);
  const bool has_o = f.find("o_kernel") != nullptr, has_lse = f.find("lse_kernel") != nullptr;
  if (has_lse && !has_o) bad(label, "lse_kernel without o_kernel; expected o_kernel with it");
  if (has_o) {
    KernelOutput k;
    k.o = as_bf16(expect_tensor(f, label, "o_kernel", Dtype::BF16, q_shape), label);
    if (has_lse) k.lse = as_f32(expect_tensor(f, label, "lse_kernel", Dtype::F32, lse_shape), label);
    g.kernel = std::move(k);
  }
  try {
    reference::validate(g.problem);
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
  r.mode = g.mode;
  compute_reference_values(r, threads);
  const AttentionShape& s = g.problem.shape;
  const reference::AttentionBounds oracle = reference::attention_bounds(g.problem, r.exact, g.mode);

  // Both values lie within the oracle's stated error of the exact value.
  if (auto i = first_difference(g.exact.o, r.exact.o, [&](std::size_t n) { return 2 * oracle.o_oracle[n]; })) {
    return "o_exact " + where(s, *i) + " is " + fmt(g.exact.o[*i]) + " but the oracle gives " + fmt(r.exact.o[*i]) +
           " (allowed difference " + fmt(2 * oracle.o_oracle[*i]) + ")";
  }
  if (auto i = first_difference(g.exact.lse, r.exact.lse, [&](std::size_t n) { return 2 * oracle.lse_oracle[n]; })) {
    return "lse_exact " + where_lse(s, *i) + " is " + fmt(g.exact.lse[*i]) + " but the oracle gives " +
           fmt(r.exact.lse[*i]) + " (allowed difference " + fmt(2 * oracle.lse_oracle[*i]) + ")";
  }
  auto rel = [](const std::vector<double>& ref) {
    return [&ref](std::size_t n) { return 1e-9 * std::abs(ref[n]); };
  };
  if (auto i = first_difference(g.o_bound, r.o_bound, rel(r.o_bound))) {
    return "o_bound " + where(s, *i) + " is " + fmt(g.o_bound[*i]) + " but recomputed " + fmt(r.o_bound[*i]);
  }
  if (auto i = first_difference(g.lse_bound, r.lse_bound, rel(r.lse_bound))) {
    return "lse_bound " + where_lse(s, *i) + " is " + fmt(g.lse_bound[*i]) + " but recomputed " + fmt(r.lse_bound[*i]);
  }
  if (auto i = first_difference(g.o_floor, r.o_floor, [&](std::size_t n) { return numerics::bf16_ulp(r.o_floor[n]); })) {
    return "o_floor " + where(s, *i) + " is " + fmt(g.o_floor[*i]) + " but recomputed " + fmt(r.o_floor[*i]) +
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
        for (std::int64_t d = 0; d < s.head_dim; ++d) {
          const double got = bf16_value(o[static_cast<std::size_t>(((b * s.seqlen_q + i) * s.heads_q + h) * s.head_dim + d)]);
          const double want =
              bf16_value(p.v[static_cast<std::size_t>(((b * s.seqlen_k + fact.key) * s.heads_kv + h / group) * s.head_dim + d)]);
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
  const AttentionShape& s = g.problem.shape;
  if (std::ssize(o) != s.o_elements()) {
    throw std::invalid_argument("candidate O has " + std::to_string(o.size()) + " elements, the golden file's shape needs " +
                                std::to_string(s.o_elements()));
  }
  CandidateVerdict v;
  if (lse && std::ssize(*lse) != s.lse_elements()) {
    throw std::invalid_argument("candidate LSE has " + std::to_string(lse->size()) +
                                " elements, the golden file's shape needs " + std::to_string(s.lse_elements()));
  }
  v.lse_given = lse.has_value();
  v.comparison = reference::compare_attention(g.problem, g.exact, o, lse.value_or(std::span<const float>{}), g.mode,
                                              v.lse_given);
  if (g.fact_o_equals_v) v.fact_failure = check_rows_equal_v(g.problem, o, *g.fact_o_equals_v);
  return v;
}

}  // namespace cdna::golden
