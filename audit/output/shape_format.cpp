#include "audit/output/shape_format.hpp"

#include <iomanip>
#include <sstream>

namespace cdna::audit {

std::string shape_text(const reference::AttentionShape& s) {
  return "B" + std::to_string(s.batch) + " Sq" + std::to_string(s.seqlen_q) + " Sk" + std::to_string(s.seqlen_k) +
         " H" + std::to_string(s.heads_q) + "/" + std::to_string(s.heads_kv) + " D" + std::to_string(s.head_dim);
}

nlohmann::json shape_json(const reference::AttentionShape& s) {
  return {{"B", s.batch}, {"Sq", s.seqlen_q}, {"Sk", s.seqlen_k}, {"Hq", s.heads_q}, {"Hkv", s.heads_kv}, {"D", s.head_dim}};
}

std::string figure_text(double x, int precision) {
  std::ostringstream o;
  o << std::setprecision(precision) << x;
  return o.str();
}

}  // namespace cdna::audit
