#include "experiments/runner/mpi_sweep.h"

#include <unistd.h>

#include <boost/mpi.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/utility.hpp>
#include <boost/serialization/vector.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "experiments/config/config_error.h"
#include "experiments/config/trial_grid.h"
#include "experiments/io/atomic_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/report.h"
#include "experiments/runner/adaptive_sweep.h"
#include "experiments/runner/experiment_runner.h"
#include "experiments/runner/progress.h"
#include "experiments/runner/resume_state.h"
#include "experiments/runner/stop_signal.h"
#include "experiments/runner/trial_order.h"
#include "experiments/runner/trial_runner.h"
#include "experiments/runner/tuned_sweep.h"

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

// A trial to run: the trial of the experiment's grid at `index` with the trial seed
// `seed` (an adaptive sweep's later rounds add seeds the grid's first block does not
// have), and the bytes of its resume.safetensors (empty: none), so a rank continues a
// trial stopped on any other rank.
struct Assignment {
  std::int64_t index = 0;
  std::uint64_t seed = 0;
  std::string resume_state;
  std::int64_t pause_at_step = 0;  // Trial::pause_at_step: a halving rung (halving_stage.h)
  template <class Archive>
  void serialize(Archive& a, unsigned) {
    a& index& seed& resume_state& pause_at_step;
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
  load.print_notes = false;  // rank 0 printed them
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
    Trial t = reseeded(e.trials[std::size_t(a.index)], a.seed);
    t.pause_at_step = a.pause_at_step;
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

// Rank 0's side: hands out the trials of each round (one round for a fixed design) to
// the ranks as they become free, writes what they send back, and stops them at the end.
class Coordinator {
 public:
  Coordinator(mpi::communicator& world, const Experiment& e) : world_(world) {
    for (std::size_t i = 0; i < e.trials.size(); ++i) grid_index_.emplace(e.trials[i].point_id, i);
    for (int r = 1; r < world.size(); ++r) not_ready_.insert(r);
  }
  // Runs the plan's pending trials of `current` (trials of the grid's points).
  void run_round(const Experiment& current, SweepPlan& plan, const RunOptions& options,
                 const std::string& label);
  // Stops every rank (waiting for the ready message of one that has not sent it yet).
  void stop_all();

 private:
  bool hand_out(int rank);
  void receive(const mpi::status& s);

  mpi::communicator& world_;
  std::multimap<std::string, std::size_t> grid_index_;  // point id → its first-block trials
  std::set<int> not_ready_, idle_;
  // The round in progress.
  const Experiment* current_ = nullptr;
  RunSummary* summary_ = nullptr;
  Progress* progress_ = nullptr;
  std::vector<std::int64_t> queue_;  // indices into current_->trials, longest first
  std::size_t next_ = 0;
  int busy_ = 0;
  bool stopped_ = false;
  std::map<int, std::pair<int, std::int64_t>> running_;  // rank → progress slot, trial index
};

bool Coordinator::hand_out(int rank) {
  if (next_ >= queue_.size() || stop_signal()) return false;  // asked to stop: none starts
  const std::int64_t i = queue_[next_++];
  const Trial& t = current_->trials[std::size_t(i)];
  Assignment a{
      std::int64_t(grid_index_.find(t.point_id)->second), t.config.trial_seed, {}, t.pause_at_step};
  const TrialDir dir = RunDir(summary_->run_dir).trial(t.id);
  if (fs::exists(dir.resume_state())) a.resume_state = read_file(dir.resume_state());
  running_[rank] = {progress_->start(t.id, t.seeded_label(), t.config.train.steps), i};
  world_.send(rank, kAssign, a);
  ++busy_;
  return true;
}

void Coordinator::receive(const mpi::status& s) {
  const int rank = s.source();
  auto trial_dir = [&](std::int64_t i) {
    return RunDir(summary_->run_dir).trial(current_->trials[std::size_t(i)].id);
  };
  if (s.tag() == kReady) {
    int unused = 0;
    world_.recv(rank, kReady, unused);
    not_ready_.erase(rank);
    if (!hand_out(rank)) idle_.insert(rank);
  } else if (s.tag() == kProgress) {
    std::pair<std::int64_t, double> p;
    world_.recv(rank, kProgress, p);
    progress_->update(running_[rank].first, p.first, p.second);
  } else if (s.tag() == kState) {
    std::pair<std::int64_t, std::string> state;
    world_.recv(rank, kState, state);
    const TrialDir dir = trial_dir(running_[rank].second);
    fs::create_directories(dir.path());
    write_file_atomically(dir.resume_state(), state.second);
  } else if (s.tag() == kRecord) {
    Record r;
    world_.recv(rank, kRecord, r);
    write_record(trial_dir(running_[rank].second), r);
    progress_->finish(running_[rank].first, r.status);
    count_outcome(*summary_, r.status, r.resumed_from_step);
    --busy_;
    if (!hand_out(rank)) idle_.insert(rank);
  }
}

void Coordinator::run_round(const Experiment& current, SweepPlan& plan, const RunOptions& options,
                            const std::string& label) {
  current_ = &current;
  summary_ = &plan.summary;
  // Longest first, so the last trials to finish are short ones.
  std::vector<bool> pending(current.trials.size(), false);
  for (const Trial* p : plan.pending) pending[std::size_t(p - current.trials.data())] = true;
  queue_.clear();
  next_ = 0;
  for (std::size_t i : longest_first(current.trials))
    if (pending[i]) queue_.push_back(std::int64_t(i));
  if (options.progress) {
    const int workers = world_.size() - 1;  // rank 0 coordinates
    std::fprintf(stderr, "%s%s\n", label.empty() ? "" : (label + ": ").c_str(),
                 start_line(queue_.size(), std::size_t(plan.summary.total),
                            std::size_t(plan.summary.skipped), plan.summary.run_dir,
                            std::to_string(workers) + (workers == 1 ? " rank" : " ranks"))
                     .c_str());
  }
  Progress progress(plan.summary.total, plan.summary.skipped, options.progress, label);
  progress_ = &progress;
  for (auto it = idle_.begin(); it != idle_.end();)
    it = hand_out(*it) ? idle_.erase(it) : idle_.end();
  // Until the round's trials are all back (or, asked to stop, those running are).
  while (busy_ > 0 || (next_ < queue_.size() && !stop_signal() && !not_ready_.empty())) {
    // Poll rather than block: a blocking probe spins a core that, with more ranks
    // than cores, a worker needs.
    boost::optional<mpi::status> s = world_.iprobe(mpi::any_source, mpi::any_tag);
    if (!s) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    receive(*s);
  }
  progress.done();
  plan.summary.stopped_by = stop_signal();
  progress_ = nullptr;
}

void Coordinator::stop_all() {
  if (stopped_) return;
  stopped_ = true;
  for (int rank : not_ready_) {
    int unused = 0;
    world_.recv(rank, kReady, unused);
  }
  for (int r = 1; r < world_.size(); ++r) world_.send(r, kStop);
}

RunSummary coordinate(mpi::communicator& world, const Experiment& e, const RunOptions& options) {
  Coordinator ranks(world, e);
  auto run_round = [&](const Experiment& current, SweepPlan& plan, const RunOptions& o,
                       const std::string& label) { ranks.run_round(current, plan, o, label); };
  try {
    if (!e.tune_seeds.empty() || e.adaptive) {
      RunSummary summary = !e.tune_seeds.empty() ? run_tuned(e, options, run_round)
                                                 : run_adaptive(e, options, run_round);
      ranks.stop_all();
      return summary;
    }
    SweepPlan plan = plan_sweep(e, options);
    run_round(e, plan, options, "");
    ranks.stop_all();
    write_reports(plan.summary.run_dir);
    return plan.summary;
  } catch (...) {  // e.g. the run directory is locked: release the workers first
    ranks.stop_all();
    throw;
  }
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
