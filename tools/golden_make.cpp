#include "tools/golden_make.hpp"
#include "tools/cli_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <tuple>

#include "device/attention_launcher.hpp"
#include "golden/digest.hpp"
#include "golden/golden_file.hpp"
#include "golden/safetensors.hpp"
#include "golden/stored_values.hpp"
#include "tools/cli_modes.hpp"
#include "tools/golden_command.hpp"
#include "tools/golden_kernel.hpp"

namespace cdna::tools {
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

// A tensor of the --from file: BF16 as stored, F32 rounded to bf16 RTNE.
Input tensor_input(const golden::SafetensorsFile& f, const std::string& label, const std::string& name,
                   const std::string& file_print) {
  const golden::Tensor* t = f.find(name);
  if (!t) {
    std::string have;
    for (const auto& [n, unused] : f.tensors) have += (have.empty() ? "" : ", ") + n;
    fail(label + ": no tensor '" + name + "'; golden make needs tensors q, k, v (it has: " +
         (have.empty() ? "none" : have) + ")");
  }
  if (t->shape.size() != 4) {
    fail(label + ": tensor '" + name + "' has shape " + shape_text(t->shape) + ", expected rank 4 (BSHD: [B,S,H,D])");
  }
  for (std::int64_t e : t->shape)
    if (e > kMaxExtent) fail(label + ": tensor '" + name + "' has an extent above 2147483647");
  Input in;
  in.shape = t->shape;
  const std::string what = std::string(golden::to_string(t->dtype)) + " " + shape_text(t->shape);
  if (t->dtype == golden::Dtype::BF16) {
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
         "; golden make takes BF16 (bits kept) or F32 (rounded to bf16 RTNE)");
  }
  return in;
}

