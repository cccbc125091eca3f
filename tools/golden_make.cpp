#include "tools/golden_make.hpp"
#include "audit/output/output_paths.hpp"
#include "tools/cli_checks.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <span>
#include <stdexcept>
#include <sstream>
#include <tuple>
#include <type_traits>

#include "device/attention_launcher.hpp"
#include "golden/digest.hpp"
#include "golden/layout.hpp"
#include "golden/golden_file.hpp"
#include "golden/safetensors.hpp"
#include "golden/stored_values.hpp"
#include "tools/cli_modes.hpp"
#include "audit/golden/golden_cases.hpp"
#include "tools/golden_command.hpp"
#include "adapters/kernel_adapter.hpp"
#include "audit/golden/golden_kernel.hpp"

namespace cdna::tools {

using namespace cdna::audit;  // the engine (audit/README.md)

namespace {

namespace fs = std::filesystem;
using Shape = std::vector<std::int64_t>;

constexpr std::int64_t kMaxExtent = (std::int64_t{1} << 31) - 1;  // the golden format's limit

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

std::string shape_text(const Shape& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

// "NAME (N bytes, sha256 HEX)": which input file, exactly.
std::string fingerprint(const std::string& path, const std::vector<std::byte>& bytes) {
  return fs::path(path).filename().string() + " (" + std::to_string(bytes.size()) + " bytes, sha256 " +
         golden::sha256_hex(bytes) + ")";
}

// One input tensor as bf16 bits, with its shape and provenance.
struct Input {
  std::vector<std::uint16_t> bits;
  Shape shape;
  std::string source;
};

// A tensor of the --from file: BF16 as stored, F32 rounded to bf16 RTNE; U8 fp8 patterns when the
// problem's dtype is fp8. `ranks` lists the ranks the tensor may have.
Input tensor_input(const golden::SafetensorsFile& f, const std::string& label, const std::string& name,
                   const std::string& file_print, reference::ElementType dtype, std::initializer_list<std::size_t> ranks,
                   const char* expected) {
  const golden::Tensor* t = f.find(name);
  if (!t) {
    std::string have;
    for (const auto& [n, unused] : f.tensors) have += (have.empty() ? "" : ", ") + n;
    fail(label + ": no tensor '" + name + "'; golden make needs tensors q, k, v (it has: " +
         (have.empty() ? "none" : have) + ")");
  }
  if (std::find(ranks.begin(), ranks.end(), t->shape.size()) == ranks.end()) {
    fail(label + ": tensor '" + name + "' has shape " + shape_text(t->shape) + ", expected " + expected);
  }
  for (std::int64_t e : t->shape)
    if (e > kMaxExtent) fail(label + ": tensor '" + name + "' has an extent above 2147483647");
  Input in;
  in.shape = t->shape;
  const std::string what = std::string(golden::to_string(t->dtype)) + " " + shape_text(t->shape);
  const bool fp8 = dtype != reference::ElementType::BF16;
  if (fp8) {
    if (t->dtype != golden::Dtype::U8) {
      fail(label + ": tensor '" + name + "' has dtype " + std::string(golden::to_string(t->dtype)) + "; dtype " +
           std::string(reference::to_string(dtype)) + " inputs are U8 tensors of FNUZ bit patterns (safetensors' "
           "F8_E4M3/F8_E5M2 are the OCP formats, not MI300X's FNUZ ones)");
    }
    const std::vector<std::uint8_t> bytes = golden::as_u8(*t, label);
    in.bits.assign(bytes.begin(), bytes.end());
    in.source = file_print + ", tensor '" + name + "' " + what + " (" + std::string(reference::to_string(dtype)) + " patterns)";
  } else if (t->dtype == golden::Dtype::BF16) {
    in.bits = golden::as_bf16(*t, label);
    in.source = file_print + ", tensor '" + name + "' " + what;
  } else if (t->dtype == golden::Dtype::F32) {
    const std::vector<float> x = golden::as_f32(*t, label);
    in.bits.resize(x.size());
    std::size_t inexact = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      in.bits[i] = numerics::bf16_from_f32(x[i], numerics::Rounding::RTNE);
      const float back = numerics::f32_from_bf16(in.bits[i]);
      if (!(back == x[i]) && !(std::isnan(back) && std::isnan(x[i]))) ++inexact;
    }
    in.source = file_print + ", tensor '" + name + "' " + what + " rounded to bf16 RTNE (" + std::to_string(inexact) +
                " of " + std::to_string(x.size()) + " values changed)";
  } else {
    fail(label + ": tensor '" + name + "' has dtype " + std::string(golden::to_string(t->dtype)) +
         "; golden make takes BF16 (bits kept), F32 (rounded to bf16 RTNE), or U8 with --dtype fp8_e4m3fnuz|fp8_e5m2fnuz");
  }
  return in;
}

// A raw little-endian file of 2-byte bf16 (or 1-byte fp8) patterns that must hold exactly the
// elements of `shape`.
Input raw_input(const std::string& path, const char* name, const Shape& shape, reference::ElementType dtype) {
  // The option is --q, --k or --v; `name` ("Q", "K", "V") is the tensor's name in messages.
  const std::string option = "--" + std::string(1, static_cast<char>(std::tolower(static_cast<unsigned char>(name[0]))));
  const std::vector<std::byte> bytes = device::read_file(path, option + " input");
  const std::size_t size = dtype == reference::ElementType::BF16 ? 2 : 1;
  std::int64_t elements = 1;
  for (std::int64_t e : shape) elements *= e;
  const std::size_t want = static_cast<std::size_t>(elements) * size;
  const std::string kind = size == 2 ? "raw little-endian bf16" : "raw " + std::string(reference::to_string(dtype)) + " patterns";
  if (bytes.size() != want) {
    fail(path + ": " + std::to_string(bytes.size()) + " bytes, but " + name + " " + shape_text(shape) +
         " of --shape needs " + std::to_string(elements) + " x " + std::to_string(size) + " = " + std::to_string(want) +
         " (" + kind + ")");
  }
  Input in;
  in.shape = shape;
  in.bits.resize(static_cast<std::size_t>(elements));
  for (std::size_t i = 0; i < in.bits.size(); ++i) {
    in.bits[i] = size == 1 ? static_cast<std::uint16_t>(std::to_integer<unsigned>(bytes[i]))
                           : static_cast<std::uint16_t>(std::to_integer<unsigned>(bytes[2 * i]) |
                                                        (std::to_integer<unsigned>(bytes[2 * i + 1]) << 8));
  }
  in.source = fingerprint(path, bytes) + ", " + kind + " " + shape_text(shape);
  return in;
}

// A scale given as text (decimal or C99 hex), rounded to the nearest fp32 value (strtof); the
// definition takes finite scales only (docs/semantics.md section 1).
float parse_scale(const std::string& text, const std::string& where) {
  float x;
  if (const std::string why = read_finite_fp32(text, x); !why.empty()) fail(where + " = '" + text + "' " + why);
  return x;
}

// An option value and the input file's metadata value for the same thing: they must agree.
template <class T, class Parse>
std::optional<T> agreed(const std::string& option_text, const char* option, const golden::SafetensorsFile* f,
                        const std::string& label, const char* key, Parse parse, std::string& how) {
  std::optional<T> from_option, from_meta;
  if (!option_text.empty()) from_option = parse(option_text, std::string(option));
  if (f) {
    if (auto it = f->metadata.find(key); it != f->metadata.end()) {
      from_meta = parse(it->second, label + ": metadata '" + key + "'");
    }
  }
  if (from_option && from_meta && !(*from_option == *from_meta)) {
    fail(std::string(option) + " " + option_text + " contradicts " + label + "'s metadata '" + key + "' = '" +
         f->metadata.at(key) + "'; give one, or the same value in both");
  }
  how = from_option ? (from_meta ? "given (" + std::string(option) + ", agrees with the input's metadata)"
                                 : "given (" + std::string(option) + ")")
                    : (from_meta ? "from the input's metadata" : "default");
  return from_option ? from_option : from_meta;
}

reference::Mask parse_mask_text(const std::string& text, const std::string& where) {
  // `run`'s spellings are taken too (causal is bottom-right, the definition's causal default).
  const auto m = text == "causal"            ? std::optional(reference::Mask::CausalBottomRight)
                 : text == "causal-top-left" ? std::optional(reference::Mask::CausalTopLeft)
                                             : reference::parse_mask(text);
  if (!m) {
    fail(where + " = '" + text + "' is not a mask; expected none, causal_bottom_right (or causal) or causal_top_left "
                                 "(or causal-top-left)");
  }
  return *m;
}

// The definition's shape domain (docs/semantics.md section 1): D >= 1, Hkv >= 1, Hq = g * Hkv.
void check_shape(const reference::AttentionShape& s) {
  if (s.head_dim < 1) fail("D = 0: the definition needs D >= 1");
  if (s.heads_kv < 1) fail("Hkv = 0: the definition needs Hkv >= 1");
  if (s.heads_q % s.heads_kv != 0) {
    fail("Hq = " + std::to_string(s.heads_q) + " is not a multiple of Hkv = " + std::to_string(s.heads_kv) +
         " (query head h reads KV head h / (Hq / Hkv))");
  }
}

// "a,b,c" as integers (int32) or numbers (fp32, -inf allowed where `allow_minus_inf`); one line
// naming the option otherwise.
std::vector<std::int32_t> parse_int_list(const std::string& text, const std::string& where) {
  std::vector<std::int32_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || end != item.c_str() + item.size() || v < INT32_MIN || v > INT32_MAX)
      fail(where + " = '" + text + "': '" + item + "' is not a 32-bit integer; expected comma-separated integers");
    out.push_back(static_cast<std::int32_t>(v));
  }
  if (out.empty()) fail(where + " is empty; expected comma-separated integers");
  return out;
}
std::vector<float> parse_float_list(const std::string& text, const std::string& where) {
  std::vector<float> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t\n"));
    item.erase(item.find_last_not_of(" \t\n") + 1);
    char* end = nullptr;
    const float v = std::strtof(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size())
      fail(where + " = '" + text + "': '" + item + "' is not a number; expected comma-separated numbers");
    out.push_back(v);
  }
  if (out.empty()) fail(where + " is empty; expected comma-separated numbers");
  return out;
}

