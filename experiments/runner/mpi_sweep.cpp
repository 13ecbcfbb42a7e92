#include "experiments/runner/mpi_sweep.h"

#include <unistd.h>

#include <boost/mpi.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/utility.hpp>
#include <boost/serialization/vector.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <thread>

#include "experiments/config/config_error.h"
#include "experiments/io/atomic_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/report.h"
#include "experiments/runner/progress.h"
#include "experiments/runner/resume_state.h"
#include "experiments/runner/stop_signal.h"
#include "experiments/runner/trial_order.h"
#include "experiments/runner/trial_runner.h"

namespace ablate::experiments {

namespace mpi = boost::mpi;
namespace fs = std::filesystem;

namespace {

// Messages. Rank 0 → worker: kAssign (a trial, with its saved state if it has one) or
// kStop. Worker → rank 0: kReady once, kProgress (step, loss) while training, kState
// (the trial's resume state, each time it is saved), kRecord (the trial's files) when
// it finished or was stopped.
enum Tag { kReady = 1, kAssign = 2, kStop = 3, kProgress = 4, kRecord = 5, kState = 6 };

// The experiment as rank 0 read it, so workers expand exactly the same trials.
struct Broadcast {
  std::string error;  // non-empty: rank 0 could not load the file; workers stop
  std::string file, base_dir, text;
  std::vector<std::string> plugins;  // --plugin paths, absolute (each rank loads them)
  std::vector<std::string> overrides;
  template <class Archive>
  void serialize(Archive& a, unsigned) {
    a& error& file& base_dir& text& plugins& overrides;
  }
};

// A trial to run, with the bytes of its resume.safetensors (empty: none), so a rank
// continues a trial stopped on any other rank.
struct Assignment {
  std::int64_t index = 0;
  std::string resume_state;
  template <class Archive>
  void serialize(Archive& a, unsigned) {
    a& index& resume_state;
  }
};

// A finished or stopped trial: its index, status and every file of its directory
// (name, bytes).
struct Record {
  std::int64_t index = 0;
  std::string status;
  std::int64_t resumed_from_step = 0;
  std::vector<std::string> names, contents;
  template <class Archive>
  void serialize(Archive& a, unsigned) {
    a& index& status& resumed_from_step& names& contents;
  }
};

// Workers parse the text rank 0 sent, from a private copy, with rank 0's base
// directory (relative data and plugin paths resolve as they did there), and load the
// same plugins.
Experiment load_copy(const Broadcast& b, const std::string& scratch) {
  std::string path = scratch + "/experiment.toml";
  write_file_atomically(path, b.text);
  LoadOptions load;
  load.plugins = b.plugins;
  load.base_dir = b.base_dir;
  load.overrides = b.overrides;
  Experiment e = load_experiment(path, load);
  e.file = b.file;
  return e;
}

void worker(mpi::communicator& world, const Broadcast& b) {
  fs::path scratch = fs::temp_directory_path() / ("ablate-rank" + std::to_string(world.rank()) +
                                                  "-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  Experiment e = load_copy(b, scratch.string());
  world.send(0, kReady, 0);
  while (true) {
    mpi::status s = world.probe(0, mpi::any_tag);
    if (s.tag() == kStop) {
      world.recv(0, kStop);
      break;
    }
    Assignment a;
    world.recv(0, kAssign, a);
    const Trial& t = e.trials[std::size_t(a.index)];
    fs::path dir = scratch / t.id;
    fs::remove_all(dir);
    fs::create_directories(dir);
    if (!a.resume_state.empty())
      write_file_atomically(TrialDir(dir.string()).resume_state(), a.resume_state);
    TrialOutcome o = run_trial(
        t, e.base_dir, dir.string(),
        [&](std::int64_t step, double loss) {
          world.send(0, kProgress, std::make_pair(step, loss));
        },
        [&](const std::string& path) {
          world.send(0, kState, std::make_pair(a.index, read_file(path)));
        });
    Record r{a.index, o.status, o.resumed_from_step, {}, {}};
    for (const auto& f : fs::directory_iterator(dir)) {
      r.names.push_back(f.path().filename().string());
      r.contents.push_back(read_file(f.path().string()));
    }
    world.send(0, kRecord, r);
    fs::remove_all(dir);
  }
  fs::remove_all(scratch);
}

// Writes a trial's files into its directory, summary.json last (its presence marks
// the trial finished, so an interrupted write is rerun, never half-trusted). A finished
// trial's resume state, written there while it ran, goes once summary.json is there.
void write_record(const TrialDir& dir, const Record& r) {
  fs::create_directories(dir.path());
  bool finished = false;
  for (std::size_t i = 0; i < r.names.size(); ++i)
    if (r.names[i] != TrialDir::kSummary)
      write_file_atomically(dir.file(r.names[i]), r.contents[i]);
  for (std::size_t i = 0; i < r.names.size(); ++i)
    if (r.names[i] == TrialDir::kSummary) {
      write_file_atomically(dir.file(r.names[i]), r.contents[i]);
      finished = true;
    }
  if (finished) fs::remove(dir.resume_state());
}

RunSummary coordinate(mpi::communicator& world, const Experiment& e, const RunOptions& options) {
  SweepPlan plan;
  try {
    plan = plan_sweep(e, options);
  } catch (...) {  // e.g. the run directory is locked: release the workers first
    for (int r = 1; r < world.size(); ++r) world.send(r, kStop);
    throw;
  }
  RunSummary& summary = plan.summary;
  // Longest first, so the last trials to finish are short ones.
  std::vector<bool> pending(e.trials.size(), false);
  for (const Trial* p : plan.pending) pending[std::size_t(p - e.trials.data())] = true;
  std::vector<std::int64_t> queue;
  for (std::size_t i : longest_first(e.trials))
    if (pending[i]) queue.push_back(std::int64_t(i));
  std::size_t next = 0;
  Progress progress(summary.total, summary.skipped, options.progress);
  std::map<int, int> slot_of;  // rank → progress slot of its running trial
  auto trial_dir = [&](std::int64_t i) {
    return RunDir(summary.run_dir).trial(e.trials[std::size_t(i)].id);
  };
  auto hand_out = [&](int rank) {
    if (next < queue.size() && !stop_signal()) {  // asked to stop: no new trial starts
      Assignment a{queue[next++], {}};
      const Trial& t = e.trials[std::size_t(a.index)];
      if (fs::exists(trial_dir(a.index).resume_state()))
        a.resume_state = read_file(trial_dir(a.index).resume_state());
      slot_of[rank] = progress.start(t.id, t.seeded_label(), t.config.train.steps);
      world.send(rank, kAssign, a);
      return true;
    }
    world.send(rank, kStop);
    return false;
  };
  int working = world.size() - 1;  // ranks not yet stopped
  while (working > 0) {
    // Poll rather than block: a blocking probe spins a core that, with more ranks
    // than cores, a worker needs.
    boost::optional<mpi::status> s = world.iprobe(mpi::any_source, mpi::any_tag);
    if (!s) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    int rank = s->source();
    if (s->tag() == kReady) {
      int unused = 0;
      world.recv(rank, kReady, unused);
      if (!hand_out(rank)) --working;
    } else if (s->tag() == kProgress) {
      std::pair<std::int64_t, double> p;
      world.recv(rank, kProgress, p);
      progress.update(slot_of[rank], p.first, p.second);
    } else if (s->tag() == kState) {
      std::pair<std::int64_t, std::string> state;
      world.recv(rank, kState, state);
      fs::create_directories(trial_dir(state.first).path());
      write_file_atomically(trial_dir(state.first).resume_state(), state.second);
    } else if (s->tag() == kRecord) {
      Record r;
      world.recv(rank, kRecord, r);
      write_record(trial_dir(r.index), r);
      progress.finish(slot_of[rank], r.status);
      count_outcome(summary, r.status, r.resumed_from_step);
      if (!hand_out(rank)) --working;
    }
  }
  progress.done();
  summary.stopped_by = stop_signal();
  write_reports(summary.run_dir);
  return summary;
}

}  // namespace

MpiSession::MpiSession(int& argc, char**& argv)
    : env_(std::make_unique<mpi::environment>(argc, argv, mpi::threading::single)) {}

MpiSession::~MpiSession() = default;

int MpiSession::rank() const {
  return mpi::communicator().rank();
}

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

MpiRunResult run_experiment_mpi(const std::string& file, const RunOptions& options) {
  mpi::communicator world;
  MpiRunResult result;
  Broadcast b;
  Experiment e;
  if (world.rank() == 0) {
    try {
      e = load_experiment(file, load_options(options));
      b.file = e.file;
      b.base_dir = std::filesystem::absolute(e.base_dir).string();
      for (const std::string& p : options.plugins)
        b.plugins.push_back(std::filesystem::absolute(p).string());
      b.overrides = options.overrides;
      b.text = read_file(file);
    } catch (const std::exception& err) {
      b.error = err.what();
    }
  }
  mpi::broadcast(world, b, 0);
  if (world.rank() != 0) {
    result.is_worker = true;
    if (b.error.empty()) worker(world, b);
    return result;
  }
  if (!b.error.empty())
    load_experiment(file, load_options(options));  // rethrows the ConfigError for the CLI
  result.summary = world.size() == 1 ? run_experiment(e, options) : coordinate(world, e, options);
  return result;
}

}  // namespace ablate::experiments
