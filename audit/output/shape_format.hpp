// How reports write an attention shape (one text form for tables, one JSON object) and a figure.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "reference/attention/attention.hpp"

namespace cdna::audit {

std::string shape_text(const reference::AttentionShape& s);  // "B1 Sq17 Sk128 H32/8 D128"
nlohmann::json shape_json(const reference::AttentionShape& s);  // {"B":1,"Sq":17,"Sk":128,"Hq":32,"Hkv":8,"D":128}
// A figure with `precision` significant digits, as std::ostream writes it (0.000123, 1.5e+07, inf).
std::string figure_text(double x, int precision = 3);

}  // namespace cdna::audit