// A list feature: from its option, from the --from file's tensor of the same name, or both (equal).
template <class T, class Parse>
std::vector<T> list_feature(const std::string& option_text, const char* option, const golden::SafetensorsFile* f,
                            const std::string& label, const char* tensor, Parse parse) {
  std::vector<T> from_option, from_file;
  if (!option_text.empty()) from_option = parse(option_text, std::string(option));
  if (f && f->find(tensor)) {
    const golden::Tensor& t = *f->find(tensor);
    if constexpr (std::is_same_v<T, float>) {
      if (t.dtype != golden::Dtype::F32) fail(label + ": tensor '" + tensor + "' must be F32");
      from_file = golden::as_f32(t, label);
    } else {
      if (t.dtype != golden::Dtype::I32) fail(label + ": tensor '" + tensor + "' must be I32");
      from_file = golden::as_i32(t, label);
    }
  }
  if (!option_text.empty() && f && f->find(tensor) && from_option != from_file) {
    fail(std::string(option) + " " + option_text + " contradicts " + label + "'s tensor '" + tensor +
         "'; give one, or the same values in both");
  }
  return option_text.empty() ? from_file : from_option;
}

std::int64_t parse_count(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || v < 0 || v > kMaxExtent)
    fail(where + " = '" + text + "' is not an integer in 0 .. 2147483647");
  return v;
}

