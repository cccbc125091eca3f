// report.html of `cdna-verify audit`: one self-contained page (inline CSS, plots as inline SVG
// drawn by gnuplot, audit/report/plots.hpp) with the summary, the per-case table, the per-mode
// rounding audit (audit/report/rounding_audit.hpp) and plots of error/floor per case, rel-RMS error
// against Sk per mode and the signed-ULP histograms per mode. Without gnuplot the page is
// written without plots and says so.
#pragma once

#include <ostream>
#include <string>

#include "audit/report/audit_result.hpp"
#include "audit/report/plots.hpp"

namespace cdna::audit {

// `text` with & < > " ' escaped for HTML text and attribute values.
std::string html_escape(const std::string& text);

// The page. A plot gnuplot cannot draw is replaced by a line saying why; if gnuplot is missing
// or fails, one line goes to `warnings` (if given), never an exception.
std::string report_html(const AuditResult& result, const Gnuplot& gnuplot, std::ostream* warnings);

}  // namespace cdna::audit
