// Fuzz target: a results folder's record.jsonl (run_record.h), unpacked into a run
// directory and read as `ablate report` and `ablate compare` read one
// (read_run_points). A bad record must be a std::invalid_argument starting with the
// record's path (exit 2, nothing written); what it unpacks must then read without a
// crash — a value the record let through that the reader refuses is a
// std::runtime_error naming the unpacked run directory. Anything else is a finding.
#include <filesystem>
#include <stdexcept>
#include <string>

#include "experiments/reports/run_points.h"
#include "experiments/reports/run_record.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace fs = std::filesystem;
  using namespace ablate::fuzz;
  const std::string record = write_scratch_file("record.jsonl", data, size);
  const std::string run_dir = (scratch_dir() / "run").string();
  fs::remove_all(run_dir);  // unpacking wants an empty directory, as a rebuild makes one
  fs::create_directories(run_dir);
  try {
    ablate::experiments::unpack_run_record(record, run_dir);
  } catch (const std::invalid_argument& error) {
    require(std::string(error.what()).rfind(record, 0) == 0, "a refused record is named");
    require(!fs::exists(run_dir + "/trials.json"), "a refused record writes nothing");
    return 0;
  }
  rejected_naming(run_dir, [&] { (void)ablate::experiments::read_run_points(run_dir); });
  return 0;
}
