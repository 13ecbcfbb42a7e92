// bench_libtorch: PyTorch's side of bench/compare_torch.py without Python. Builds one
// reference model (bench/libtorch_reference_model.h) in libtorch's C++ API, times a
// training step (forward, backward, Adam) or a forward pass the way compare_torch.py's
// Python worker times it, on one thread, and prints one JSON line:
//
//   bench_libtorch --config tiny|small|medium|base --mode train|forward
//                  [--precision f32|bf16] [--reps 5] [--min-time 0.5]
//   bench_libtorch --mode tape [--reps 5] [--min-time 0.5]   # (x*w).sum() fwd + bwd, 8 elements
//
//   {"torch_version": ..., "reps_ms": [...], "median_ms": ..., "first_loss": ...,
//    "import_rss_mib": ..., "peak_rss_mib": ...}
//
// bf16 is CPU autocast around the forward pass and the loss, as torch.autocast("cpu",
// dtype=torch.bfloat16) does it in Python; backward and Adam run outside it.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <sys/resource.h>
#include <torch/optim/adam.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "bench/libtorch_reference_model.h"

namespace lt = ablate::bench::libtorch;

namespace {

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

// torch.autocast("cpu", dtype=...) as a scope: its __enter__ and __exit__, including the
// cache of cast weights that is dropped when the outermost region ends (every step).
class CpuAutocast {
 public:
  explicit CpuAutocast(bool enabled, at::ScalarType dtype) : enabled_(enabled) {
    if (!enabled_) return;
    prev_cache_ = at::autocast::is_autocast_cache_enabled();
    prev_enabled_ = at::autocast::is_cpu_enabled();
    prev_dtype_ = at::autocast::get_autocast_cpu_dtype();
    at::autocast::set_cpu_enabled(true);
    at::autocast::set_autocast_cpu_dtype(dtype);
    at::autocast::increment_nesting();
    at::autocast::set_autocast_cache_enabled(true);
  }
  ~CpuAutocast() {
    if (!enabled_) return;
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    at::autocast::set_cpu_enabled(prev_enabled_);
    at::autocast::set_autocast_cpu_dtype(prev_dtype_);
    at::autocast::set_autocast_cache_enabled(prev_cache_);
  }
  CpuAutocast(const CpuAutocast&) = delete;
  CpuAutocast& operator=(const CpuAutocast&) = delete;

 private:
  bool enabled_, prev_cache_ = true, prev_enabled_ = false;
  at::ScalarType prev_dtype_ = at::kBFloat16;
};

// compare_torch.py's time_reps: 3 warm-up steps, one step to size a repetition, then
// `reps` repetitions of n steps each lasting >= min_time; ms per step of each.
std::vector<double> time_reps(const std::function<double()>& step, int reps, double min_time) {
  using clock = std::chrono::steady_clock;
  auto seconds = [](clock::time_point a, clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  for (int i = 0; i < 3; ++i) step();
  auto t0 = clock::now();
  step();
  long n = std::max(1L, long(std::ceil(min_time / std::max(seconds(t0, clock::now()), 1e-9))));
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    t0 = clock::now();
    for (long i = 0; i < n; ++i) step();
    times.push_back(seconds(t0, clock::now()) / double(n) * 1e3);
  }
  return times;
}

struct Options {
  std::string config = "tiny", mode = "train", precision = "f32";
  int reps = 5;
  double min_time = 0.5;
};

[[noreturn]] void usage(const std::string& error) {
  std::cerr << "bench_libtorch: " << error
            << "\nusage: bench_libtorch --config tiny|small|medium|base --mode train|forward|tape "
               "[--precision f32|bf16] [--reps N] [--min-time SECONDS]\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) usage("missing value after " + a);
    std::string v = argv[++i];
    if (a == "--config")
      o.config = v;
    else if (a == "--mode")
      o.mode = v;
    else if (a == "--precision")
      o.precision = v;
    else if (a == "--reps")
      o.reps = std::atoi(v.c_str());
    else if (a == "--min-time")
      o.min_time = std::atof(v.c_str());
    else
      usage("unknown option " + a);
  }
  if (o.mode != "train" && o.mode != "forward" && o.mode != "tape") usage("--mode: " + o.mode);
  if (o.precision != "f32" && o.precision != "bf16") usage("--precision: " + o.precision);
  if (o.reps < 1 || !(o.min_time > 0)) usage("--reps must be >= 1 and --min-time > 0");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  at::set_num_threads(1);
  at::set_num_interop_threads(1);
  double import_rss = peak_rss_mib();
  const bool bf16 = o.precision == "bf16";

