// excerpt(): what every error message uses to echo input. It must stay short and
// printable whatever the bytes, so a message can never be megabytes long, be cut at a
// NUL, or break across lines.
#include "nn/excerpt.h"

#include <catch2/catch.hpp>
#include <string>

using ablate::excerpt;

TEST_CASE("excerpt: short printable text is shown as it is") {
  CHECK(excerpt("model.d_model") == "model.d_model");
  CHECK(excerpt("") == "");
  CHECK(excerpt("größe 深入") == "größe 深入");  // valid UTF-8 kept
}

TEST_CASE("excerpt: long input is cut to the limit and says its size") {
  std::string big(1'400'000, 'a');
  std::string shown = excerpt(big, 80);
  CHECK(shown == std::string(80, 'a') + "… (1400000 bytes in all)");
}

TEST_CASE("excerpt: control bytes, NUL and invalid UTF-8 are escaped, never cut a message") {
  using namespace std::string_literals;
  CHECK(excerpt("a\0b\nc\x7f"s) == "a\\x00b\\x0Ac\\x7F");
  CHECK(excerpt("caf\xE9") == "caf\\xE9");              // Latin-1 é
  CHECK(excerpt("\xE6\xB7") == "\\xE6\\xB7");           // a truncated 3-byte sequence
  CHECK(excerpt("\xC0\xAF") == "\\xC0\\xAF");           // overlong '/'
  CHECK(excerpt("\xED\xA0\x80") == "\\xED\\xA0\\x80");  // a surrogate
}

TEST_CASE("excerpt: a UTF-8 sequence or an escape is never split at the limit") {
  CHECK(excerpt("ab深", 4) == "ab… (5 bytes in all)");
  CHECK(excerpt("ab\x01", 4) == "ab… (3 bytes in all)");
}
