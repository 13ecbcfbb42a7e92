#include "experiments/stats/t_boundaries.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "experiments/stats/calibration.h"

namespace ablate::experiments::stats {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint64_t kNullSeed = 20261207;

// T at every look of `paths` studies of normal gains with mean `effect` (sd 1), path by
// path: t[path × looks + k]. Floats: 2^18 paths of up to 50 looks stay near 50 MB.
std::vector<float> simulate_paths(std::span<const double> looks, double effect, int paths,
                                  std::uint64_t seed) {
  const std::size_t k_looks = looks.size();
  std::vector<float> t(std::size_t(paths) * k_looks);
  SimulationDraws draws(seed);
  for (int p = 0; p < paths; ++p) {
    double mean = 0, m2 = 0;  // Welford's running mean and sum of squares
    std::size_t k = 0;
    for (int n = 1; n <= int(looks.back()); ++n) {
      const double x = effect + draws.normal(), d = x - mean;
      mean += d / n;
      m2 += d * (x - mean);
      if (n == int(looks[k])) {
        const double sd = std::sqrt(m2 / (n - 1));
        t[std::size_t(p) * k_looks + k++] = float(mean / (sd / std::sqrt(double(n))));
      }
    }
  }
  return t;
}

std::string key_of(std::span<const double> looks) {
  return std::string(reinterpret_cast<const char*>(looks.data()), looks.size_bytes());
}

std::mutex paths_mutex;

const std::vector<float>& null_paths(std::span<const double> looks) {
  static std::map<std::string, std::unique_ptr<std::vector<float>>> cache;
  const std::lock_guard lock(paths_mutex);
  auto& slot = cache[key_of(looks)];
  if (!slot)
    slot = std::make_unique<std::vector<float>>(simulate_paths(looks, 0, kNullPaths, kNullSeed));
  return *slot;
}

}  // namespace

std::vector<double> t_efficacy_boundaries(Spending s, double level, bool two_sided,
                                          std::span<const double> looks, double budget) {
  for (std::size_t k = 0; k < looks.size(); ++k)
    if (!(looks[k] >= 2) || (k && !(looks[k] > looks[k - 1])))
      throw std::invalid_argument("t boundaries: looks need 2 or more pairs, increasing");
  static std::map<std::string, std::vector<double>> cache;
  std::string key = key_of(looks);
  for (double v : {double(s), level, double(two_sided), budget})
    key.append(reinterpret_cast<const char*>(&v), sizeof v);
  {
    const std::lock_guard lock(paths_mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  const std::vector<float>& t = null_paths(looks);
  const std::size_t k_looks = looks.size();
  std::vector<bool> going(kNullPaths, true);
  std::vector<float> values;
  std::vector<double> bounds;
  long crossed = 0;
  for (std::size_t k = 0; k < k_looks; ++k) {
    const long target = long(std::floor(spent_error(s, level, looks[k] / budget) * kNullPaths));
    double bound = kInf;
    if (target > crossed) {
      values.clear();
      for (int p = 0; p < kNullPaths; ++p)
        if (going[std::size_t(p)]) {
          const float v = t[std::size_t(p) * k_looks + k];
          values.push_back(two_sided ? std::abs(v) : v);
        }
      const std::size_t r = std::size_t(target - crossed);
      if (r >= values.size()) {
        bound = -kInf;
      } else {
        std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(r - 1), values.end(),
                         std::greater<float>());
        bound = values[r - 1];
      }
      for (int p = 0; p < kNullPaths; ++p) {
        const float v = t[std::size_t(p) * k_looks + k];
        if (going[std::size_t(p)] && (two_sided ? std::abs(v) : v) >= bound)
          going[std::size_t(p)] = false, ++crossed;
      }
    }
    bounds.push_back(bound);
  }
  const std::lock_guard lock(paths_mutex);
  return cache.emplace(key, bounds).first->second;
}

OperatingPoint simulated_operating_point(std::span<const double> looks,
                                         std::span<const double> efficacy,
                                         std::span<const double> futility, bool two_sided,
                                         double effect, int paths, std::uint64_t seed) {
  const std::vector<float> t = simulate_paths(looks, effect, paths, seed);
  const std::size_t k_looks = looks.size();
  OperatingPoint out;
  for (int p = 0; p < paths; ++p) {
    double used = looks.back();
    for (std::size_t k = 0; k < k_looks; ++k) {
      const double v = t[std::size_t(p) * k_looks + k];
      if (v >= efficacy[k] || (two_sided && -v >= efficacy[k])) {
        out.reject += v >= efficacy[k];
        used = looks[k];
        break;
      }
      if ((two_sided ? std::abs(v) : v) < futility[k]) {
        out.futile += 1;
        used = looks[k];
        break;
      }
    }
    out.expected_information += used;
  }
  out.reject /= paths;
  out.futile /= paths;
  out.expected_information /= paths;
  return out;
}

}  // namespace ablate::experiments::stats
