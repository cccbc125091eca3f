#include "adapters/aiter_pa.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#define CSV_IO_NO_THREAD  // pa_asm.csv is a few kilobytes: no reader thread
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"  // csv.h's file-name copy into its error type
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include "adapters/kernel_args.hpp"
#include "device/attention_launcher.hpp"  // kUnwrittenO

namespace cdna::adapters {
namespace {

constexpr std::int64_t kHeadDim = 128;  // pa_fwd: "ASM PA only supports head_size=128"
constexpr std::int64_t kPack = 8;       // 16 bytes of bf16: the innermost dimension of both caches
constexpr std::uint32_t kBlock = 256;   // 4 waves of 64
constexpr const char* kCsv = "pa_asm.csv";

// One row of pa_asm.csv (the columns get_heuristic_kernel matches on).
struct CsvRow {
  std::string q_type, kv_type, knl_name, co_name;
  int gqa = 0, mtp = 0, msk = 0, hp = 0, block_size = 0, ps = 0, q_tile = 0, quant_type = 0;
};

std::vector<CsvRow> read_csv(const std::filesystem::path& path) {
  if (!std::filesystem::is_regular_file(path))
    throw std::runtime_error("aiter-pa: '" + path.string() + "' is missing; expected AITER's hsa/gfx942/pa/" + kCsv +
                             " beside the code objects (it states each kernel's GQA, page size and mode)");
  std::vector<CsvRow> rows;
  try {
    io::CSVReader<12> in(path.string());
    in.read_header(io::ignore_extra_column, "qType", "kvType", "Gqa", "Mtp", "Msk", "Hp", "blkSz", "knl_name", "co_name",
                   "ps", "qTile", "quant_type");
    CsvRow r;
    while (in.read_row(r.q_type, r.kv_type, r.gqa, r.mtp, r.msk, r.hp, r.block_size, r.knl_name, r.co_name, r.ps,
                       r.q_tile, r.quant_type))
      rows.push_back(r);
  } catch (const std::exception& e) {
    throw std::runtime_error("aiter-pa: '" + path.string() + "' is not a readable pa_asm.csv: " + e.what());
  }
  return rows;
}

// Why the adapter does not take the kernel of `r` (one line), or "".
std::string row_refusal(const CsvRow& r) {
  if (r.q_type != "bf16") return "its Q is " + r.q_type + " (the adapter takes bf16 Q)";
  if (r.kv_type != "bf16")
    return "its KV cache is " + r.kv_type + "; quantised KV caches are not taken yet (issue 25)";
  if (r.ps != 0) return "it is a persistent-scheduling (ps) kernel, not taken yet";
  if (r.hp != 0) return "it is a high-precision (Hp " + std::to_string(r.hp) + ") kernel, not taken yet";
  if (r.quant_type != 0 || r.q_tile != 0) return "its quant_type/qTile are not 0";
  if (r.mtp != r.msk || r.mtp > 1)
    return "Mtp " + std::to_string(r.mtp) + " with Msk " + std::to_string(r.msk) +
           " (the adapter takes Mtp = Msk = 0 or 1: one query row, or several with the causal mask)";
  if (r.gqa < 1 || r.block_size < kPack || r.block_size % kPack != 0)
    return "Gqa " + std::to_string(r.gqa) + ", blkSz " + std::to_string(r.block_size) + " (want Gqa >= 1, blkSz a multiple of 8)";
  return "";
}

std::string join_rows(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// The most query rows any sequence of `p` has.
std::int64_t max_query_rows(const reference::VarlenProblem& p) {
  std::int64_t most = 0;
  for (std::int64_t b = 0; b < p.sequences(); ++b) most = std::max(most, p.seqlen_q(b));
  return most;
}

bool takes_ratio(std::int64_t gqa_row, std::int64_t ratio) {
  return ratio == gqa_row || (ratio + 7) / 8 * 8 == gqa_row;  // get_heuristic_kernel's gqa_flags
}

// The softmax scale AITER's host folds with log2(e) (pa_fwd's k_scalar), and the problem scale it means.
float sclg2e() { return static_cast<float>(static_cast<double>(::log2f(::expf(1.0f))) / static_cast<double>(std::sqrt(128.0f))); }
float fixed_scale() { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(kHeadDim))); }

}  // namespace

