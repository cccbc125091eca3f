// What a libFuzzer target of cdna-verify calls an acceptable outcome: a parsed result, or the
// parser's documented exception with a one-line message (the CLI prints it as its one error
// line). Anything else is reported by bug(), which aborts so that libFuzzer keeps the input.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace cdna::fuzz {

[[noreturn]] inline void bug(const std::string& what, const std::string& detail) {
  std::fprintf(stderr, "fuzz target: %s: %s\n", what.c_str(), detail.c_str());
  std::abort();
}

// Calls f(); true if it returned, false if it threw Documented with a one-line message. Any
// other exception, or a message that is empty or spans lines, is a bug.
template <class Documented, class F>
bool returns_or_documented(const char* stage, F&& f) {
  try {
    f();
    return true;
  } catch (const Documented& e) {
    const std::string m = e.what();
    if (m.empty() || m.find_first_of("\r\n") != std::string::npos) bug(std::string(stage) + ": message is not one line", m);
    return false;
  } catch (const std::exception& e) {
    bug(std::string(stage) + " threw an undocumented exception type", e.what());
  } catch (...) {
    bug(stage, "threw a non-std exception");
  }
}

}  // namespace cdna::fuzz
