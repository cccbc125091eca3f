#include "audit/compare/crosscheck.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "audit/output/device_report.hpp"
#include "audit/output/exit_codes.hpp"

namespace cdna::audit {
namespace {

std::int64_t product(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::string multi_index(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t k = shape.size(); k-- > 0;) {
    idx[k] = shape[k] ? flat % shape[k] : 0;
    flat = shape[k] ? flat / shape[k] : 0;
  }
  std::string s = "[";
  for (std::size_t k = 0; k < idx.size(); ++k) s += (k ? "," : "") + std::to_string(idx[k]);
  return s + "]";
}

// Counts the differing elements of one tensor and records the first one of the whole comparison.
template <class T>
void compare_tensor(const char* name, const std::vector<T>& a, const std::vector<T>& b,
                    const std::vector<std::int64_t>& shape, OutputComparison& c) {
  if (static_cast<std::int64_t>(a.size()) != product(shape) || a.size() != b.size()) {
    throw std::invalid_argument(std::string("crosscheck: tensor ") + name + " has " + std::to_string(a.size()) +
                                " and " + std::to_string(b.size()) + " elements; its shape needs " +
                                std::to_string(product(shape)));
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::uint32_t x, y;
    double vx, vy;
    if constexpr (sizeof(T) == 2) {  // bf16 bits: the value is the fp32 with these high 16 bits
      x = a[i], y = b[i];
      vx = std::bit_cast<float>(x << 16), vy = std::bit_cast<float>(y << 16);
    } else {
      x = std::bit_cast<std::uint32_t>(a[i]), y = std::bit_cast<std::uint32_t>(b[i]);
      vx = a[i], vy = b[i];
    }
    if (x == y) continue;
    if (c.differing++ == 0) {
      const auto flat = static_cast<std::int64_t>(i);
      c.first = FirstDifference{name, flat, multi_index(flat, shape), x, y, vx, vy};
    }
  }
  c.elements += static_cast<std::int64_t>(a.size());
}

std::string hex_bits(std::uint32_t bits, const std::string& tensor) {
  char buf[16];
  std::snprintf(buf, sizeof buf, tensor == "o" ? "0x%04x" : "0x%08x", bits);
  return buf;
}

std::string decimal(double v) {
  std::ostringstream o;
  o << std::setprecision(9) << v;
  return o.str();
}

}  // namespace

device::AttentionOutput run_ours_in_layout(const golden::GoldenFile& g, device::Executor& executor) {
  if (g.varlen) throw std::invalid_argument("crosscheck: layouts of varlen files are not run");
  const reference::AttentionProblem& p = g.problem;
  if (auto why = device::attention_unsupported_reason(p)) throw std::invalid_argument(*why);
  const reference::AttentionShape& s = p.shape;
  auto strides = [](const golden::Strides& t, const char* name) {
    if (t[3] != 1) throw std::invalid_argument(std::string("crosscheck: ") + name + " has d stride " + std::to_string(t[3]) + "; the kernel reads rows of stride 1");
    return device::TensorStrides{t[0], t[1], t[2]};
  };
  const device::AttentionLayout lay{strides(g.layout.q, "Q"), strides(g.layout.k, "K"), strides(g.layout.v, "V"),
                                    strides(g.layout.o, "O")};
  constexpr std::uint16_t kGap = 0x7FC0;  // quiet NaN: a gap read by mistake shows in the output
  // Element [b, i, h, d] of a BSHD tensor to and from its strided buffer.
  auto for_each = [](std::int64_t heads, std::int64_t seq, std::int64_t batch, std::int64_t dim,
                     const device::TensorStrides& t, auto&& f) {
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t i = 0; i < seq; ++i)
        for (std::int64_t h = 0; h < heads; ++h)
          for (std::int64_t d = 0; d < dim; ++d)
            f(static_cast<std::size_t>(((b * seq + i) * heads + h) * dim + d),
              static_cast<std::size_t>(b * t.b + i * t.s + h * t.h + d));
  };
  auto scatter = [&](const std::vector<std::uint16_t>& bshd, const device::TensorStrides& t, std::int64_t seq,
                     std::int64_t heads, std::int64_t dim) {
    std::vector<std::uint16_t> buf(static_cast<std::size_t>(device::strided_extent(t, s.batch, seq, heads, dim)), kGap);
    for_each(heads, seq, s.batch, dim, t, [&](std::size_t from, std::size_t to) { buf[to] = bshd[from]; });
    return buf;
  };
  const auto q = scatter(p.q, lay.q, s.seqlen_q, s.heads_q, s.head_dim);
  const auto k = scatter(p.k, lay.k, s.seqlen_k, s.heads_kv, s.head_dim);
  const auto v = scatter(p.v, lay.v, s.seqlen_k, s.heads_kv, s.dv());
  std::vector<std::uint16_t> o(static_cast<std::size_t>(device::strided_extent(lay.o, s.batch, s.seqlen_q, s.heads_q, s.dv())),
                               kGap);
  device::AttentionOutput out;
  out.lse.assign(static_cast<std::size_t>(s.lse_elements()), std::numeric_limits<float>::quiet_NaN());
  device::StridedAttention a;
  a.shape = s, a.mask = p.mask, a.scale = p.scale, a.layout = lay;
  a.window_left = p.window_left, a.window_right = p.window_right;
  a.q = q, a.k = k, a.v = v, a.o = o, a.lse = out.lse;
  const std::vector<std::byte> code = device::read_file(device::attention_code_object(g.mode), "attention code object");
  device::launch_attention(executor, code, a);
  out.o.assign(static_cast<std::size_t>(s.o_elements()), kGap);
  for_each(s.heads_q, s.seqlen_q, s.batch, s.dv(), lay.o, [&](std::size_t to, std::size_t from) { out.o[to] = o[from]; });
  return out;
}

