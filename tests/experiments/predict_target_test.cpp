// checkpoint_of() with a run directory from someone else: its trials.json may hold any
// number of points, seeds and swept keys, and the errors that list them stay short.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "experiments/runner/predict_target.h"

namespace fs = std::filesystem;
using namespace ablate::experiments;

namespace {

// A run directory whose trials.json lists `points` points of `seeds` seeds each, and
// `keys` swept keys (model.k0, model.k1, ...).
std::string hostile_run(const std::string& name, int points, int seeds, int keys) {
  const fs::path dir =
      fs::temp_directory_path() / ("ablate-" + std::to_string(::getpid()) + "-" + name);
  fs::create_directories(dir / "trials");
  nlohmann::json index{{"swept_keys", nlohmann::json::array()},
                       {"trials", nlohmann::json::array()}};
  for (int k = 0; k < keys; ++k) index["swept_keys"].push_back("model.k" + std::to_string(k));
  for (int p = 0; p < points; ++p)
    for (int s = 0; s < seeds; ++s)
      index["trials"].push_back({{"id", std::to_string(p) + "-" + std::to_string(s)},
                                 {"label", "model.k0=" + std::to_string(p)},
                                 {"point", {{"model.k0", std::to_string(p)}}},
                                 {"seed", s}});
  std::ofstream(dir / "trials.json") << index.dump();
  return dir.string();
}

std::string error_of(const PredictTarget& target) {
  try {
    checkpoint_of(target);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  FAIL("checkpoint_of accepted " << target.path);
  return "";
}

}  // namespace

TEST_CASE("a run's points are listed to at most 20, with at most 10 seeds each", "[predict]") {
  const std::string many_points = hostile_run("many-points", 100000, 1, 1);
  const std::string message = error_of({many_points, {"model.k0=none"}, std::nullopt});
  CHECK_THAT(message, Catch::Contains("no trial has model.k0=none") &&
                          Catch::Contains("model.k0=19  seeds 0") &&
                          Catch::Contains("... and 99980 more points"));
  CHECK(std::count(message.begin(), message.end(), '\n') == 21);  // 20 points, the count

  const std::string many_seeds = hostile_run("many-seeds", 2, 5000, 1);
  const std::string seeds = error_of({many_seeds, {"model.k0=none"}, std::nullopt});
  CHECK_THAT(seeds,
             Catch::Contains("model.k0=1  seeds 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ... (5000 seeds)"));
  CHECK(seeds.size() < 1000);
  fs::remove_all(many_points);
  fs::remove_all(many_seeds);
}

TEST_CASE("a --point that names no swept key lists at most 20 of the run's keys", "[predict]") {
  const std::string run = hostile_run("many-keys", 1, 1, 50000);
  const std::string message = error_of({run, {"nothing=1"}, std::nullopt});
  CHECK_THAT(message,
             Catch::Contains("not a swept key") && Catch::Contains("model.k19, ... (50000 keys)"));
  CHECK(message.size() < 2000);
  fs::remove_all(run);
}
