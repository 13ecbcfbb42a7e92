#pragma once
// safetensors files (https://github.com/huggingface/safetensors): an 8-byte
// little-endian header length N, N bytes of UTF-8 JSON naming each tensor's dtype,
// shape and byte range, then the raw little-endian row-major bytes. Chosen for
// checkpoints because PyTorch and NumPy read it without our code and because, unlike
// pickle, reading one cannot execute anything. The reader treats the file as hostile:
// every number in the header is checked before it is used.
//
// ablate reads and writes F32, F64, I32 and BOOL (our f32, f64, i32, b8) of rank ≤ 4.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "autograd/tensor.h"

namespace ablate::nn {

struct SafetensorsFile {
  std::vector<std::pair<std::string, Tensor>> tensors;  // in file (data offset) order
  std::map<std::string, std::string> metadata;          // the "__metadata__" object
  const Tensor* find(const std::string& name) const;    // null when absent
};

// Throws std::runtime_error whose message starts with the path and says what is wrong
// ("model.safetensors: header length 999999 exceeds the file size 120").
SafetensorsFile read_safetensors(const std::string& path);

// Writes `tensors` in the given order (and `metadata` as "__metadata__") atomically:
// to "<path>.tmp.<pid>", flushed and fsynced, then renamed over `path`. On any failure
// the temp file is removed, an existing file at `path` is left untouched, and
// std::runtime_error names the path and the cause (a full disk, a missing directory).
// b8 tensors are stored as 0/1 bytes, as the format's BOOL requires.
void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata);

// The format's name of a dtype: "F32", "F64", "I32", "BOOL".
const char* safetensors_dtype_name(DType dtype);

}  // namespace ablate::nn