OutputComparison compare_outputs(const device::AttentionOutput& a, const device::AttentionOutput& b,
                                 const std::vector<std::int64_t>& o_shape, const std::vector<std::int64_t>& lse_shape) {
  OutputComparison c;
  compare_tensor("o", a.o, b.o, o_shape, c);
  if (!a.lse.empty() || !b.lse.empty()) compare_tensor("lse", a.lse, b.lse, lse_shape, c);
  return c;
}

std::string describe(const OutputComparison& c) {
  if (c.equal()) return "bitwise equal (" + std::to_string(c.elements) + " elements)";
  const FirstDifference& f = *c.first;
  return std::to_string(c.differing) + " of " + std::to_string(c.elements) + " differ; first " + f.tensor + f.index +
         " " + hex_bits(f.bits_a, f.tensor) + " (" + decimal(f.value_a) + ") vs " + hex_bits(f.bits_b, f.tensor) +
         " (" + decimal(f.value_b) + ")";
}

const char* to_string(CrosscheckRow::Status s) {
  switch (s) {
    case CrosscheckRow::Status::Equal: return "equal";
    case CrosscheckRow::Status::Differ: return "DIFFER";
    case CrosscheckRow::Status::Skipped: return "skipped";
    case CrosscheckRow::Status::Error: return "ERROR";
  }
  return "?";
}

int CrosscheckReport::count(CrosscheckRow::Status s) const {
  int n = 0;
  for (const CrosscheckRow& r : rows) n += r.status == s;
  return n;
}

int CrosscheckReport::exit_code() const {
  using Status = CrosscheckRow::Status;
  if (count(Status::Differ) + count(Status::Error) > 0) return kExitFail;
  return count(Status::Equal) == 0 ? kExitBadInput : kExitPass;
}

namespace {
std::string row_text(const CrosscheckRow& r) {
  return r.status == CrosscheckRow::Status::Equal || r.status == CrosscheckRow::Status::Differ ? describe(r.comparison)
                                                                                                : r.note;
}
}  // namespace

std::string crosscheck_table(const CrosscheckReport& r) {
  std::ostringstream o;
  o << "reference: " << description_line(r.reference) << "\nother:     " << description_line(r.other) << "\n";
  for (const std::string& k : r.kernels_skipped) o << "skip " << k << "\n";
  std::size_t file_width = 12, kernel_width = 7;  // the widest file name and kernel, so the columns line up
  for (const CrosscheckRow& row : r.rows) {
    file_width = std::max(file_width, row.file.size() + 2);
    kernel_width = std::max(kernel_width, row.kernel.size() + 2);
  }
  const auto fw = static_cast<int>(file_width), kw = static_cast<int>(kernel_width);
  o << std::left << std::setw(fw) << "golden file" << std::setw(kw) << "kernel" << std::setw(9) << "result"
    << "detail\n";
  for (const CrosscheckRow& row : r.rows) {
    o << std::left << std::setw(fw) << row.file << std::setw(kw) << row.kernel << std::setw(9) << to_string(row.status)
      << row_text(row) << "\n";
  }
  return o.str();
}

