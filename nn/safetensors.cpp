#include "nn/safetensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "nn/excerpt.h"
#include "nn/safetensors_header.h"

// Tensor bytes are copied between memory and the file as they are; the format is
// little-endian, so this is only correct on a little-endian machine.
static_assert(std::endian::native == std::endian::little,
              "safetensors I/O copies raw bytes and needs a little-endian machine");

namespace ablate::nn {

namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": " + what);
}

std::string errno_text() {
  return std::strerror(errno);
}

struct DTypeName {
  DType dtype;
  const char* name;
};
constexpr std::array<DTypeName, 4> kDTypes{
    {{DType::f32, "F32"}, {DType::f64, "F64"}, {DType::i32, "I32"}, {DType::b8, "BOOL"}}};

std::optional<DType> parse_dtype(const std::string& name) {
  for (const auto& d : kDTypes)
    if (name == d.name) return d.dtype;
  return std::nullopt;
}

// A tensor's name as messages show it: quoted, bounded, printable.
// (Appended, not "'" + excerpt(): GCC 12 warns falsely (-Wrestrict) on prepending a literal.)
std::string quoted(const std::string& name) {
  std::string out(1, '\'');
  out += excerpt(name);
  out += '\'';
  return out;
}

std::string shape_text(const std::vector<std::uint64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// ---- reading ---------------------------------------------------------------------

struct Entry {
  std::string name;
  DType dtype;
  Shape shape;
  std::uint64_t begin, end;
};

// One tensor's header entry, checked against the data section of `data_size` bytes.
Entry parse_entry(const std::string& path, const std::string& name, const json& value,
                  std::uint64_t data_size) {
  const std::string where = "tensor " + quoted(name) + ": ";
  if (!value.is_object()) fail(path, where + "entry is not a JSON object");
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!value.contains(key)) fail(path, where + "entry has no \"" + key + "\"");

  const json& dtype_json = value["dtype"];
  if (!dtype_json.is_string()) fail(path, where + "\"dtype\" is not a string");
  const std::string dtype_name = dtype_json.get<std::string>();
  std::optional<DType> dtype = parse_dtype(dtype_name);
  if (!dtype)
    fail(path,
         where + "unknown dtype " + quoted(dtype_name) + " (ablate reads F32, F64, I32 and BOOL)");

  const json& shape_json = value["shape"];
  if (!shape_json.is_array()) fail(path, where + "\"shape\" is not an array");
  std::vector<std::uint64_t> dims;
  for (const json& d : shape_json) {
    if (!d.is_number_unsigned())
      fail(path, where + "shape holds " + std::string(d.type_name()) +
                     " where only non-negative integers belong");
    dims.push_back(d.get<std::uint64_t>());
  }
  if (dims.size() > std::size_t(Shape::kMaxRank))
    fail(path, where + "shape " + shape_text(dims) + " has rank " + std::to_string(dims.size()) +
                   "; ablate tensors have rank at most " + std::to_string(Shape::kMaxRank));

  const json& offsets_json = value["data_offsets"];
  if (!offsets_json.is_array() || offsets_json.size() != 2 ||
      !offsets_json[0].is_number_unsigned() || !offsets_json[1].is_number_unsigned())
    fail(path, where + "\"data_offsets\" is not [begin, end] of two non-negative integers");
  const std::uint64_t begin = offsets_json[0].get<std::uint64_t>();
  const std::uint64_t end = offsets_json[1].get<std::uint64_t>();
  const std::string offsets =
      "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "]";

  // Bytes that dtype × shape need, refusing sizes that overflow (a hostile header).
  std::uint64_t bytes = dtype_size(*dtype);
  bool overflow = false;
  for (std::uint64_t d : dims) {
    if (d > std::uint64_t(std::numeric_limits<std::int64_t>::max()) ||
        (d != 0 && bytes > std::numeric_limits<std::uint64_t>::max() / d))
      overflow = true;
    else
      bytes *= d;
  }
  if (overflow)
    fail(path,
         where + "shape " + shape_text(dims) + " of " + dtype_name + " is too large to exist");
  if (begin > end || end - begin != bytes)
    fail(path, where + offsets + " do not match " + dtype_name + " " + shape_text(dims) + " (" +
                   std::to_string(bytes) + " bytes)");
  if (end > data_size)
    fail(path, where + offsets + " lie outside the data section of " + std::to_string(data_size) +
                   " bytes (is the file truncated?)");

  std::vector<std::int64_t> signed_dims(dims.begin(), dims.end());
  return {name, *dtype, Shape(std::span<const std::int64_t>(signed_dims)), begin, end};
}