KernelFeatures AiterPaAdapter::features() const {
  KernelFeatures f;
  f.head_dims = {kHeadDim};
  f.masks = {reference::Mask::None, reference::Mask::CausalBottomRight};
  f.gqa = true;
  f.writes_lse = false;
  f.modes = {numerics::Rounding::RTNA};
  f.limits = "paged decode problems only (a KV cache of pages of the row's blkSz, one query row per sequence, or "
             "several under the causal mask with an Mtp row), scale fp32(1/sqrt(128)), Hq/Hkv within the row's Gqa; "
             "bf16 caches only (quantised ones not taken yet, issue 25)";
  return f;
}

std::string AiterPaAdapter::default_source() const { return (peers_dir() / "aiter-decode-gfx942").string(); }

std::vector<LoadedCodeObject> AiterPaAdapter::load(numerics::Rounding mode, const std::filesystem::path& source) {
  if (mode != numerics::Rounding::RTNA)
    throw std::runtime_error("aiter-pa: AITER's paged-attention kernels round fp32 to bf16 with ties away from zero "
                             "(RTNA) only, not " + std::string(numerics::to_string(mode)) + " (--modes rtna runs them)");
  const std::filesystem::path where = source.empty() ? std::filesystem::path(default_source()) : source;
  if (!std::filesystem::exists(where))
    throw std::runtime_error("aiter-pa: '" + where.string() + "' does not exist; expected a directory holding AITER's "
                             "hsa/gfx942/pa code objects and pa_asm.csv, or one of those code objects");
  const bool one_file = !std::filesystem::is_directory(where);
  const std::vector<CsvRow> rows = read_csv((one_file ? where.parent_path() : where) / kCsv);
  std::vector<const CsvRow*> chosen;
  std::vector<std::string> refused;  // "file: why"
  for (const CsvRow& r : rows) {
    if (one_file ? r.co_name != where.filename().string() : !std::filesystem::exists(where / r.co_name)) continue;
    if (const std::string why = row_refusal(r); !why.empty()) {
      if (one_file) throw std::runtime_error("aiter-pa: '" + where.string() + "' is not taken: " + why);
      refused.push_back(r.co_name + ": " + why);
      continue;
    }
    chosen.push_back(&r);
  }
  if (chosen.empty())
    throw std::runtime_error(
        "aiter-pa: " +
        (one_file ? "'" + where.filename().string() + "' has no row in " + (where.parent_path() / kCsv).string()
                  : "directory '" + where.string() + "' holds no code object the adapter takes" +
                        (refused.empty() ? std::string(" (none of pa_asm.csv's co_name files is present)")
                                         : " (present but not taken: " + join_rows(refused) + ")")) +
        "; expected a bf16 paged-attention code object of AITER's hsa/gfx942/pa");
  code_.clear();
  not_taken_ = refused;
  if (!one_file) {
    for (const auto& e : std::filesystem::directory_iterator(where)) {
      if (e.path().extension() != ".co") continue;
      const bool named = std::any_of(rows.begin(), rows.end(), [&](const CsvRow& r) { return r.co_name == e.path().filename().string(); });
      if (!named) not_taken_.push_back(e.path().filename().string() + ": no row of pa_asm.csv names it");
    }
    std::sort(not_taken_.begin(), not_taken_.end());
  }
  std::vector<LoadedCodeObject> out;
  for (const CsvRow* r : chosen) {
    const std::filesystem::path path = one_file ? where : where / r->co_name;
    const std::string label = "aiter-pa code object '" + path.string() + "'";
    std::vector<std::byte> bytes = device::read_file(path, "AITER code object");
    simulator::CodeObject co = simulator::CodeObject::load(bytes, path.string());
    if (co.kernels().size() != 1)
      throw std::runtime_error(label + " holds " + std::to_string(co.kernels().size()) + " kernels; expected one");
    const simulator::KernelInfo& k = co.kernels().front();
    if (k.name != r->knl_name)
      throw std::runtime_error(label + ": kernel '" + k.name + "' is not the one pa_asm.csv names for it ('" +
                               r->knl_name + "')");
    code_.push_back(Loaded{path.string(), std::move(bytes), k, r->gqa, r->block_size, r->mtp == 1});
    // The mode is a fact of the instructions (RTNA conversions), not recorded by a symbol.
    out.push_back({path.string(), std::string(numerics::to_string(mode)), false});
  }
  return out;
}