std::int64_t parse_window_side(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || v < -1 || v > kMaxExtent)
    fail(where + " = '" + text + "' is not -1 (unbounded) or a key count in 0 .. 2147483647");
  return v;
}

std::pair<std::int64_t, std::int64_t> parse_window(const std::string& text, const std::string& where) {
  const auto comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos) fail(where + " = '" + text + "' is not L,R (keys left and right of the diagonal; -1 unbounded)");
  return {parse_window_side(text.substr(0, comma), where + " left"), parse_window_side(text.substr(comma + 1), where + " right")};
}

reference::ElementType parse_dtype(const std::string& text, const std::string& where) {
  const auto t = reference::parse_element_type(text);
  if (!t) fail(where + " = '" + text + "' is not bf16, fp8_e4m3fnuz or fp8_e5m2fnuz");
  return *t;
}

// --sinks: a comma list, or a file holding one (commas or white space between values).
std::vector<float> parse_sinks(const std::string& text, const std::string& where) {
  std::error_code ec;
  if (!fs::is_regular_file(text, ec)) {
    if (text.find(',') != std::string::npos) return parse_float_list(text, where);
    try {
      return parse_float_list(text, where);
    } catch (const std::exception&) {  // one word that is no number: a file name that does not exist
      fail(where + " = '" + text + "' is not a number, and no file of that name exists; expected Hq comma-separated " +
           "logits, or a file holding them");
    }
  }
  const std::vector<std::byte> bytes = device::read_file(text, where);
  std::string content(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  for (char& c : content)
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') c = ',';
  std::string joined;
  for (std::size_t i = 0; i < content.size(); ++i)
    if (!(content[i] == ',' && (joined.empty() || joined.back() == ','))) joined += content[i];
  if (!joined.empty() && joined.back() == ',') joined.pop_back();
  return parse_float_list(joined, where + " (file " + text + ")");
}

struct Made {
  reference::AttentionProblem problem;  // dense: the problem; varlen: the features (base)
  std::optional<reference::VarlenProblem> varlen;
  golden::Layout layout;
  std::string sources[3];
  std::string inputs;  // how the inputs, mask and scale were chosen
  std::string default_id;
};

Made read_inputs(const GoldenMakeOptions& o) {
  const bool raw = !o.q.empty() || !o.k.empty() || !o.v.empty();
  if (raw == !o.from.empty()) fail("give either --from FILE.safetensors or --q, --k, --v and --shape");
  Made m;
  Input in[3];
  std::optional<golden::SafetensorsFile> file;
  std::string file_print;  // "NAME (N bytes, sha256 HEX)" of the --from file
  if (!raw) {
    if (!o.shape.empty()) fail("--shape is for raw inputs; with --from the shape comes from the tensors");
    if (o.dv != 0) fail("--dv is for raw inputs; with --from Dv is the last extent of tensor 'v'");
    const std::vector<std::byte> bytes = device::read_file(o.from, "--from input");
    file = golden::parse_safetensors(bytes, o.from);
    file_print = fingerprint(o.from, bytes);
    // A metadata key make does not know may name a feature the definition lacks: dropping it
    // silently would make a golden file of another problem. Known: the golden formats' keys (a
    // golden file is a valid input; its feature keys are read below), their provenance keys,
    // and 'format' (PyTorch's safetensors writer stores "format": "pt").
    for (const auto& [key, value] : file->metadata) {
      const auto& own = golden::metadata_keys();
      if (key != "format" && std::find(own.begin(), own.end(), key) == own.end() && !golden::is_provenance_key(key)) {
        fail(o.from + ": metadata key '" + key + "' is not something golden make reads (it reads the golden "
             "format's keys: mask, scale, window_left/right, softcap, dtype, page_size, layout, stride_*); if it "
             "names a feature the definition lacks, remove it, or keep it as provenance under 'note." + key + "'");
      }
    }
  }
  const golden::SafetensorsFile* f = file ? &*file : nullptr;
  reference::AttentionProblem& p = m.problem;
  std::string dtype_how;
  p.dtype = agreed<reference::ElementType>(o.dtype, "--dtype", f, o.from, "dtype", parse_dtype, dtype_how)
                .value_or(reference::ElementType::BF16);
  auto ints = [&](const std::string& text, const char* option, const char* tensor) {
    return list_feature<std::int32_t>(text, option, f, o.from, tensor, parse_int_list);
  };
  std::optional<reference::VarlenProblem> vp;
  {
    reference::VarlenProblem v;
    v.cu_seqlens_q = ints(o.cu_seqlens_q, "--cu-seqlens-q", "cu_seqlens_q");
    v.cu_seqlens_k = ints(o.cu_seqlens_k, "--cu-seqlens-k", "cu_seqlens_k");
    v.seqstart_q = ints(o.seqstart_q, "--seqstart-q", "seqstart_q");
    v.seqstart_k = ints(o.seqstart_k, "--seqstart-k", "seqstart_k");
    v.seqused_k = ints(o.seqused_k, "--seqused-k", "seqused_k");
    v.block_table = ints(o.block_table, "--block-table", "block_table");
    std::string how;
    v.page_size = agreed<std::int64_t>(o.page_size, "--page-size", f, o.from, "page_size", parse_count, how).value_or(0);
    const bool any = !v.cu_seqlens_k.empty() || !v.seqstart_q.empty() || !v.seqstart_k.empty() || !v.seqused_k.empty() ||
                     !v.block_table.empty() || v.page_size != 0;
    if (v.cu_seqlens_q.empty() && any)
      fail("varlen and paged options (--cu-seqlens-k, --seqstart-q/k, --seqused-k, --page-size, --block-table) need "
           "--cu-seqlens-q (B + 1 query offsets)");
    if (!v.block_table.empty() && v.page_size == 0) fail("--block-table needs --page-size (the slots per page)");
    if (v.page_size != 0 && v.block_table.empty()) fail("--page-size needs --block-table (B rows of page indices)");
    if (!v.cu_seqlens_q.empty()) vp = std::move(v);
  }
  if (raw) {
    if (vp) fail("varlen and paged inputs need --from FILE.safetensors (q [rows_q,Hq,D], k, v [rows_k,Hkv,D] or "
                 "[pages,page_size,Hkv,D]); --shape describes dense inputs only");
    if (o.q.empty() || o.k.empty() || o.v.empty()) fail("raw inputs need all of --q, --k and --v");
    if (o.shape.size() != 6) fail("raw inputs need --shape B,Sq,Sk,Hq,Hkv,D (6 integers)");
    for (std::int64_t e : o.shape)
      if (e < 0 || e > kMaxExtent) fail("--shape: extents must be 0 .. 2147483647, got " + shape_text(o.shape));
    if (o.dv < 0 || o.dv > kMaxExtent) fail("--dv = " + std::to_string(o.dv) + " must be 1 .. 2147483647 (0: Dv = D)");
    const auto& x = o.shape;
    const auto [B, Sq, Sk, Hq, Hkv, D] = std::tuple{x[0], x[1], x[2], x[3], x[4], x[5]};
    const std::int64_t Dv = o.dv == 0 ? D : o.dv;
    check_shape({B, Sq, Sk, Hq, Hkv, D});  // before reading: outside the definition there is no problem to read
    in[0] = raw_input(o.q, "Q", {B, Sq, Hq, D}, p.dtype);
    in[1] = raw_input(o.k, "K", {B, Sk, Hkv, D}, p.dtype);
    in[2] = raw_input(o.v, "V", {B, Sk, Hkv, Dv}, p.dtype);
    m.default_id = fs::path(o.q).stem().string();
  } else {
    const char* names[] = {"q", "k", "v"};
    for (int t = 0; t < 3; ++t) {
      const bool is_q = t == 0;
      if (!vp) {
        in[t] = tensor_input(*file, o.from, names[t], file_print, p.dtype, {4}, "rank 4 (BSHD: [B,S,H,D])");
      } else if (is_q) {
        in[t] = tensor_input(*file, o.from, names[t], file_print, p.dtype, {3}, "rank 3 (varlen: [rows_q,Hq,D])");
      } else if (vp->page_size > 0) {
        in[t] = tensor_input(*file, o.from, names[t], file_print, p.dtype, {4}, "rank 4 (paged: [pages,page_size,Hkv,D])");
      } else {
        in[t] = tensor_input(*file, o.from, names[t], file_print, p.dtype, {3}, "rank 3 (varlen: [rows_k,Hkv,D])");
      }
    }
    const Shape &qs = in[0].shape, &ks = in[1].shape, &vs = in[2].shape;
    if (!std::equal(ks.begin(), ks.end() - 1, vs.begin(), vs.end() - 1)) {
      fail(o.from + ": tensors 'k' " + shape_text(ks) + " and 'v' " + shape_text(vs) +
           " differ before the last extent; k is [..,Hkv,D] and v [..,Hkv,Dv] over the same keys");
    }
    if (qs.back() != ks.back() || (!vp && qs[0] != ks[0])) {
      fail(o.from + ": tensor 'q' " + shape_text(qs) + " and 'k' " + shape_text(ks) +
           " disagree in " + (vp ? "D" : "B or D") + "; q is [B,Sq,Hq,D], k [B,Sk,Hkv,D] (varlen: [rows,H,D])");
    }
    if (vp && vp->page_size > 0 && ks[1] != vp->page_size) {
      fail(o.from + ": tensor 'k' " + shape_text(ks) + " has pages of " + std::to_string(ks[1]) +
           " slots, but the page size is " + std::to_string(vp->page_size));
    }
    m.default_id = fs::path(o.from).stem().string();
    // A golden file's own name ends in its mode ("X07.rtne"): the case id is what precedes it.
    for (const char* mode : {".rtne", ".rtna", ".rtz"}) {
      const std::string suffix = mode;
      if (m.default_id.size() > suffix.size() && m.default_id.ends_with(suffix)) m.default_id.resize(m.default_id.size() - suffix.size());
    }
  }
  reference::AttentionShape& s = p.shape;
  const Shape &qs = in[0].shape, &ks = in[1].shape, &vs = in[2].shape;
  if (vp) {
    s = {static_cast<std::int64_t>(vp->cu_seqlens_q.size()) - 1, 0, 0, qs[1], ks[ks.size() - 2], qs[2]};
  } else {
    s = {qs[0], qs[1], ks[1], qs[2], ks[2], qs[3]};
  }
  s.head_dim_v = vs.back() == s.head_dim ? 0 : vs.back();
  check_shape(s);
  std::string mask_how, scale_how, window_how, cap_how, sinks_how;
  p.mask = agreed<reference::Mask>(o.mask, "--mask", f, o.from, "mask", parse_mask_text, mask_how)
               .value_or(reference::Mask::None);
  const auto scale = agreed<float>(o.scale, "--scale", f, o.from, "scale", parse_scale, scale_how);
  p.scale = scale.value_or(static_cast<float>(1.0 / std::sqrt(static_cast<double>(s.head_dim))));
  if (!scale) scale_how = "default fl32(1/sqrt(D))";
  // The window: --window L,R, or the input's metadata window_left and window_right.
  {
    std::string how_l, how_r;
    const auto l = agreed<std::int64_t>(o.window.empty() ? "" : std::to_string(parse_window(o.window, "--window").first),
                                        "--window (left)", f, o.from, "window_left", parse_window_side, how_l);
    const auto r = agreed<std::int64_t>(o.window.empty() ? "" : std::to_string(parse_window(o.window, "--window").second),
                                        "--window (right)", f, o.from, "window_right", parse_window_side, how_r);
    p.window_left = l.value_or(-1);
    p.window_right = r.value_or(-1);
    window_how = how_l;
  }
  auto parse_cap = [](const std::string& text, const std::string& where) {
    float x;
    if (const std::string why = read_finite_fp32(text, x); !why.empty()) fail(where + " = '" + text + "' " + why);
    if (x < 0) fail(where + " = '" + text + "' is negative; a soft cap is c > 0 (0 = none)");
    return x;
  };
  p.softcap = agreed<float>(o.softcap, "--softcap", f, o.from, "softcap", parse_cap, cap_how).value_or(0.0f);
  p.sinks = list_feature<float>(o.sinks, "--sinks", f, o.from, "sinks", parse_sinks);
  p.descale_q = list_feature<float>(o.descale_q, "--descale-q", f, o.from, "descale_q", parse_float_list);
  p.descale_k = list_feature<float>(o.descale_k, "--descale-k", f, o.from, "descale_k", parse_float_list);
  p.descale_v = list_feature<float>(o.descale_v, "--descale-v", f, o.from, "descale_v", parse_float_list);
  for (int t = 0; t < 3; ++t) m.sources[t] = in[t].source;

  // The layout: --layout (with --stride-* for strided), or the input's metadata (a golden file v3).
  const bool v2_input = f && f->metadata.count("format") && f->metadata.at("format") == golden::kGoldenFormatV2;
  std::string layout_name = o.layout;
  if (f && !v2_input && f->metadata.count("layout")) {
    const std::string& meta = f->metadata.at("layout");
    if (!layout_name.empty() && layout_name != meta)
      fail("--layout " + layout_name + " contradicts " + o.from + "'s metadata 'layout' = '" + meta + "'");
    layout_name = meta;
  }
  if (layout_name.empty()) layout_name = "bshd";
  const bool strides_given = !o.stride_q.empty() || !o.stride_k.empty() || !o.stride_v.empty() || !o.stride_o.empty();
  if (vp && layout_name != "bshd") fail("--layout " + layout_name + " with varlen inputs: varlen files are stored packed (bshd) only");
  if (layout_name == "strided") {
    golden::Layout l;
    l.name = "strided";
    for (auto [option, key, text, x] : {std::tuple{"--stride-q", "stride_q", &o.stride_q, &l.q},
                                        std::tuple{"--stride-k", "stride_k", &o.stride_k, &l.k},
                                        std::tuple{"--stride-v", "stride_v", &o.stride_v, &l.v},
                                        std::tuple{"--stride-o", "stride_o", &o.stride_o, &l.o}}) {
      std::string t = *text;
      if (t.empty() && f && f->metadata.count(key)) t = f->metadata.at(key);
      if (t.empty()) fail(std::string("--layout strided needs ") + option + " b,s,h,d (element strides)");
      const auto parsed = golden::parse_strides(t);
      if (!parsed) {
        // Four integers, one too long for the strides' 18 digits, is a range error, not a form error.
        static const std::regex four(R"(-?[0-9]+,-?[0-9]+,-?[0-9]+,-?[0-9]+)");
        fail(std::string(option) + " = '" + t + "' " +
             (std::regex_match(t, four) ? "has a stride out of range (at most 18 digits each)"
                                        : "is not four integers b,s,h,d"));
      }
      *x = *parsed;
    }
    m.layout = l;
  } else {
    if (strides_given) fail("--stride-q/k/v/o are for --layout strided (the named layouts derive their strides)");
    const auto named = golden::named_layout(layout_name, s);
    if (!named) fail("--layout '" + layout_name + "' is not bshd, bhsd, sbhd or strided");
    m.layout = *named;
  }
  if (const std::string why = golden::layout_problem(m.layout, s); !why.empty()) fail(why);

  std::ostringstream inputs;
  inputs << "given (golden make): Q, K, V from source_q, source_k, source_v; mask " << reference::to_string(p.mask)
         << " (" << mask_how << "); scale " << golden::hex_float(p.scale) << " (" << scale_how << ")";
  if (auto feature = reference::extended_feature(p)) inputs << "; features of format v3 from the options and the input";
  if (vp) inputs << "; varlen" << (vp->page_size ? " with paged KV" : "");
  m.inputs = inputs.str();
  // Everything above should have caught a bad problem; validate names what is left.
  if (vp) {
    const std::int64_t B = s.batch;
    if (vp->page_size > 0) {
      if (B < 1 || vp->block_table.size() % static_cast<std::size_t>(B) != 0)
        fail("--block-table has " + std::to_string(vp->block_table.size()) + " entries, not a multiple of B = " +
             std::to_string(B) + " (row-major [B, pages_per_sequence])");
      vp->pages_per_sequence = static_cast<std::int64_t>(vp->block_table.size()) / B;
    }
    vp->base = p;
    vp->q = std::move(in[0].bits);
    vp->k = std::move(in[1].bits);
    vp->v = std::move(in[2].bits);
    reference::validate(*vp);
    m.varlen = std::move(vp);
  } else {
    p.q = std::move(in[0].bits);
    p.k = std::move(in[1].bits);
    p.v = std::move(in[2].bits);
    reference::validate(p);
  }
  return m;
}

}  // namespace

