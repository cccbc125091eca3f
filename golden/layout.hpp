// Memory layouts of a golden file (format v3): the element strides a kernel must be run with.
// The stored values are always the canonical contiguous tensors (BSHD); the layout says how the
// harness scatters them into the kernel's buffers (gaps hold NaN), docs/golden-files.md "Layouts".
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "reference/attention/attention.hpp"

namespace cdna::golden {

// Element strides of one tensor over its dims (b, s, h, d), in that order whatever the layout.
using Strides = std::array<std::int64_t, 4>;

struct Layout {
  std::string name = "bshd";  // bshd, bhsd, sbhd (named), or strided (explicit)
  Strides q{}, k{}, v{}, o{};
};

// The layout `name` (bshd, bhsd, sbhd) of a dense problem of shape `s`: contiguous strides in that
// dim order for Q [B,Sq,Hq,D], K [B,Sk,Hkv,D], V [B,Sk,Hkv,Dv], O [B,Sq,Hq,Dv]. nullopt for any
// other name ("strided" has no derived strides).
std::optional<Layout> named_layout(const std::string& name, const reference::AttentionShape& s);

// "" if `layout` is usable for shape `s`, else one line: an unknown name, a named layout whose
// strides are not that layout's, or explicit strides that are negative, 0 on a dim of extent > 1,
// or let two elements share an address (checked as: with the dims of extent > 1 sorted by
// stride, each stride >= the previous stride times its extent, a sufficient condition).
std::string layout_problem(const Layout& layout, const reference::AttentionShape& s);

// "b,s,h,d" and back (nullopt unless exactly four integers).
std::string strides_text(const Strides& x);
std::optional<Strides> parse_strides(const std::string& text);

}  // namespace cdna::golden