// The ranges must tile the data section exactly, as the reference implementation
// requires: an overlap would alias two tensors, a gap or a tail is unexplained bytes.
void check_tiling(const std::string& path, std::vector<Entry>& entries, std::uint64_t data_size) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t next = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    if (e.begin < next)
      fail(path, "tensor " + quoted(e.name) + ": data_offsets [" + std::to_string(e.begin) + ", " +
                     std::to_string(e.end) + "] overlap those of tensor " + quoted(previous->name));
    if (e.begin > next)
      fail(path, "bytes [" + std::to_string(next) + ", " + std::to_string(e.begin) +
                     ") of the data section belong to no tensor");
    next = e.end;
    previous = &e;
  }
  if (next != data_size)
    fail(path, "the data section has " + std::to_string(data_size) +
                   " bytes but its tensors cover " + std::to_string(next));
}

// ---- writing ---------------------------------------------------------------------

// Removes the temp file unless the write got as far as renaming it into place.
class TempFile {
 public:
  explicit TempFile(std::string path) : path_(std::move(path)) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (!committed_) std::remove(path_.c_str());
  }
  const std::string& path() const { return path_; }
  void commit() { committed_ = true; }

 private:
  std::string path_;
  bool committed_ = false;
};

void write_bytes(std::FILE* f, const void* data, std::size_t n, const std::string& path,
                 const std::string& what) {
  if (n == 0) return;
  if (std::fwrite(data, 1, n, f) != n) fail(path, "writing " + what + " failed: " + errno_text());
}

// b8 holds "nonzero = true"; BOOL readers (NumPy, PyTorch) expect exactly 0 or 1.
void write_bools(std::FILE* f, const Tensor& t, const std::string& path, const std::string& what) {
  const auto* src = static_cast<const std::uint8_t*>(t.raw());
  std::array<std::uint8_t, 4096> chunk;
  for (std::size_t done = 0; done < t.nbytes();) {
    std::size_t n = std::min(chunk.size(), t.nbytes() - done);
    for (std::size_t i = 0; i < n; ++i) chunk[i] = src[done + i] != 0;
    write_bytes(f, chunk.data(), n, path, what);
    done += n;
  }
}

