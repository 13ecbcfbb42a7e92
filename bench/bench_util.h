#pragma once
// Shared by the benchmark suites: peak resident memory as a counter.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

namespace ablate::bench {

inline double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

inline void report_peak_rss(benchmark::State& state) {
  state.counters["peak_rss_MiB"] = benchmark::Counter(peak_rss_mib());
}

}  // namespace ablate::bench