void add_golden_make_options(CLI::App& cmd, GoldenMakeOptions& o) {
  cmd.add_option("--from", o.from,
                 "A safetensors file with tensors q [B,Sq,Hq,D], k, v [B,Sk,Hkv,D] (BF16, or F32 rounded to bf16 "
                 "RTNE); optional metadata 'mask' and 'scale'");
  cmd.add_option("--q", o.q, "Raw little-endian bf16 Q [B,Sq,Hq,D] (with --k, --v, --shape)");
  cmd.add_option("--k", o.k, "Raw little-endian bf16 K [B,Sk,Hkv,D]");
  cmd.add_option("--v", o.v, "Raw little-endian bf16 V [B,Sk,Hkv,D]");
  cmd.add_option("--shape", o.shape, "With raw inputs: B,Sq,Sk,Hq,Hkv,D")->delimiter(',');
  cmd.add_option("--mask", o.mask,
                 "none, causal_bottom_right or causal_top_left (default: the input's metadata 'mask', else none; "
                 "both given must agree)");
  cmd.add_option("--scale", o.scale,
                 "Softmax scale, decimal or C99 hex, rounded to the nearest fp32 (default: the input's metadata "
                 "'scale', else fl32(1/sqrt(D)); both given must agree)");
  cmd.add_option("--modes", o.modes,
                 "bf16 rounding modes: rtne, rtna, rtz (one file each; default: every mode the --kernel is built in, "
                 "all three but for aiter-pa, RTNA only)")
      ->delimiter(',');
  cmd.add_option("--out", o.out, "FILE.safetensors (one mode) or a directory (CASE.MODE.safetensors per mode)")
      ->required();
  cmd.add_option("--case-id", o.case_id, "The file's case_id (default: the input file's name without extension)");
  cmd.add_option("--description", o.description, "One line on the problem (default: names the inputs)");
  cmd.add_option("--kernel", o.kernel,
                 "Kernel whose output goes into o_kernel, through its adapter: attention-fwd (ours), aiter-fmha-v3, "
                 "aiter-pa (paged decode inputs: --page-size, --block-table, --seqused-k, --cu-seqlens-q), moonmath "
                 "(docs/peer-kernels.md)")
      ->check(CLI::IsMember(adapters::adapter_names()))
      ->capture_default_str();
  cmd.add_option("--code-object", o.code_object,
                 "The kernel's code objects: a directory or one file (default: the adapter's own)");
  cmd.add_option("--executor", o.executor,
                 "Executor of the kernel for o_kernel: simulator, hip, auto, or none (no o_kernel)")
      ->check(CLI::IsMember({"simulator", "hip", "auto", "none"}))
      ->capture_default_str();
  cmd.add_option("--note", o.notes, "Free provenance KEY=VALUE, stored as metadata 'note.KEY' (repeatable)");
  // The extended definition (docs/semantics.md; golden format v3). Each may also come from the
  // --from file (metadata or tensor of the same name); both given must agree.
  cmd.add_option("--window", o.window, "Sliding window L,R: keys diag-L .. diag+R visible (-1: unbounded side)");
  cmd.add_option("--softcap", o.softcap, "Soft cap c > 0: S <- c*tanh(S/c) after the scale, before the mask (0: none)");
  cmd.add_option("--sinks", o.sinks, "Attention sinks: Hq logits s0,s1,... (-inf: none for that head), or a file of them");
  cmd.add_option("--dv", o.dv, "Raw inputs: Dv, the head dim of V and O (default D; --from: v's last extent)");
  cmd.add_option("--dtype", o.dtype, "Input dtype: bf16, fp8_e4m3fnuz or fp8_e5m2fnuz (fp8: U8 tensors or 1-byte raw patterns)");
  cmd.add_option("--descale-q", o.descale_q, "fp8 descale of Q: 1 value, or B*Hkv values [B,Hkv]");
  cmd.add_option("--descale-k", o.descale_k, "fp8 descale of K: 1 value, or B*Hkv values [B,Hkv]");
  cmd.add_option("--descale-v", o.descale_v, "fp8 descale of V: 1 value, or B*Hkv values [B,Hkv]");
  cmd.add_option("--cu-seqlens-q", o.cu_seqlens_q, "Varlen: B+1 query offsets 0,..; q is then [rows_q,Hq,D]");
  cmd.add_option("--cu-seqlens-k", o.cu_seqlens_k, "Varlen: B+1 key offsets (not with paged KV); k, v [rows_k,Hkv,D|Dv]");
  cmd.add_option("--seqstart-q", o.seqstart_q, "Varlen: B+1 padded query starts (AITER group mode)");
  cmd.add_option("--seqstart-k", o.seqstart_k, "Varlen: B+1 padded key starts");
  cmd.add_option("--seqused-k", o.seqused_k, "Varlen: B used key lengths (a padded or paged KV cache)");
  cmd.add_option("--page-size", o.page_size, "Paged KV: slots per page; k, v are [pages,page_size,Hkv,D|Dv]");
  cmd.add_option("--block-table", o.block_table, "Paged KV: page indices, row-major [B, pages_per_sequence]");
  cmd.add_option("--layout", o.layout, "Strides the kernel is run with: bshd (default), bhsd, sbhd, or strided");
  cmd.add_option("--stride-q", o.stride_q, "--layout strided: Q's element strides b,s,h,d");
  cmd.add_option("--stride-k", o.stride_k, "--layout strided: K's element strides b,s,h,d");
  cmd.add_option("--stride-v", o.stride_v, "--layout strided: V's element strides b,s,h,d");
  cmd.add_option("--stride-o", o.stride_o, "--layout strided: O's element strides b,s,h,d");
  cmd.add_option("--threads", o.threads, "Oracle worker threads (0: all cores)")->capture_default_str();
}

