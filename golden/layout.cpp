#include "golden/layout.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <tuple>
#include <vector>

namespace cdna::golden {
namespace {

using Extents = std::array<std::int64_t, 4>;  // (b, s, h, d)

// Contiguous strides for extents `e` with dims stored outermost first in `order` (indices into
// b, s, h, d).
Strides contiguous(const Extents& e, const std::array<int, 4>& order) {
  Strides x{};
  std::int64_t step = 1;
  for (int n = 3; n >= 0; --n) {
    x[static_cast<std::size_t>(order[static_cast<std::size_t>(n)])] = step;
    step *= e[static_cast<std::size_t>(order[static_cast<std::size_t>(n)])];
  }
  return x;
}

struct Extents4 {
  Extents q, k, v, o;
};
Extents4 extents(const reference::AttentionShape& s) {
  return {{s.batch, s.seqlen_q, s.heads_q, s.head_dim},
          {s.batch, s.seqlen_k, s.heads_kv, s.head_dim},
          {s.batch, s.seqlen_k, s.heads_kv, s.dv()},
          {s.batch, s.seqlen_q, s.heads_q, s.dv()}};
}

std::string overlap_problem(const char* tensor, const Strides& x, const Extents& e) {
  std::vector<std::pair<std::int64_t, std::int64_t>> dims;  // (stride, extent) of dims with extent > 1
  for (std::size_t n = 0; n < 4; ++n) {
    if (x[n] < 0) return std::string("stride_") + tensor + " = " + strides_text(x) + " has a negative stride";
    if (e[n] > 1 && x[n] == 0)
      return std::string("stride_") + tensor + " = " + strides_text(x) + " is 0 on a dim of extent " +
             std::to_string(e[n]) + "; it must be >= 1";
    if (e[n] > 1) dims.emplace_back(x[n], e[n]);
  }
  std::sort(dims.begin(), dims.end());
  for (std::size_t n = 1; n < dims.size(); ++n) {
    if (dims[n].first < dims[n - 1].first * dims[n - 1].second)
      return std::string("stride_") + tensor + " = " + strides_text(x) +
             " lets two elements share an address (a stride below the previous stride times its extent)";
  }
  return "";
}

}  // namespace

std::optional<Layout> named_layout(const std::string& name, const reference::AttentionShape& s) {
  std::array<int, 4> order{};
  if (name == "bshd") order = {0, 1, 2, 3};
  else if (name == "bhsd") order = {0, 2, 1, 3};
  else if (name == "sbhd") order = {1, 0, 2, 3};
  else return std::nullopt;
  const Extents4 e = extents(s);
  return Layout{name, contiguous(e.q, order), contiguous(e.k, order), contiguous(e.v, order), contiguous(e.o, order)};
}

std::string layout_problem(const Layout& layout, const reference::AttentionShape& s) {
  if (layout.name == "strided") {
    const Extents4 e = extents(s);
    for (auto [tensor, x, ext] : {std::tuple{"q", layout.q, e.q}, std::tuple{"k", layout.k, e.k},
                                  std::tuple{"v", layout.v, e.v}, std::tuple{"o", layout.o, e.o}}) {
      if (std::string why = overlap_problem(tensor, x, ext); !why.empty()) return why;
    }
    return "";
  }
  const auto named = named_layout(layout.name, s);
  if (!named) return "layout '" + layout.name + "' is not bshd, bhsd, sbhd or strided";
  if (named->q != layout.q || named->k != layout.k || named->v != layout.v || named->o != layout.o)
    return "the strides are not those of layout '" + layout.name + "' for this shape (q " + strides_text(named->q) +
           ", k " + strides_text(named->k) + ", v " + strides_text(named->v) + ", o " + strides_text(named->o) +
           "); use layout 'strided' for other strides";
  return "";
}

std::string strides_text(const Strides& x) {
  return std::to_string(x[0]) + "," + std::to_string(x[1]) + "," + std::to_string(x[2]) + "," + std::to_string(x[3]);
}

std::optional<Strides> parse_strides(const std::string& text) {
  Strides x{};
  std::size_t at = 0;
  for (std::size_t n = 0; n < 4; ++n) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    const std::string part = text.substr(at, end - at);
    if (part.empty() || part.size() > 18 || !std::all_of(part.begin() + (part[0] == '-'), part.end(), ::isdigit) ||
        part == "-")
      return std::nullopt;
    x[n] = std::stoll(part);
    if (n < 3 && end == text.size()) return std::nullopt;
    at = end + 1;
  }
  if (at <= text.size()) return std::nullopt;  // more than four
  return x;
}

}  // namespace cdna::golden