  std::function<double()> step;
  std::shared_ptr<lt::Seq2Seq> model;
  std::unique_ptr<torch::optim::Adam> adam;
  lt::CopyBatch batch;
  at::Tensor x, w;
  if (o.mode == "tape") {
    // Gradients accumulate into .grad between calls, as in the Python worker and ours.
    x = at::ones({8}).requires_grad_(true);
    w = at::full({8}, 0.5).requires_grad_(true);
    step = [&] {
      (x * w).sum().backward();
      return 0.0;
    };
  } else {
    const ablate::bench::ReferenceConfig* c = nullptr;
    try {
      c = &ablate::bench::reference_config(o.config);
    } catch (const std::exception& e) {
      usage(e.what());
    }
    at::manual_seed(0);
    batch = lt::make_copy_batch(*c);  // drawn before the model, as compare_torch.py does
    model = std::make_shared<lt::Seq2Seq>(*c);
    const std::int64_t V = c->vocab;
    auto loss_of = [&, V] {
      CpuAutocast autocast(bf16, at::kBFloat16);
      at::Tensor logits = model->forward(batch.src, batch.tgt_in);
      return at::cross_entropy_loss(logits.reshape({-1, V}), batch.targets.reshape({-1}), {},
                                    at::Reduction::Mean,
                                    /*ignore_index=*/0, /*label_smoothing=*/0.0);
    };
    if (o.mode == "train") {
      // The update of Python's single-tensor Adam (1.13's default on CPU), op for op;
      // only its step counter is an integer here, a one-element tensor in Python.
      adam = std::make_unique<torch::optim::Adam>(model->parameters(),
                                                  torch::optim::AdamOptions(1e-4));
      step = [&, loss_of] {
        // zero_grad(set_to_none=True), as the Python worker does; libtorch 1.13's
        // Optimizer::zero_grad() would zero the buffers instead.
        for (at::Tensor& p : model->parameters()) p.mutable_grad().reset();
        at::Tensor loss = loss_of();
        loss.backward();
        adam->step();
        return loss.item<double>();
      };
    } else {
      // eval(): the encoder's inference fast path, as model.eval() in Python. Not under
      // bf16 autocast, where 1.13's fused encoder kernel fails ("expected scalar type
      // BFloat16 but found Float", in Python too): the model stays in training mode,
      // the same computation at dropout 0, on the modules' regular path.
      if (!bf16) model->eval();
      step = [loss_of] {
        at::NoGradGuard no_grad;
        return loss_of().item<double>();
      };
    }
  }
  double first_loss = step();  // the first of time_reps' warm-up steps, before any update
  std::vector<double> times = time_reps(step, o.reps, o.min_time);
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  std::size_t n = sorted.size();
  double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;

  std::printf("{\"torch_version\": \"%s\", \"reps_ms\": [", TORCH_VERSION);
  for (std::size_t i = 0; i < n; ++i) std::printf("%s%.9g", i ? ", " : "", times[i]);
  std::printf(
      "], \"median_ms\": %.9g, \"first_loss\": %.17g, \"import_rss_mib\": %.6g, \"peak_rss_mib\": "
      "%.6g}\n",
      median, first_loss, import_rss, peak_rss_mib());
  return 0;
}
