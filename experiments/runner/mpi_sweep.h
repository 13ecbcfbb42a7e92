#pragma once
// A sweep spread over MPI ranks (`mpirun -np N ablate run FILE`). Rank 0 expands and
// validates the file, skips finished trials, hands the others out one at a time
// (longest first) to ranks 1..N-1, receives each finished trial's files by message
// and writes every output itself — so the ranks need no shared filesystem (only the
// task's data files, where a task reads any, at the same path). With N = 1 rank 0
// runs the sweep locally (--jobs threads). A trial that fails on a rank is recorded
// as `failed` with its error and the rank takes the next one. Results are the same
// as a local run's: each trial is single-threaded and deterministic wherever it runs.
#include <memory>
#include <string>

#include "experiments/runner/sweep_runner.h"

namespace boost::mpi {
class environment;
}

namespace ablate::experiments {

// MPI for the lifetime of this object (MPI_Init / MPI_Finalize through Boost.MPI).
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  int rank() const;

 private:
  std::unique_ptr<boost::mpi::environment> env_;
};

// True when this process was started by an MPI launcher (mpirun, mpiexec, srun),
// judged from the environment variables they set.
bool launched_by_mpi();

// Runs `file` over the ranks of MPI_COMM_WORLD (MPI must be initialised). Rank 0
// returns the sweep's summary; the other ranks return is_worker = true. Throws
// ConfigError on rank 0 for a bad file (the other ranks are released first).
struct MpiRunResult {
  bool is_worker = false;
  RunSummary summary;
};
MpiRunResult run_experiment_mpi(const std::string& file, const RunOptions& options);

}  // namespace ablate::experiments
