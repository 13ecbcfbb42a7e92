#pragma once
// A property every text reader's refusal must have: its message is short and
// one printable line however large or binary the input — input is echoed only through
// excerpt(), so no NUL can cut it and no newline or control byte can break it.
#include <string>

#include "tests/fuzz/fuzz_input.h"

namespace ablate::fuzz {

inline void require_bounded_message(const std::string& message) {
  require(message.size() <= 1024, "the message is at most 1 KiB");
  for (unsigned char c : message)
    require(c >= 0x20 && c != 0x7F, "the message has no control bytes");
}

// Runs `load` as rejected_naming does, and requires a rejection's message to be bounded.
template <class Load>
bool rejected_naming_bounded(const std::string& path, Load&& load) {
  try {
    load();
    return false;
  } catch (const std::runtime_error& error) {
    require(std::string(error.what()).rfind(path, 0) == 0, "the error starts with the path");
    require_bounded_message(error.what());
    return true;
  }
}

}  // namespace ablate::fuzz
