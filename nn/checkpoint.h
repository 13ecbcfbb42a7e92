#pragma once
// Checkpoints: a module's parameters and buffers in a safetensors file, keyed by their
// dotted names ("encoder.layers.0.self_attn.w_q.weight"), so PyTorch and NumPy can
// read them (nn/CHECKPOINTS.md). Loading compares the file with the module key by key
// and reports every missing, unexpected and mis-shaped name instead of stopping at the
// first.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nn/module.h"
#include "nn/safetensors.h"

namespace ablate::nn {

// Metadata every checkpoint carries; callers may not set these keys themselves.
inline constexpr const char* kCheckpointFormat = "ablate-checkpoint";
inline constexpr const char* kCheckpointFormatVersion = "1";

struct LoadReport {
  std::vector<std::string> missing;     // in the module, not in the file
  std::vector<std::string> unexpected;  // in the file, not in the module
  std::vector<std::string> mismatched;  // "name: file F32 [4, 3], model F32 [3, 4]"
  bool ok() const { return missing.empty() && unexpected.empty() && mismatched.empty(); }
  std::string str() const;  // by kind: the first 50 keys a line each, then a count
};

// Names of tensors saved beside the module's (through `extra`) start with one of these:
// "optimizer." for optimizer state, "extra." for anything else the caller keeps (a
// resume state's copy of the model validation selected). Loading never calls them
// unexpected; they stay in Checkpoint::file for the caller.
inline constexpr const char* kOptimizerPrefix = "optimizer.";
inline constexpr const char* kExtraPrefix = "extra.";

// Saves every parameter and buffer of `module` by dotted name, `extra` tensors (e.g.
// optimizer state, named "optimizer.<...>") alongside, and metadata: "format" =
// "ablate-checkpoint", "format_version" = "1" and the caller's entries (e.g. "config",
// "step"). Atomic, like write_safetensors; throws std::runtime_error naming the path.
void save_checkpoint(const Module& module, const std::string& path,
                     const std::map<std::string, std::string>& metadata = {},
                     const std::vector<std::pair<std::string, Tensor>>& extra = {});

struct Checkpoint {
  SafetensorsFile file;  // everything read, including "optimizer.*" tensors and metadata
  LoadReport report;
};

// Copies the file's values into the module's parameters and buffers, in place (so
// anything aliasing them, such as a tied output projection, sees the new values).
// A dtype difference is a mismatch, never a silent conversion. Keys starting with
// "optimizer." are left for the optimizer and are not "unexpected".
// strict: unless the report is ok, throws std::runtime_error
// "<path>: checkpoint does not fit the model:\n<report>" and changes nothing.
// Not strict: copies every key that fits and returns the report of the rest.
Checkpoint load_checkpoint(Module& module, const std::string& path, bool strict = true);

// An owning copy of the module's parameters and buffers by dotted name: a model kept in
// memory while training goes on (the one validation selected).
std::vector<std::pair<std::string, Tensor>> copy_state(const Module& module);
// Copies such a state back into the module, in place. Every key of the module must be
// there with its shape and dtype: std::invalid_argument names the first that is not,
// and nothing is changed.
void restore_state(Module& module, const std::vector<std::pair<std::string, Tensor>>& state);

}  // namespace ablate::nn