int run_golden_make(const GoldenMakeOptions& o) {
  const auto modes = o.modes.empty() ? adapters::make_adapter(o.kernel)->features().modes : parse_modes(o.modes);
  if (modes.empty()) throw CLI::ValidationError("--modes", "no rounding mode given; expected rtne, rtna or rtz");
  // A file when the name ends in .safetensors in any case (X.SAFETENSORS is a file, not a directory).
  std::string ext = fs::path(o.out).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  const bool to_file = ext == ".safetensors";
  if (to_file && modes.size() > 1) {
    throw CLI::ValidationError("--out", "'" + o.out + "' is one file but " + std::to_string(modes.size()) +
                                            " modes were asked for; give a directory or one mode");
  }
  // The output location before the inputs are read and the oracle runs.
  if (to_file) check_output_file("--out", o.out);
  else check_output_dir("--out", o.out);
  std::map<std::string, std::string> notes;
  for (const auto& n : o.notes) {
    const auto eq = n.find('=');
    if (eq == std::string::npos || eq == 0) throw CLI::ValidationError("--note", "'" + n + "' is not KEY=VALUE");
    notes[golden::kNotePrefix + n.substr(0, eq)] = n.substr(eq + 1);
  }

  // Everything is read, checked and computed before the first file is written.
  const Made m = read_inputs(o);
  const std::string id = o.case_id.empty() ? m.default_id : o.case_id;
  auto executor = make_executor(o.executor);
  CodeObjects code(o.kernel, o.code_object);
  std::vector<std::pair<fs::path, golden::GoldenFile>> files;
  for (numerics::Rounding mode : modes) {
    golden::GoldenFile g;
    g.case_id = id;
    g.description = o.description.empty() ? "user inputs: " + m.sources[0] : o.description;
    g.problem = m.varlen ? reference::AttentionProblem{} : m.problem;
    g.varlen = m.varlen;
    g.layout = m.layout;
    g.mode = mode;
    g.provenance = notes;
    g.provenance["seeds"] = "none";
    g.provenance["inputs"] = m.inputs;
    g.provenance["generated_by"] = "cdna-verify golden make (tools/golden_make.cpp)";
    g.provenance["source_q"] = m.sources[0];
    g.provenance["source_k"] = m.sources[1];
    g.provenance["source_v"] = m.sources[2];
    golden::compute_reference_values(g, o.threads);
    fill_kernel_output(g, executor.get(), code);
    // A kernel named on the command line that does not take the problem is bad input, not a file
    // without the bits asked for.
    if (o.kernel != "attention-fwd" && executor && !g.kernel)
      fail("--kernel " + o.kernel + " does not take this problem (" + g.provenance.at("kernel") + "); nothing written");
    if (const std::string why = golden::stored_values_problem(g); !why.empty()) {
      fail("the reference values computed for " + std::string(numerics::to_string(mode)) +
           " are impossible under the definition (a bug in cdna-verify, nothing written): " + why);
    }
    const fs::path path = to_file ? fs::path(o.out) : fs::path(o.out) / golden_file_name(id, mode);
    files.emplace_back(path, std::move(g));
  }
  const fs::path dir = to_file ? fs::path(o.out).parent_path() : fs::path(o.out);
  if (!dir.empty()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) fail("cannot create '" + dir.string() + "': " + ec.message());
  }
  for (const auto& [path, g] : files) {
    golden::write_golden(path, g);
    std::error_code ec;
    std::string kernel;
    if (!g.kernel) {
      kernel = "  (no o_kernel: " + g.provenance.at("kernel") + ")";
    } else {
      // Our kernel's verdict on the user's problem: a failure is a finding about our kernel (and
      // `golden verify` of the file fails until it is fixed), not about the file.
      const auto v = golden::judge_candidate(g, g.kernel->o, g.kernel->judged_lse());
      kernel = v.pass()             ? "  (o_kernel passes)"
               : v.nothing_judged() ? "  (o_kernel: " + v.first_failure() + ")"
                                    : "  (o_kernel FAILS the pass rule: " + v.first_failure() + ")";
    }
    std::cout << path.string() << "  " << fs::file_size(path, ec) << " bytes" << kernel << "\n";
  }
  return 0;
}

}  // namespace cdna::tools