// The header: "__metadata__" first, then the tensors in data order, padded with spaces
// so that the data section starts 8-byte aligned (as the reference writer does).
std::string make_header(const std::string& path,
                        const std::vector<std::pair<std::string, Tensor>>& tensors,
                        const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::set<std::string> seen;
  std::uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    if (name == "__metadata__") fail(path, "a tensor may not be named '__metadata__'");
    if (!seen.insert(name).second) fail(path, "tensor " + quoted(name) + " is given twice");
    if (!t.defined()) fail(path, "tensor " + quoted(name) + " is undefined (has no data)");
    std::vector<std::int64_t> dims(t.shape().dims().begin(), t.shape().dims().end());
    header[name] = {{"dtype", safetensors_dtype_name(t.dtype())},
                    {"shape", dims},
                    {"data_offsets", {offset, offset + t.nbytes()}}};
    offset += t.nbytes();
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception& e) {  // a name or value that is not UTF-8
    fail(path, std::string("cannot encode the header: ") + e.what());
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

// Makes the rename itself durable. Best effort: the file is complete and in place
// already, and some file systems refuse fsync on directories.
void sync_directory_of(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

const char* safetensors_dtype_name(DType dtype) {
  for (const auto& d : kDTypes)
    if (d.dtype == dtype) return d.name;
  return "?";
}

const Tensor* SafetensorsFile::find(const std::string& name) const {
  for (const auto& [n, t] : tensors)
    if (n == name) return &t;
  return nullptr;
}

SafetensorsFile read_safetensors(const std::string& path) {
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) fail(path, "cannot open: " + errno_text());
  struct stat st {};
  if (::fstat(::fileno(f.get()), &st) != 0) fail(path, "cannot stat: " + errno_text());
  if (!S_ISREG(st.st_mode)) fail(path, "is not a regular file");
  const std::uint64_t file_size = std::uint64_t(st.st_size);

  if (file_size < 8)
    fail(path, "file of " + std::to_string(file_size) +
                   " bytes is too short for the 8-byte header length");
  std::uint8_t length_bytes[8];
  if (std::fread(length_bytes, 1, 8, f.get()) != 8) fail(path, "cannot read the header length");
  std::uint64_t header_length = 0;
  for (int i = 7; i >= 0; --i) header_length = (header_length << 8) | length_bytes[i];
  if (header_length > file_size - 8)
    fail(path, "header length " + std::to_string(header_length) + " exceeds the file size " +
                   std::to_string(file_size));

  std::string text(header_length, '\0');
  if (std::fread(text.data(), 1, text.size(), f.get()) != text.size())
    fail(path, "cannot read the " + std::to_string(header_length) + "-byte header");
  // No NUL, no key twice, no deep nesting (nn/safetensors_header.h).
  const json header = parse_safetensors_header(path, text);
  if (!header.is_object()) fail(path, "header is not a JSON object");

  const std::uint64_t data_size = file_size - 8 - header_length;
  SafetensorsFile out;
  std::vector<Entry> entries;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      if (!value.is_object()) fail(path, "\"__metadata__\" is not a JSON object");
      for (const auto& [key, v] : value.items()) {
        if (!v.is_string())
          fail(path, "\"__metadata__\" value of " + quoted(key) + " is " + v.type_name() +
                         ", not a string (the format's metadata are strings)");
        out.metadata[key] = v.get<std::string>();
      }
      continue;
    }
    entries.push_back(parse_entry(path, name, value, data_size));
  }
  check_tiling(path, entries, data_size);

  // The ranges tile the data section in this order, so the data is read front to back.
  out.tensors.reserve(entries.size());
  for (const Entry& e : entries) {
    Tensor t = Tensor::empty(e.shape, e.dtype);
    if (t.nbytes() != 0 && std::fread(t.raw(), 1, t.nbytes(), f.get()) != t.nbytes())
      fail(path, "tensor " + quoted(e.name) + ": cannot read its " + std::to_string(t.nbytes()) +
                     " bytes (did the file change while being read?)");
    out.tensors.emplace_back(e.name, std::move(t));
  }
  return out;
}

void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  // Everything that can be wrong with the input is found before a file exists.
  const std::string header = make_header(path, tensors, metadata);

  // Declared before the FILE so that the file is closed before it is removed.
  TempFile temp(path + ".tmp." + std::to_string(::getpid()));
  FilePtr f(std::fopen(temp.path().c_str(), "wb"));
  if (!f) fail(path, "cannot create " + temp.path() + ": " + errno_text());

  std::uint8_t length_bytes[8];
  std::uint64_t n = header.size();
  for (auto& b : length_bytes) {
    b = std::uint8_t(n & 0xff);
    n >>= 8;
  }
  write_bytes(f.get(), length_bytes, 8, path, "the header length");
  write_bytes(f.get(), header.data(), header.size(), path, "the header");
  for (const auto& [name, t] : tensors) {
    const std::string what = "tensor " + quoted(name);
    if (t.dtype() == DType::b8)
      write_bools(f.get(), t, path, what);
    else
      write_bytes(f.get(), t.raw(), t.nbytes(), path, what);
  }
  // A full disk often shows only here: buffered data meets the disk at fflush, and
  // delayed allocation can defer the error to fsync or even close.
  if (std::fflush(f.get()) != 0) fail(path, "writing failed: " + errno_text());
  if (::fsync(::fileno(f.get())) != 0) fail(path, "fsync failed: " + errno_text());
  if (std::fclose(f.release()) != 0) fail(path, "closing failed: " + errno_text());

  if (std::rename(temp.path().c_str(), path.c_str()) != 0)
    fail(path, "cannot rename " + temp.path() + " to it: " + errno_text());
  temp.commit();
  sync_directory_of(path);
}

}  // namespace ablate::nn