// A raw little-endian bf16 file that must hold exactly the elements of `shape`.
Input raw_input(const std::string& path, const char* name, const Shape& shape) {
  const std::vector<std::byte> bytes = device::read_file(path, std::string("--") + name + " input");
  std::int64_t elements = 1;
  for (std::int64_t e : shape) elements *= e;
  const std::size_t want = static_cast<std::size_t>(elements) * 2;
  if (bytes.size() != want) {
    fail(path + ": " + std::to_string(bytes.size()) + " bytes, but " + name + " " + shape_text(shape) +
         " of --shape needs " + std::to_string(elements) + " x 2 = " + std::to_string(want) +
         " (raw little-endian bf16)");
  }
  Input in;
  in.shape = shape;
  in.bits.resize(static_cast<std::size_t>(elements));
  for (std::size_t i = 0; i < in.bits.size(); ++i) {
    in.bits[i] = static_cast<std::uint16_t>(std::to_integer<unsigned>(bytes[2 * i]) |
                                            (std::to_integer<unsigned>(bytes[2 * i + 1]) << 8));
  }
  in.source = fingerprint(path, bytes) + ", raw bf16 " + shape_text(shape);
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

struct Made {
  reference::AttentionProblem problem;
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
  if (raw) {
    if (o.q.empty() || o.k.empty() || o.v.empty()) fail("raw inputs need all of --q, --k and --v");
    if (o.shape.size() != 6) fail("raw inputs need --shape B,Sq,Sk,Hq,Hkv,D (6 integers)");
    for (std::int64_t e : o.shape)
      if (e < 0 || e > kMaxExtent) fail("--shape: extents must be 0 .. 2147483647, got " + shape_text(o.shape));
    const auto& x = o.shape;
    const auto [B, Sq, Sk, Hq, Hkv, D] = std::tuple{x[0], x[1], x[2], x[3], x[4], x[5]};
    check_shape({B, Sq, Sk, Hq, Hkv, D});  // before reading: outside the definition there is no problem to read
    in[0] = raw_input(o.q, "Q", {B, Sq, Hq, D});
    in[1] = raw_input(o.k, "K", {B, Sk, Hkv, D});
    in[2] = raw_input(o.v, "V", {B, Sk, Hkv, D});
    m.default_id = fs::path(o.q).stem().string();
  } else {
    if (!o.shape.empty()) fail("--shape is for raw inputs; with --from the shape comes from the tensors");
    const std::vector<std::byte> bytes = device::read_file(o.from, "--from input");
    file = golden::parse_safetensors(bytes, o.from);
    // A metadata key make does not know may name a feature the definition lacks (a soft cap, a
    // window): dropping it silently would make a golden file of another problem. Known: the
    // golden format's keys (a golden file is a valid input), its provenance keys, and 'format'
    // (PyTorch's safetensors writer stores "format": "pt").
    for (const auto& [key, value] : file->metadata) {
      const auto& own = golden::metadata_keys();
      if (key != "format" && std::find(own.begin(), own.end(), key) == own.end() && !golden::is_provenance_key(key)) {
        fail(o.from + ": metadata key '" + key + "' is not something golden make reads (it reads 'mask' and 'scale'); "
             "if it names a feature (e.g. a soft cap), the definition has none, so remove it, or keep it as "
             "provenance under 'note." + key + "'");
      }
    }
    const std::string print = fingerprint(o.from, bytes);
    const char* names[] = {"q", "k", "v"};
    for (int t = 0; t < 3; ++t) in[t] = tensor_input(*file, o.from, names[t], print);
    if (in[1].shape != in[2].shape) {
      fail(o.from + ": tensors 'k' " + shape_text(in[1].shape) + " and 'v' " + shape_text(in[2].shape) +
           " differ; both must be [B,Sk,Hkv,D]");
    }
    if (in[0].shape[0] != in[1].shape[0] || in[0].shape[3] != in[1].shape[3]) {
      fail(o.from + ": tensor 'q' " + shape_text(in[0].shape) + " and 'k' " + shape_text(in[1].shape) +
           " disagree in B or D; q is [B,Sq,Hq,D], k and v [B,Sk,Hkv,D]");
    }
    m.default_id = fs::path(o.from).stem().string();
  }
  reference::AttentionShape& s = m.problem.shape;
  s = {in[0].shape[0], in[0].shape[1], in[1].shape[1], in[0].shape[2], in[1].shape[2], in[0].shape[3]};
  check_shape(s);
  const golden::SafetensorsFile* f = file ? &*file : nullptr;
  std::string mask_how, scale_how;
  m.problem.mask = agreed<reference::Mask>(o.mask, "--mask", f, o.from, "mask", parse_mask_text, mask_how)
                       .value_or(reference::Mask::None);
  const auto scale = agreed<float>(o.scale, "--scale", f, o.from, "scale", parse_scale, scale_how);
  m.problem.scale = scale.value_or(static_cast<float>(1.0 / std::sqrt(static_cast<double>(s.head_dim))));
  if (!scale) scale_how = "default fl32(1/sqrt(D))";
  m.problem.q = std::move(in[0].bits);
  m.problem.k = std::move(in[1].bits);
  m.problem.v = std::move(in[2].bits);
  for (int t = 0; t < 3; ++t) m.sources[t] = in[t].source;
  m.inputs = "given (golden make): Q, K, V from source_q, source_k, source_v; mask " +
             std::string(reference::to_string(m.problem.mask)) + " (" + mask_how + "); scale " +
             golden::hex_float(m.problem.scale) + " (" + scale_how + ")";
  reference::validate(m.problem);  // everything above should have caught it; this names it if not
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
  cmd.add_option("--modes", o.modes, "bf16 rounding modes: rtne, rtna, rtz (one file each)")
      ->delimiter(',')
      ->capture_default_str();
  cmd.add_option("--out", o.out, "FILE.safetensors (one mode) or a directory (CASE.MODE.safetensors per mode)")
      ->required();
  cmd.add_option("--case-id", o.case_id, "The file's case_id (default: the input file's name without extension)");
  cmd.add_option("--description", o.description, "One line on the problem (default: names the inputs)");
  cmd.add_option("--executor", o.executor,
                 "Executor of our kernel for o_kernel: simulator, hip, auto, or none (no o_kernel)")
      ->check(CLI::IsMember({"simulator", "hip", "auto", "none"}))
      ->capture_default_str();
  cmd.add_option("--note", o.notes, "Free provenance KEY=VALUE, stored as metadata 'note.KEY' (repeatable)");
  cmd.add_option("--threads", o.threads, "Oracle worker threads (0: all cores)")->capture_default_str();
}

int run_golden_make(const GoldenMakeOptions& o) {
  const auto modes = parse_modes(o.modes);
  if (modes.empty()) throw CLI::ValidationError("--modes", "no rounding mode given; expected rtne, rtna or rtz");
  const bool to_file = fs::path(o.out).extension() == ".safetensors";
  if (to_file && modes.size() > 1) {
    throw CLI::ValidationError("--out", "'" + o.out + "' is one file but " + std::to_string(modes.size()) +
                                            " modes were asked for; give a directory or one mode");
  }
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
  CodeObjects code;
  std::vector<std::pair<fs::path, golden::GoldenFile>> files;
  for (numerics::Rounding mode : modes) {
    golden::GoldenFile g;
    g.case_id = id;
    g.description = o.description.empty() ? "user inputs: " + m.sources[0] : o.description;
    g.problem = m.problem;
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
      const auto v = golden::judge_candidate(g, g.kernel->o, std::span<const float>(g.kernel->lse));
      kernel = v.pass()                    ? "  (o_kernel passes)"
               : !v.comparison.judged() ? "  (o_kernel: nothing to judge, the output is empty)"
                                        : "  (o_kernel FAILS the pass rule: " + v.first_failure() + ")";
    }
    std::cout << path.string() << "  " << fs::file_size(path, ec) << " bytes" << kernel << "\n";
  }
  return 0;
}

}  // namespace cdna::tools
