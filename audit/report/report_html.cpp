#include "audit/report/report_html.hpp"
#include "audit/output/shape_format.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "adapters/code_object_mode.hpp"
#include "audit/report/rounding_audit.hpp"

namespace cdna::audit {
namespace {

const char* mode_color(const std::string& mode) {
  if (mode == "RTNE") return "#1f5fa8";
  if (mode == "RTNA") return "#d9730d";
  if (mode == "RTZ") return "#2e8540";
  return "#666666";
}

// gnuplot's SVG uses fixed ids (clip paths, point symbols): prefix them so several plots can
// share one page; drop the XML prologue, which has no place inside HTML.
std::string inline_svg(std::string svg, const std::string& prefix) {
  if (const auto start = svg.find("<svg"); start != std::string::npos) svg.erase(0, start);
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (std::size_t at = svg.find(from); at != std::string::npos; at = svg.find(from, at + to.size()))
      svg.replace(at, from.size(), to);
  };
  replace_all(" id='", " id='" + prefix);
  replace_all(" id=\"", " id=\"" + prefix);
  replace_all("href='#", "href='#" + prefix);
  replace_all("href=\"#", "href=\"#" + prefix);
  replace_all("url(#", "url(#" + prefix);
  return svg;
}

std::string terminal(int width, int height) {
  return "set terminal svg size " + std::to_string(width) + "," + std::to_string(height) +
         " enhanced font 'DejaVu Sans,12' background '#ffffff'\nset output 'plot.svg'\n"
         "set border lw 1 lc rgb '#444444'\nset grid lc rgb '#dddddd' lw 1\nset key top left box opaque\n";
}

struct Plot {
  std::string title, caption, script;
  std::map<std::string, std::string> data;  // empty: nothing to plot
};

bool has_ratio(const CaseResult& r) { return r.compared && r.comparison.floor_rel_rms_o > 0; }

Plot floor_ratio_plot(const AuditResult& result, const std::vector<std::string>& modes) {
  Plot p{"Relative RMS error / floor, per case",
         "Each dot is one case in one rounding mode: its rel-RMS error of O over the floor model's. "
         "A correct kernel sits near 1; the verdict fails a case above 2 (dashed).",
         "", {}};
  std::map<std::string, std::ostringstream> files;
  std::ostringstream tics;
  int x = 0, n_ids = 0;
  std::string last_id;
  for (const CaseResult& r : result.rows) {
    if (!has_ratio(r)) continue;
    if (r.id != last_id) {
      ++x;
      ++n_ids;
      last_id = r.id;
      tics << (n_ids > 1 ? ", " : "") << gnuplot_quote(r.id) << " " << x;
    }
    // Modes side by side around the case's x, so equal values do not hide each other.
    const auto mi = static_cast<double>(std::find(modes.begin(), modes.end(), r.mode) - modes.begin());
    const double dx = modes.size() > 1 ? 0.5 * (mi / static_cast<double>(modes.size() - 1) - 0.5) : 0.0;
    files[r.mode] << x + dx << " " << std::setprecision(9) << r.comparison.rel_rms_err_o / r.comparison.floor_rel_rms_o
                  << "\n";
  }
  const int width = std::clamp(300 + 14 * n_ids, 800, 1600);
  std::ostringstream s;
  s << terminal(width, 440) << "set ylabel 'rel-RMS error / floor'\nset xrange [0:" << x + 1 << "]\n"
    << "set yrange [0:2.5<*]\nset arrow from graph 0, first 2 to graph 1, first 2 nohead dt 2 lw 2 lc rgb '#b00020'\n"
    << "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 3 lw 1 lc rgb '#888888'\n";
  if (n_ids <= 80) s << "set xtics rotate by -60 font ',9' (" << tics.str() << ")\nset bmargin 6\n";
  else s << "set xlabel 'case (in report order)'\n";
  s << "plot ";
  bool first = true;
  for (const std::string& m : modes) {
    if (!files.count(m)) continue;
    const std::string file = "ratio_" + m + ".dat";
    p.data[file] = files[m].str();
    s << (first ? "" : ", ") << gnuplot_quote(file) << " using 1:2 with points pt 7 ps 0.8 lc rgb '"
      << mode_color(m) << "' title " << gnuplot_quote(m);
    first = false;
  }
  s << "\n";
  p.script = s.str();
  return p;
}

Plot growth_plot(const AuditResult& result, const std::vector<std::string>& modes) {
  Plot p{"Relative RMS error against Sk, per mode",
         "Filled: the kernel's rel-RMS error of O; open: the floor model's for the same case and mode. "
         "Both axes logarithmic; each mode has its own marker and sits slightly apart in Sk (a few percent), so "
         "that modes with equal figures (RTNE and RTNA off ties) do not hide each other.",
         "", {}};
  std::map<std::string, std::ostringstream> files;
  for (const CaseResult& r : result.rows) {
    if (!has_ratio(r) || r.comparison.rel_rms_err_o <= 0 || r.shape.seqlen_k <= 0) continue;
    const auto mi = static_cast<double>(std::find(modes.begin(), modes.end(), r.mode) - modes.begin());
    const double x = static_cast<double>(r.shape.seqlen_k) * (1 + 0.04 * (mi - 1));  // apart on the log axis
    files[r.mode] << x << " " << std::setprecision(9) << r.comparison.rel_rms_err_o << " "
                  << r.comparison.floor_rel_rms_o << "\n";
  }
  std::ostringstream s;
  s << terminal(800, 460) << "set logscale xy\nset xlabel 'Sk (keys)'\nset ylabel 'rel-RMS error of O'\n"
    << "set format y '10^{%T}'\nset key bottom right box opaque\nplot ";
  bool first = true;
  // Per mode in `modes` order: filled circle, square, triangle; open ones of the same shapes for the floor.
  constexpr int kFilled[] = {7, 5, 9}, kOpen[] = {6, 4, 8};
  int mode_index = 0;
  for (const std::string& m : modes) {
    const int k = mode_index++ % 3;
    if (!files.count(m)) continue;
    const std::string file = "growth_" + m + ".dat";
    p.data[file] = files[m].str();
    s << (first ? "" : ", ") << gnuplot_quote(file) << " using 1:2 with points pt " << kFilled[k] << " ps 0.9 lc rgb '"
      << mode_color(m) << "' title " << gnuplot_quote(m + " kernel") << ", " << gnuplot_quote(file)
      << " using 1:3 with points pt " << kOpen[k] << " ps 1.4 lc rgb '" << mode_color(m) << "' title "
      << gnuplot_quote(m + " floor");
    first = false;
  }
  s << "\n";
  p.script = s.str();
  return p;
}

Plot histogram_plot(const std::vector<ModeAudit>& audit) {
  Plot p{"Signed error of O in bf16 ULPs, per mode",
         "Share of the compared O elements of the mode not near zero in their row whose error "
         "(O_kernel − O_exact) / ulp(O_exact), rounded to an integer, falls in each bin; logarithmic scale, "
         "empty bins not drawn. The tails hold elements whose exact value is small next to the rest of its row "
         "(cancellation in P·V): there an error well within the bound is many ULPs of the element itself.",
         "", {}};
  const auto labels = ulp_bin_labels();
  std::ostringstream d;
  for (std::size_t b = 0; b < labels.size(); ++b) {
    d << '"' << labels[b] << '"';
    for (const ModeAudit& m : audit) {
      const std::int64_t n = m.elements - m.near_zero;
      const double share = n > 0 ? 100.0 * static_cast<double>(m.histogram[b]) / static_cast<double>(n) : 0;
      if (share > 0) d << " " << std::setprecision(9) << share;
      else d << " NaN";
    }
    d << "\n";
  }
  bool any = false;
  for (const ModeAudit& m : audit) any = any || m.elements > m.near_zero;
  if (any) p.data["hist.dat"] = d.str();
  std::ostringstream s;
  s << terminal(800, 440) << "set style data histograms\nset style histogram clustered gap 1\n"
    << "set style fill solid 0.85 border rgb '#333333'\nset boxwidth 0.9\nset logscale y\n"
    << "set yrange [*:150]\nset format y '%g%%'\nset ylabel 'share of elements'\n"
    << "set xlabel 'signed error (bf16 ULPs of the exact value)'\nset key top right box opaque\nset grid noxtics\nplot ";
  for (std::size_t i = 0; i < audit.size(); ++i) {
    s << (i ? ", " : "") << "'hist.dat' using " << i + 2 << (i ? "" : ":xtic(1)") << " lc rgb '"
      << mode_color(audit[i].mode) << "' title " << gnuplot_quote(audit[i].mode);
  }
  s << "\n";
  p.script = s.str();
  return p;
}

const char* kStyle = R"(
body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;margin:24px auto;max-width:1400px;padding:0 16px;color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ccc;padding-bottom:.2em}
table{border-collapse:collapse;font-size:13px;margin:.6em 0}
th,td{border:1px solid #d0d0d0;padding:3px 7px;text-align:right;vertical-align:top}
th{background:#f0f2f5;position:sticky;top:0}
td.l,th.l{text-align:left}td.note{text-align:left;max-width:420px;font-size:12px;color:#555;word-break:break-word}
tr:nth-child(even) td{background:#fafafa}
.pass{color:#1b7a34;font-weight:bold}.fail{color:#b00020;font-weight:bold}.rejected{color:#8a6d00}
.summary span{display:inline-block;margin-right:1.4em}
.badge{display:inline-block;padding:2px 10px;border-radius:10px;color:#fff;font-weight:bold}
.badge.ok{background:#1b7a34}.badge.bad{background:#b00020}.badge.none{background:#6b6b6b}
figure{margin:1em 0 2em 0}figcaption{font-size:13px;color:#555;max-width:900px}
svg{max-width:100%;height:auto}
.notice{background:#fff4d6;border:1px solid #e0c060;padding:6px 10px;display:inline-block}
)";

// Green PASS only for an audit that judged something and saw no failure (docs/pass-rule.md).
std::string outcome_badge(AuditOutcome o) {
  switch (o) {
    case AuditOutcome::Pass: return "<span class=\"badge ok\">PASS</span>";
    case AuditOutcome::Fail: return "<span class=\"badge bad\">FAIL</span>";
    case AuditOutcome::NothingJudged: break;
  }
  return "<span class=\"badge none\">NOTHING JUDGED</span>";
}

std::string verdict_class(Verdict v) {
  return v == Verdict::Pass ? "pass" : v == Verdict::Fail ? "fail" : "rejected";  // nothing judged: as rejected
}

// The mutation-testing section: the kill matrix of audit/mutants/mutants.hpp as a table.
std::string mutation_section(const AuditResult& result);
// The decode cases and the decode kill matrix (audit/decode/decode_audit.hpp).
std::string decode_section(const AuditResult& result);

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {
// A table of one histogram per mode: a row per mode, a column per bin.
template <class Counts>
void histogram_table(std::ostringstream& h, const char* id, const char* what, const std::vector<std::string>& labels,
                     const std::vector<ModeAudit>& audit, Counts counts) {
  h << "<table id=\"" << id << "\">\n<tr><th class=\"l\">mode \\ " << html_escape(what) << "</th>";
  for (const std::string& l : labels) h << "<th>" << html_escape(l) << "</th>";
  h << "</tr>\n";
  for (const ModeAudit& m : audit) {
    h << "<tr><td class=\"l\">" << html_escape(m.mode) << "</td>";
    for (auto count : counts(m)) h << "<td>" << count << "</td>";
    h << "</tr>\n";
  }
  h << "</table>\n";
}

}  // namespace

std::string report_html(const AuditResult& result, const Gnuplot& gnuplot, std::ostream* warnings) {
  const auto audit = rounding_audit(result);
  std::vector<std::string> modes;
  for (const ModeAudit& m : audit) modes.push_back(m.mode);
  const auto e = html_escape;

  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<title>cdna-verify audit: " << e(result.kernel) << " on " << e(result.executor) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n"
    << "<h1>cdna-verify audit</h1>\n<p class=\"summary\">"
    << outcome_badge(result.outcome()) << " "
    << "<span>Kernel: <b>" << e(result.kernel) << "</b></span> <span>Profile: <b>" << e(result.profile)
    << "</b></span> <span>Executor: <b>" << e(result.executor) << "</b></span>"
    << "<span class=\"pass\">" << result.count(Verdict::Pass) << " passed</span>"
    << "<span class=\"fail\">" << result.count(Verdict::Fail) << " failed</span>"
    << "<span class=\"rejected\">" << result.count(Verdict::NothingJudged) << " nothing judged</span>"
    << "<span class=\"rejected\">" << result.count(Verdict::Rejected)
    << " rejected</span><span>" << figure_text(result.seconds, 3) << " s of attention cases</span></p>\n"
    << "<p>Pass rule: docs/pass-rule.md (certified per-element bound of docs/error-analysis.md, and rel-RMS error "
       "at most 2&times; the floor model's). Version " << e(CDNA_VERSION) << ".</p>\n"
    << "<p id=\"outcome\">" << e(outcome_line(result));
  if (result.outcome() == AuditOutcome::NothingJudged) h << " (" << e(result.nothing_judged_reason()) << ")";
  h << "</p>\n";
  if (result.shard) h << "<p id=\"shard\" class=\"notice\">" << e(shard_line(result)) << ".</p>\n";
  if (const AuditCounts c = result.counts(); c.convention_rows > 0)
    h << "<p id=\"conventions\" class=\"notice\">Convention failures: " << e(convention_line(c)) << ".</p>\n";
  for (const auto& c : result.code_objects) {
    if (!c.mode_recorded)
      h << "<p class=\"notice\">" << e(adapters::unchecked_mode_notice(c.path, c.mode, result.kernel)) << ".</p>\n";
  }

  // Plots.
  std::vector<Plot> plots;
  if (!audit.empty()) {
    plots.push_back(floor_ratio_plot(result, modes));
    plots.push_back(growth_plot(result, modes));
    plots.push_back(histogram_plot(audit));
  }
  std::vector<std::string> figures;
  std::string plot_error;
  for (std::size_t i = 0; i < plots.size() && plot_error.empty(); ++i) {
    if (plots[i].data.empty()) {
      figures.push_back("<figure>\n<h3>" + e(plots[i].title) + "</h3>\n<p>Nothing to plot: no compared case " +
                        "with a non-zero error floor and error.</p>\n</figure>\n");
      continue;
    }
    std::string err;
    if (auto svg = gnuplot.svg(plots[i].script, plots[i].data, err)) {
      figures.push_back("<figure>\n<h3>" + e(plots[i].title) + "</h3>\n" + inline_svg(*svg, "p" + std::to_string(i) + "_") +
                        "\n<figcaption>" + e(plots[i].caption) + "</figcaption>\n</figure>\n");
    } else {
      plot_error = err;
    }
  }
  if (!plot_error.empty()) {
    figures.clear();
    if (warnings) *warnings << "cdna-verify: report.html written without plots: " << plot_error << "\n";
  }

  // Rounding-mode audit.
  h << "<h2>Rounding-mode audit</h2>\n";
  if (audit.empty()) {
    h << "<p>No compared case.</p>\n";
  } else {
    h << "<p>Error of O signed away from zero, (O_kernel &minus; O_exact)&middot;sign(O_exact), pooled over every "
         "compared case of each mode; ULPs are bf16 ULPs of the exact value, over the elements not near zero in "
         "their row (|O_exact| at least one ULP of the row's largest value; those below, column &ldquo;near "
         "zero&rdquo;, enter the absolute and relative figures only). A bias far from 0 in ULPs marks a "
         "rounding that leans one way: RTZ leans towards zero by design (a negative bias), a nearest mode does "
         "not.</p>\n"
      << "<table id=\"rounding-audit\">\n<tr><th class=\"l\">mode</th><th>cases</th><th>elements</th><th>near zero</th>"
         "<th>bias (abs)</th><th>bias (ULP)</th><th>RMS err (abs)</th><th>RMS err (ULP)</th>"
         "<th>rel-RMS (pooled)</th><th>floor rel-RMS</th><th>rel-RMS / floor</th><th>max |err| (ULP)</th></tr>\n";
    for (const ModeAudit& m : audit) {
      h << "<tr><td class=\"l\">" << e(m.mode) << "</td><td>" << m.cases << "</td><td>" << m.elements << "</td><td>" << m.near_zero
        << "</td><td>" << figure_text(m.mean_err) << "</td><td>" << figure_text(m.mean_ulp_err) << "</td><td>" << figure_text(m.rms_err) << "</td><td>"
        << figure_text(m.rms_ulp_err) << "</td><td>" << figure_text(m.rel_rms_err) << "</td><td>" << figure_text(m.floor_rel_rms)
        << "</td><td>" << figure_text(m.rms_to_floor) << "</td><td>" << figure_text(m.max_ulp_err)
        << "</td></tr>\n";
    }
    h << "</table>\n";
    histogram_table(h, "ulp-histogram", "signed ULP error (rounded)", ulp_bin_labels(), audit,
                    [](const ModeAudit& m) { return std::vector<std::int64_t>(m.histogram.begin(), m.histogram.end()); });
    histogram_table(h, "abs-ulp-histogram", "|error| in ULPs", abs_ulp_bin_labels(), audit, [](const ModeAudit& m) {
      return std::vector<std::int64_t>(m.abs_histogram.begin(), m.abs_histogram.end());
    });
  }

  h << "<h2>Plots</h2>\n";
  if (!plot_error.empty()) {
    h << "<p class=\"notice\">Plots omitted: " << e(plot_error)
      << ". Install gnuplot (Debian package gnuplot-nox) and rerun the audit to get them.</p>\n";
  } else if (figures.empty()) {
    h << "<p>No compared case to plot.</p>\n";
  }
  for (const auto& f : figures) h << f;

  // Per-case table.
  h << "<h2>Cases</h2>\n<table id=\"cases\">\n<tr><th class=\"l\">case</th><th class=\"l\">shape</th>"
       "<th class=\"l\">mask</th><th class=\"l\">mode</th><th>max |err| O</th><th>max ULP</th>"
       "<th>bias (ULP)</th><th>err / bound</th><th>rel-RMS</th><th>floor</th><th>rel-RMS / floor</th>"
       "<th class=\"l\">numerics</th><th class=\"l\">hazards</th><th class=\"l\">verdict</th><th class=\"l\">note</th></tr>\n";
  for (const CaseResult& r : result.rows) {
    const auto& s = r.shape;
    h << "<tr><td class=\"l\" title=\"" << e(r.description) << "\">" << e(r.id) << "</td><td class=\"l\">B" << s.batch
      << " Sq" << s.seqlen_q << " Sk" << s.seqlen_k << " H" << s.heads_q << "/" << s.heads_kv << " D" << s.head_dim
      << "</td><td class=\"l\">" << e(r.mask) << "</td><td class=\"l\">" << e(r.mode) << "</td>";
    if (r.compared) {
      const auto& c = r.comparison;
      const std::int64_t ulp_elements = r.o_sums.elements - r.o_sums.near_zero;
      const double bias = ulp_elements > 0 ? r.o_sums.sum_ulp_err / static_cast<double>(ulp_elements) : 0;
      h << "<td>" << figure_text(c.max_abs_err_o) << "</td><td>" << figure_text(c.max_ulp_err_o, 2) << "</td><td>" << figure_text(bias, 2)
        << "</td><td>" << figure_text(std::max(c.max_err_to_bound_o, c.max_err_to_bound_lse), 2) << "</td><td>"
        << figure_text(c.rel_rms_err_o) << "</td><td>" << figure_text(c.floor_rel_rms_o) << "</td><td>"
        << (c.floor_rel_rms_o > 0 ? figure_text(c.rel_rms_err_o / c.floor_rel_rms_o) : std::string("-")) << "</td>";
    } else {
      for (int i = 0; i < 7; ++i) h << "<td>-</td>";
    }
    // The two verdicts side by side (issue 23 §3), then the case's.
    const std::string hz = r.hazard_verdict == "-" ? "-" : r.hazard_verdict + " (" + std::to_string(r.documented_sites) +
                                                               " documented, " + std::to_string(r.llvm_only_sites) + " LLVM-only)";
    h << "<td class=\"l " << verdict_class(r.numerics_verdict()) << "\">" << e(std::string(to_string(r.numerics_verdict())))
      << "</td><td class=\"l" << (r.hazard_verdict == "fails" ? " fail" : "") << "\">" << e(hz) << "</td>";
    h << "<td class=\"l " << verdict_class(r.verdict) << "\">" << e(std::string(to_string(r.verdict)))
      << "</td><td class=\"note\">" << e(r.note)
      << (r.peer_tolerance.empty() ? std::string() : (r.note.empty() ? "" : " ") + e("{" + r.peer_tolerance + "}"))
      << "</td></tr>\n";
  }
  h << "</table>\n";
  h << mutation_section(result);
  h << decode_section(result);
  h << "</body>\n</html>\n";
  return h.str();
}

namespace {

std::string mutation_section(const AuditResult& result) {
  std::ostringstream h;
  h << "<h2>Mutation testing: the kill matrix</h2>\n";
  if (!result.mutation) {
    h << "<p>Not run (" << html_escape(result.mutation_not_run) << ").</p>\n";
    return h.str();
  }
  const MutantsResult& m = *result.mutation;
  const auto mark = [](bool killed) { return killed ? "<td class=\"fail\">X</td>" : "<td>.</td>"; };
  h << "<p>" << m.mutants() << " kernel mutants (one deliberate mistake each, built RTNE, and the correct kernel of one rounding mode judged as another; docs/mutation-testing.md) on "
    << m.cases.size() << " fixed cases, " << figure_text(m.seconds) << " s on " << html_escape(m.executor) << ": "
    << m.killed_by_ours() << " of " << m.mutants()
    << " killed by our verdict. X = fails on at least one case on which the correct kernel (control) passes that "
       "column; on the control row an X is a false positive. Columns after <b>ours</b> are the peer suites' "
       "pass rules (reference/attention/peer_rules.hpp) on the same outputs.</p>\n"
    << "<table id=\"kill-matrix\">\n<tr><th class=\"l\">kernel</th><th class=\"l\">mistake</th>";
  for (int c = 0; c < kOurChecks; ++c) h << "<th>" << html_escape(column_name(c)) << "</th>";
  h << "<th>ours</th>";
  for (int c = kOurChecks; c < kColumns; ++c) h << "<th>" << html_escape(column_name(c)) << "</th>";
  h << "</tr>\n";
  auto row = [&](const KernelResult& k) {
    h << "<tr><td class=\"l\">" << html_escape(k.name) << "</td><td class=\"l note\">" << html_escape(k.mistake)
      << "</td>";
    for (int c = 0; c < kOurChecks; ++c) h << mark(k.killed[static_cast<std::size_t>(c)]);
    h << mark(k.killed_by_ours());
    for (int c = kOurChecks; c < kColumns; ++c) h << mark(k.killed[static_cast<std::size_t>(c)]);
    h << "</tr>\n";
  };
  for (const auto& k : m.kernels)
    if (k.control) row(k);
  for (const auto& k : m.kernels)
    if (!k.control) row(k);
  h << "<tr><td class=\"l\"><b>kill rate</b></td><td></td>";
  const std::string n = "/" + std::to_string(m.mutants());
  for (int c = 0; c < kOurChecks; ++c) h << "<td>" << m.killed(c) << n << "</td>";
  h << "<td><b>" << m.killed_by_ours() << n << "</b></td>";
  for (int c = kOurChecks; c < kColumns; ++c) h << "<td>" << m.killed(c) << n << "</td>";
  h << "</tr>\n</table>\n";
  return h.str();
}

}  // namespace

namespace {

std::string decode_section(const AuditResult& result) {
  std::ostringstream h;
  const auto e = [](const std::string& t) { return html_escape(t); };
  h << "<h2>Decode: the monokernel, token by token</h2>\n";
  if (!result.decode) {
    h << "<p>Not run (" << e(result.decode_not_run) << ").</p>\n";
    return h.str();
  }
  const DecodeAuditResult& d = *result.decode;
  h << "<table>\n<tr><th>case</th><th>mode</th><th>outcome</th><th>positions</th><th>decided</th><th>ambiguous</th>"
       "<th>mismatch</th><th>logits outside</th><th>note</th></tr>\n";
  for (const auto& r : d.rows) {
    const char* cls = r.outcome == DecodeOutcome::Pass ? "pass" : r.outcome == DecodeOutcome::Fail ? "fail" : "rejected";
    h << "<tr><td>" << e(r.id) << "</td><td>" << e(r.mode) << "</td><td class=\"" << cls << "\">"
      << e(std::string(to_string(r.outcome))) << "</td><td>" << r.positions << "</td><td>" << r.counts.decided
      << "</td><td>" << r.counts.ambiguous << "</td><td>" << r.counts.mismatched << "</td><td>"
      << r.counts.logits_outside << "</td><td class=\"note\">" << e(r.description + ". " + r.line) << "</td></tr>\n";
  }
  h << "</table>\n";
  if (d.mutants.empty()) {
    h << "<p>Decode kill matrix not run (" << e(d.mutants_not_run) << ").</p>\n";
    return h.str();
  }
  h << "<p>Decode kill matrix (memory model " << e(d.memory_model) << "): " << d.killed() << " of " << d.mutants.size()
    << " mutants killed; the correct kernel on the kill cases under the same memory model: " << e(d.control)
    << ".</p>\n<table>\n<tr><th>mutant</th><th>killed</th><th>how</th></tr>\n";
  for (const auto& m : d.mutants)
    h << "<tr><td>" << e(m.name) << "</td><td class=\"" << (m.killed ? "pass" : "fail") << "\">"
      << (m.killed ? "yes" : "no") << "</td><td class=\"note\">" << e(m.how) << "</td></tr>\n";
  h << "</table>\n";
  return h.str();
}

}  // namespace

}  // namespace cdna::audit
