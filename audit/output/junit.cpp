#include "audit/output/junit.hpp"

#include <libxml/xmlwriter.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <system_error>

#include "audit/output/atomic_file.hpp"

namespace cdna::audit::junit {
namespace {

namespace fs = std::filesystem;

// XML 1.0 admits no control character but tab, newline and carriage return, not even escaped
// (XML 1.0 §2.2 "Char"): any other is written as '?'.
std::string xml_text(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t' && c != '\n' && c != '\r') c = '?';
  }
  return out;
}

std::string decimal_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", std::max(0.0, s));
  return buf;
}

// The Ant schema's timestamp: ISO 8601 date and time, seconds, no zone (we write UTC).
std::string timestamp(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

std::string hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";  // the Ant schema's fallback
  return buf;
}

// A libxml2 text writer into a memory buffer; every call checked.
class Writer {
 public:
  Writer() : buffer_(xmlBufferCreate(), xmlBufferFree) {
    if (!buffer_) throw std::runtime_error("JUnit XML: libxml2 cannot allocate a buffer");
    writer_ = xmlNewTextWriterMemory(buffer_.get(), 0);
    if (!writer_) throw std::runtime_error("JUnit XML: libxml2 cannot create a writer");
    xmlTextWriterSetIndent(writer_, 1);
    check(xmlTextWriterStartDocument(writer_, "1.0", "UTF-8", nullptr));
  }
  ~Writer() {
    if (writer_) xmlFreeTextWriter(writer_);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void start(const char* element) { check(xmlTextWriterStartElement(writer_, to_xml_char(element))); }
  void end() { check(xmlTextWriterEndElement(writer_)); }
  void attribute(const char* name, std::string_view value) {
    const std::string v = xml_text(value);
    check(xmlTextWriterWriteAttribute(writer_, to_xml_char(name), to_xml_char(v.c_str())));
  }
  void text(std::string_view value) {
    const std::string v = xml_text(value);
    check(xmlTextWriterWriteString(writer_, to_xml_char(v.c_str())));
  }
  void element(const char* name, std::string_view value) {
    start(name);
    text(value);
    end();
  }
  std::string finish() {
    check(xmlTextWriterEndDocument(writer_));
    xmlFreeTextWriter(writer_);  // flushes into the buffer
    writer_ = nullptr;
    return std::string(reinterpret_cast<const char*>(xmlBufferContent(buffer_.get())),
                       static_cast<std::size_t>(xmlBufferLength(buffer_.get())));
  }

 private:
  static const xmlChar* to_xml_char(const char* s) { return reinterpret_cast<const xmlChar*>(s); }
  static void check(int rc) {
    if (rc < 0) throw std::runtime_error("JUnit XML: libxml2's writer failed");
  }
  std::unique_ptr<xmlBuffer, void (*)(xmlBufferPtr)> buffer_;
  xmlTextWriterPtr writer_ = nullptr;
};

const char* outcome_element(Status s) {
  switch (s) {
    case Status::Failed: return "failure";
    case Status::Error: return "error";
    case Status::Skipped: return "skipped";
    case Status::Passed: break;
  }
  return nullptr;
}

void write_case(Writer& w, const TestCase& c) {
  w.start("testcase");
  w.attribute("name", c.name);
  w.attribute("classname", c.classname);
  w.attribute("time", decimal_seconds(c.seconds));
  if (const char* element = outcome_element(c.status)) {
    w.start(element);
    w.attribute("message", first_line(c.message));
    if (c.status != Status::Skipped) {
      w.attribute("type", c.type.empty() ? "failure" : c.type);
      w.text(c.detail.empty() ? c.message : c.detail);
    }
    w.end();
  }
  if (!c.system_out.empty()) w.element("system-out", c.system_out);
  w.end();
}

void write_suite(Writer& w, const TestSuite& s, int id) {
  w.start("testsuite");
  w.attribute("name", s.name);
  w.attribute("tests", std::to_string(s.cases.size()));
  w.attribute("failures", std::to_string(s.count(Status::Failed)));
  w.attribute("errors", std::to_string(s.count(Status::Error)));
  w.attribute("skipped", std::to_string(s.count(Status::Skipped)));
  w.attribute("time", decimal_seconds(s.seconds));
  w.attribute("timestamp", timestamp(s.started));
  w.attribute("hostname", hostname());
  w.attribute("id", std::to_string(id));
  w.attribute("package", "cdna-verify");
  w.start("properties");
  for (const auto& [name, value] : s.properties) {
    w.start("property");
    w.attribute("name", name);
    w.attribute("value", value);
    w.end();
  }
  w.end();
  for (const TestCase& c : s.cases) write_case(w, c);
  w.element("system-out", s.system_out);
  w.element("system-err", s.system_err);
  w.end();
}

}  // namespace

int TestSuite::count(Status s) const {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), [s](const TestCase& c) { return c.status == s; }));
}

std::string first_line(std::string_view text) {
  const auto nl = text.find('\n');
  return std::string(nl == std::string_view::npos ? text : text.substr(0, nl));
}

std::string to_xml(const std::vector<TestSuite>& suites) {
  Writer w;
  // No attributes on the root: the Ant schema has none (Jenkins' allows some, needs none).
  w.start("testsuites");
  for (std::size_t i = 0; i < suites.size(); ++i) write_suite(w, suites[i], static_cast<int>(i));
  w.end();
  return w.finish();
}

void write(const fs::path& path, const std::vector<TestSuite>& suites) {
  const std::string xml = to_xml(suites);
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);  // check_output_file allowed it
  if (ec) throw std::runtime_error("cannot create '" + path.parent_path().string() + "': " + ec.message());
  write_atomically(path, xml);
}

int run_writing_errors(const fs::path& path, const std::string& suite, const std::string& classname,
                       const std::function<int()>& work) {
  const auto started = std::chrono::system_clock::now();
  try {
    return work();
  } catch (const std::exception& e) {
    if (!path.empty()) {
      TestSuite s;
      s.name = suite;
      s.started = started;
      s.seconds = std::chrono::duration<double>(std::chrono::system_clock::now() - started).count();
      TestCase c;
      c.classname = classname;
      c.name = "run";
      c.status = Status::Error;
      c.type = "tool-error";
      c.message = e.what();
      s.cases.push_back(std::move(c));
      try {
        write(path, {s});
      } catch (const std::exception& w) {
        std::cerr << "cdna-verify: error: " << w.what() << " (the JUnit file of the failed run)\n";
      }
    }
    throw;
  }
}

}  // namespace cdna::audit::junit