std::optional<std::string> AiterPaAdapter::unsupported_detail(const reference::AttentionProblem&,
                                                              numerics::Rounding) const {
  return std::string("aiter-pa takes paged decode problems only (its kernels read a KV cache of pages through a "
                     "block table); a dense problem is not taken (paged problems: audit --kernel aiter-pa, or golden "
                     "make --kernel aiter-pa --page-size 16 --block-table ...)");
}

device::AttentionOutput AiterPaAdapter::launch(device::Executor&, const reference::AttentionProblem&,
                                               numerics::Rounding) {
  throw std::logic_error("aiter-pa: launch called for a dense problem");
}

const AiterPaAdapter::Loaded* AiterPaAdapter::pick(const reference::VarlenProblem& p, std::string* why) const {
  const auto& s = p.base.shape;
  const std::int64_t ratio = s.heads_q / s.heads_kv;
  const bool several = max_query_rows(p) > 1;
  std::string seen;
  for (const Loaded& L : code_) {
    seen += (seen.empty() ? "" : ", ") + std::filesystem::path(L.path).filename().string() + " (Gqa " +
            std::to_string(L.gqa) + ", page " + std::to_string(L.page_size) + (L.multi_token ? ", Mtp" : "") + ")";
    if (L.page_size == p.page_size && takes_ratio(L.gqa, ratio) && L.multi_token == several) return &L;
  }
  *why = "no loaded AITER PA kernel takes page size " + std::to_string(p.page_size) + ", Hq/Hkv = " +
         std::to_string(ratio) + (several ? ", several query rows per sequence" : ", one query row per sequence") +
         "; loaded: " + (seen.empty() ? "none" : seen);
  return nullptr;
}

std::optional<std::string> AiterPaAdapter::varlen_unsupported_reason(const reference::VarlenProblem& problem,
                                                                     numerics::Rounding mode) const {
  if (auto why = feature_reason(reference::largest_sequence(problem), mode)) return why;
  const auto& s = problem.base.shape;
  if (!problem.paged()) return "aiter-pa takes a paged KV cache only (a block table and used lengths)";
  if (!problem.seqstart_q.empty()) return "padded query starts are not taken (Q and O are [num_seqs, Hq, 128] rows)";
  if (s.dv() != kHeadDim) return "Dv = " + std::to_string(s.dv()) + " is not taken (Dv = D = 128)";
  if (problem.base.scale != fixed_scale()) {
    char text[200];
    std::snprintf(text, sizeof text, "scale %.9g (%a) is not taken: AITER's pa_fwd fixes it at 1/sqrt(128), fp32 %.9g (%a)",
                  static_cast<double>(problem.base.scale), static_cast<double>(problem.base.scale),
                  static_cast<double>(fixed_scale()), static_cast<double>(fixed_scale()));
    return std::string(text);
  }
  for (std::int64_t b = 0; b < problem.sequences(); ++b)
    if (problem.seqlen_q(b) < 1)
      return "sequence " + std::to_string(b) + " has no query row (every sequence of a decode batch has one or more)";
  if (max_query_rows(problem) > 1 && problem.base.mask != reference::Mask::CausalBottomRight)
    return "several query rows per sequence are taken with the causal mask (bottom-right) only: the Mtp kernels "
           "mask the rows among themselves";
  if (problem.page_size % kPack != 0) return "page size " + std::to_string(problem.page_size) + " is not a multiple of 8";
  const std::int64_t largest = problem.rows_k() / problem.page_size * s.heads_kv * kHeadDim * problem.page_size * 2;
  if (largest > std::numeric_limits<std::int32_t>::max() || s.heads_kv > 65535 || problem.sequences() > 65535)
    return "the KV cache's byte offsets or the grid (Hkv, num_seqs) exceed AITER's 32-bit fields";
  std::string why;
  if (!pick(problem, &why)) return why;
  return std::nullopt;
}

