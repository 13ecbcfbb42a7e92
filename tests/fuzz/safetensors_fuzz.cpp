// Fuzz target: the safetensors reader (checkpoints from elsewhere) and the checkpoint
// loader that compares a file with a model.
//
// Bad input must be a std::runtime_error naming the file — never a crash, an
// allocation of what a hostile header claims, or another exception. Accepted input must
// survive a round trip: written back with write_safetensors and read again, every
// tensor (name, dtype, shape, bytes — truth values for BOOL) and the metadata are
// unchanged. Loading it into a small model (not strict) must report whatever does
// not fit, or throw a std::runtime_error naming the file (another format_version).
#include <cstdio>
#include <cstring>
#include <string>

#include "nn/checkpoint.h"
#include "nn/layers/linear.h"
#include "nn/safetensors.h"
#include "tests/fuzz/fuzz_input.h"

using namespace ablate;
using ablate::fuzz::require;
using ablate::fuzz::write_scratch_file;

namespace {

// Equal dtype, shape and bytes — for b8 equal truth values: ablate's b8 means
// "nonzero = true", and the writer stores BOOL as exactly 0 or 1 as the format asks.
bool same_tensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() != DType::b8) return std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
  const auto* pa = static_cast<const std::uint8_t*>(a.raw());
  const auto* pb = static_cast<const std::uint8_t*>(b.raw());
  for (std::size_t i = 0; i < a.nbytes(); ++i)
    if ((pa[i] != 0) != (pb[i] != 0)) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = write_scratch_file("input.safetensors", data, size);
  nn::SafetensorsFile file;
  if (fuzz::rejected_naming(path, [&] { file = nn::read_safetensors(path); })) return 0;
  const std::string copy = (fuzz::scratch_dir() / "copy.safetensors").string();
  nn::write_safetensors(copy, file.tensors, file.metadata);
  nn::SafetensorsFile again = nn::read_safetensors(copy);
  require(again.metadata == file.metadata, "metadata survives a round trip");
  require(again.tensors.size() == file.tensors.size(), "every tensor survives a round trip");
  for (std::size_t i = 0; i < file.tensors.size(); ++i) {
    require(again.tensors[i].first == file.tensors[i].first, "names survive in order");
    if (!same_tensor(again.tensors[i].second, file.tensors[i].second))
      std::fprintf(stderr, "tensor '%s' differs after a round trip\n",
                   file.tensors[i].first.c_str());
    require(same_tensor(again.tensors[i].second, file.tensors[i].second),
            "dtype, shape and bytes survive a round trip");
  }

  // The model's keys are "weight" [3, 2] and "bias" [3] (f32).
  Generator gen(0);
  nn::Linear model(2, 3, /*bias=*/true, gen);
  nn::Checkpoint loaded;
  if (!fuzz::rejected_naming(path,
                             [&] { loaded = nn::load_checkpoint(model, path, /*strict=*/false); }))
    require(loaded.file.tensors.size() == file.tensors.size(),
            "the loader reads what the reader reads");
  return 0;
}