std::string crosscheck_json(const CrosscheckReport& r) {
  nlohmann::ordered_json j;
  j["reference_executor"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : r.reference) j["reference_executor"][k] = v;
  j["other_executor"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : r.other) j["other_executor"][k] = v;
  j["kernels_skipped"] = r.kernels_skipped;
  j["counts"] = {{"equal", r.count(CrosscheckRow::Status::Equal)},
                 {"differ", r.count(CrosscheckRow::Status::Differ)},
                 {"error", r.count(CrosscheckRow::Status::Error)},
                 {"skipped", r.count(CrosscheckRow::Status::Skipped)}};
  j["seconds"] = r.seconds;
  auto& rows = j["cases"] = nlohmann::ordered_json::array();
  for (const CrosscheckRow& row : r.rows) {
    nlohmann::ordered_json x{{"file", row.file}, {"kernel", row.kernel}, {"mode", row.mode},
                             {"result", row.status == CrosscheckRow::Status::Differ ? "differ" : to_string(row.status)}};
    if (row.status == CrosscheckRow::Status::Skipped || row.status == CrosscheckRow::Status::Error) {
      x["reason"] = row.note;
    } else {
      x["elements"] = row.comparison.elements;
      x["differing"] = row.comparison.differing;
      if (const auto& f = row.comparison.first) {
        x["first_difference"] = {{"tensor", f->tensor}, {"index", f->index},     {"flat_index", f->flat_index},
                                 {"bits_reference", hex_bits(f->bits_a, f->tensor)},
                                 {"bits_other", hex_bits(f->bits_b, f->tensor)},
                                 {"value_reference", decimal(f->value_a)}, {"value_other", decimal(f->value_b)}};
      }
    }
    rows.push_back(std::move(x));
  }
  return j.dump(2) + "\n";
}

std::string crosscheck_markdown(const CrosscheckReport& r) {
  std::ostringstream md;
  md << "# Simulator vs " << (r.other.empty() ? "other" : r.other.front().second) << ": cdna-verify crosscheck\n\n"
     << "Reference executor: " << description_line(r.reference) << ".\n\nOther executor: " << description_line(r.other)
     << ".\n\n"
     << r.count(CrosscheckRow::Status::Equal) << " bitwise equal, " << r.count(CrosscheckRow::Status::Differ)
     << " differing, " << r.count(CrosscheckRow::Status::Error) << " errors, "
     << r.count(CrosscheckRow::Status::Skipped) << " skipped (docs/ci.md \"Simulator vs hardware\").\n\n";
  for (const std::string& k : r.kernels_skipped) md << "- skipped kernel " << k << "\n";
  if (!r.kernels_skipped.empty()) md << "\n";
  md << "| golden file | kernel | mode | result | detail |\n|---|---|---|---|---|\n";
  for (const CrosscheckRow& row : r.rows) {
    md << "| " << row.file << " | " << row.kernel << " | " << row.mode << " | " << to_string(row.status) << " | "
       << row_text(row) << " |\n";
  }
  return md.str();
}

CrosscheckRow crosscheck_file(const golden::GoldenFile& g, const std::string& file, const std::string& kernel,
                              CodeObjects& code, device::Executor& reference, device::Executor& other) {
  using Status = CrosscheckRow::Status;
  CrosscheckRow row;
  row.file = file;
  row.kernel = kernel;
  row.mode = numerics::to_string(g.mode);
  // Our kernel runs dense files in their own layout here (the golden tools run BSHD only).
  const bool in_layout = kernel == "attention-fwd" && !g.varlen && g.layout.name != "bshd";
  auto run_on = [&](device::Executor& e) { return in_layout ? run_ours_in_layout(g, e) : run_golden_kernel(g, e, code); };
  if (auto why = in_layout ? device::attention_unsupported_reason(g.problem) : golden_kernel_reason(g, code)) {
    row.note = *why;
    return row;
  }
  std::optional<device::AttentionOutput> a, b;
  try {
    a = run_on(reference);
    b = run_on(other);
  } catch (const std::exception& e) {
    row.status = Status::Error;
    row.note = std::string(a ? other.name() : "simulator") + ": " + e.what();
  }
  if (b) {
    row.comparison = compare_outputs(*a, *b, g.o_shape(), g.lse_shape());
    row.status = row.comparison.equal() ? Status::Equal : Status::Differ;
  }
  return row;
}

}  // namespace cdna::audit
