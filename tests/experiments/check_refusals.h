#pragma once
// The exit-2 cases of an experiment file, checked alike: `ablate check` on a base file
// plus each case's text must exit 2 and print the expected words after the file's path
// (so the problem names its file, line and key).
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "tests/build_paths.h"
#include "tests/experiments/experiment_files.h"

namespace ablate::experiments::testing {

// (text appended to `base`, words the refusal must contain)
using RefusalCase = std::pair<std::string, std::string>;

inline void check_refusals(const ScratchDir& dir, const std::string& base,
                           const std::vector<RefusalCase>& cases) {
  int k = 0;
  for (const auto& [extra, expected] : cases) {
    const std::string file = dir.file("bad" + std::to_string(k++) + ".toml", base + extra);
    CommandResult r = run_command(std::string(ABLATE_CLI) + " check " + file);
    INFO(extra << r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(expected) && Catch::Contains(file + ":"));
  }
}

}  // namespace ablate::experiments::testing
