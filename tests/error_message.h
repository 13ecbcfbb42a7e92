#pragma once
// The message of the exception `f` throws, or "(no exception)": lets a test check
// what an error says with an ordinary CHECK_THAT.
#include <exception>
#include <string>

namespace ablate::testing {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

}  // namespace ablate::testing