device::AttentionOutput AiterPaAdapter::launch_varlen(device::Executor& executor, const reference::VarlenProblem& p,
                                                      numerics::Rounding) {
  std::string why;
  const Loaded* L = pick(p, &why);
  if (!L) throw std::logic_error("aiter-pa: " + why);
  const auto& s = p.base.shape;
  const std::int64_t hkv = s.heads_kv, ps = p.page_size, pages = p.rows_k() / ps, D = kHeadDim;
  device::AttentionOutput out;
  out.o.assign(static_cast<std::size_t>(p.o_elements()), device::kUnwrittenO);
  if (p.sequences() == 0 || s.heads_q == 0) return out;

  // The caches in AITER's layouts (test_pa.py kv_cache_factory, asm_V_shuffle), from the
  // definition's [pages·page_size, Hkv, D] rows.
  std::vector<std::uint16_t> k(p.k.size()), v(p.v.size());
  for (std::int64_t page = 0; page < pages; ++page)
    for (std::int64_t h = 0; h < hkv; ++h)
      for (std::int64_t slot = 0; slot < ps; ++slot)
        for (std::int64_t d = 0; d < D; ++d) {
          const std::size_t from = static_cast<std::size_t>(((page * ps + slot) * hkv + h) * D + d);
          const std::int64_t head = (page * hkv + h) * D * ps;
          k[static_cast<std::size_t>(head + ((d / kPack) * ps + slot) * kPack + d % kPack)] = p.k[from];
          v[static_cast<std::size_t>(head + ((slot / kPack) * D + d) * kPack + slot % kPack)] = p.v[from];
        }
  const std::int64_t max_q = max_query_rows(p);
  const auto u32 = [](std::int64_t x) { return static_cast<std::uint32_t>(x); };

  KernelArgs a(L->kernel, "aiter-pa code object '" + L->path + "'");
  a.output("O", std::as_writable_bytes(std::span(out.o)))
      .input("Q", std::as_bytes(std::span(p.q)))
      .input("K", std::as_bytes(std::span(k)))
      .input("V", std::as_bytes(std::span(v)))
      .input("BT", std::as_bytes(std::span(p.block_table)))
      .input("CL", std::as_bytes(std::span(p.seqused_k)))
      .null_pointer("KQ")
      .null_pointer("VQ")
      .f32("sclg", sclg2e())
      .u32("mblk", u32(p.pages_per_sequence))
      .u32("batch", u32(hkv))  // pa_fwd's kv_nheads, named `batch` in the code object's metadata
      .u32("Qs", u32(s.heads_q * D * 2))
      .u32("Bs", u32(hkv * D * ps * 2))
      .u32("KVs", u32(D * ps * 2))
      .u32("mtp", u32(max_q - 1))
      .u32("GQA", u32(s.heads_q / hkv));
  if (a.declares("QTP")) {
    if (L->multi_token) a.input("QTP", std::as_bytes(std::span(p.cu_seqlens_q)));
    else a.null_pointer("QTP");
  }
  device::Dispatch d;
  d.kernel = L->kernel.name;
  d.code_object_name = std::filesystem::path(L->path).filename().string();
  last_ = d.code_object_name;
  d.grid = {u32(hkv), u32(p.sequences()), 1};
  d.block = {kBlock, 1, 1};
  d.args = a.build();
  executor.run(L->bytes, d);
  return out;
}

}  // namespace cdna::adapters
