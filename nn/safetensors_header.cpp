#include "nn/safetensors_header.h"

#include <set>
#include <stdexcept>
#include <vector>

#include "nn/excerpt.h"

namespace ablate::nn {

namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": " + what);
}

// The keys seen so far in each object still open, to find one given twice.
struct OpenObject {
  std::string name;  // the key it is the value of ("" for the header itself)
  std::set<std::string> keys;
};

// A SAX pass that builds nothing and checks what the DOM parser would let through:
// depth, keys given twice, the number of tensors. Every event is O(log n), so a header
// of any size is checked in linear-logarithmic time. (nlohmann's callback parser, used
// before, scans the parent object for discarded values at every object's end:
// quadratic in the number of entries, minutes for 100,000 of them.) Throwing from an
// event ends the parse at once, so a deeply nested value is never built.
class HeaderChecker : public json::json_sax_t {
 public:
  explicit HeaderChecker(const std::string& path) : path_(path) {}

  bool start_object(std::size_t) override {
    enter();
    open_.push_back({last_key_, {}});
    return true;
  }
  bool end_object() override {
    open_.pop_back();
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    enter();
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool key(std::string& key) override {
    last_key_ = key;
    OpenObject& object = open_.back();
    if (!object.keys.insert(key).second) {
      // (std::string first: GCC 12 warns falsely (-Wrestrict) on a literal + a temporary.)
      const std::string k = excerpt(key), name = excerpt(object.name);
      if (open_.size() == 1)
        fail(path_, std::string("the header names '") + k +
                        "' twice (a reader would silently keep only one of them)");
      fail(path_, std::string("'") + name + "' gives the key '" + k +
                      "' twice (a reader would silently keep only one of them)");
    }
    if (open_.size() == 1 && object.keys.size() > kMaxSafetensorsEntries)
      fail(path_, "the header lists more than " + std::to_string(kMaxSafetensorsEntries) +
                      " entries (a model's checkpoint holds a few hundred tensors)");
    return true;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool parse_error(std::size_t, const std::string&, const json::exception& e) override {
    // nlohmann's message ends with the token last read, which can be the whole header.
    fail(path_, std::string("header is not valid JSON (") + excerpt(e.what(), 160) + ")");
  }

 private:
  void enter() {
    if (++depth_ > kMaxSafetensorsHeaderDepth)
      fail(path_, "the header nests deeper than " + std::to_string(kMaxSafetensorsHeaderDepth) +
                      " levels (a safetensors header nests 3: the object, an entry, its shape)");
  }

  const std::string& path_;
  int depth_ = 0;
  std::vector<OpenObject> open_;
  std::string last_key_;
};

}  // namespace

json parse_safetensors_header(const std::string& path, const std::string& text) {
  if (std::size_t nul = text.find('\0'); nul != std::string::npos)
    fail(path, "the header holds a NUL byte at offset " + std::to_string(nul) + " of its " +
                   std::to_string(text.size()) +
                   " bytes (a header is JSON, padded with spaces only; is the file damaged?)");
  try {
    HeaderChecker checker(path);
    json::sax_parse(text, &checker);    // also rejects text that is not UTF-8
    return json::parse(text);           // checked: the DOM parse can no longer surprise
  } catch (const json::exception& e) {  // out_of_range for 1e99999 (fuzzer)
    fail(path, std::string("header is not valid JSON (") + excerpt(e.what(), 160) + ")");
  }
}

}  // namespace ablate::nn
