#include "experiments/runner/trial_runner.h"

#include "experiments/runner/stop_signal.h"

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "autograd/kernels/gemm.h"
#include "experiments/config/task_cache.h"
#include "experiments/io/atomic_file.h"
#include "experiments/models/model_factory.h"
#include "experiments/records/metrics_log.h"
#include "experiments/records/provenance.h"
#include "experiments/records/run_dir.h"
#include "experiments/records/trial_summary.h"
#include "experiments/runner/evaluation.h"
#include "experiments/runner/initial_gradients.h"
#include "experiments/runner/norm_telemetry.h"
#include "experiments/runner/resume_state.h"
#include "experiments/runner/trial_artifacts.h"
#include "nn/checkpoint.h"
#include "nn/interrupt.h"
#include "nn/optim/gradients.h"
#include "nn/optim/optimizer.h"
#include "nn/optim/schedule.h"

namespace ablate::experiments {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kBatchStream = 0x6261746368;  // "batch": training data draws

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

// The attention path of every module's forwards so far, summed; the first reason (in
// module order) a forward was not fused, prefixed by its module's name.
nn::AttentionPathRecord attention_path_of(nn::Module& model) {
  nn::AttentionPathRecord total;
  for (const auto& [name, module] : nn::attention_modules(model)) {
    const nn::AttentionPathRecord& r = module->path_record();
    total.fused += r.fused;
    total.general += r.general;
    if (total.why_not_fused.empty() && !r.why_not_fused.empty())
      total.why_not_fused = name + ": " + r.why_not_fused;
  }
  return total;
}

// What computed the trial's numbers beyond its config: the attention path, the GEMM
// backend and the matmul precision (a backend change was measured to move means).
SummaryComputation computation_of(const Trial& trial, const nn::AttentionPathRecord& a) {
  SummaryComputation c;
  c.attention_path = a.fused == 0 && a.general == 0 ? "none"
                     : a.general == 0               ? "fused"
                     : a.fused == 0                 ? "general"
                                                    : "mixed";
  // No counts: they depend on how the forwards ran (train.recompute repeats them, a
  // resumed trial counts only its own process's), not on what was computed.
  if (!a.why_not_fused.empty()) c.why_not_fused = a.why_not_fused;
  c.gemm_backend = kernels::gemm_backend_name(kernels::gemm_backend());
  c.precision = trial.config.train.precision;
  return c;
}

TrialSummary trial_summary(const Trial& trial, const TrialOutcome& o) {
  TrialSummary s;
  s.id = trial.id;
  s.status = o.status;
  if (!o.error.empty()) s.error = o.error;
  s.params = o.params;
  s.steps = o.steps;
  s.train_steps = trial.config.train.steps;  // configured (steps is fewer after an early stop)
  s.resumed_from_step = o.resumed_from_step;
  if (o.diverged_at) s.diverged_at = o.diverged_at;
  s.stopped_early = o.stopped_early;
  s.final = validation_record(o.final);  // without the telemetry (per evaluation, not a result)
  s.best = validation_record(o.best);
  // The test split, evaluated once with the model validation selected (o.best.step).
  if (o.tested) s.test = test_record(o.test);
  s.init_gradients = o.init_gradients;
  // BatchNorm drift over all of training, and over the last interval (the last evaluation's).
  if (!o.norm_drift_training.empty())
    s.norm_drift = BatchNormDrift{o.norm_drift_training, o.final.norm_drift};
  s.wall_seconds = o.wall_seconds;
  s.steps_per_second = o.steps_per_second;
  s.peak_rss_mib = o.peak_rss_mib;
  s.seed = trial.config.trial_seed;
  s.data_seed = trial.config.data_seed;
  // The files the trial read, with the content it read (its identity includes it).
  for (const auto& [key, digest] : trial.config.task.file_sha256)
    s.files["task." + key] = {trial.config.task.options.get_string(key), digest};
  s.code_version = code_version();
  s.computation = computation_of(trial, o.attention_path);
  s.plugins = trial.config.plugins;
  s.point.emplace();
  for (const auto& [k, v] : trial.point) (*s.point)[k] = v;
  // The process that finished the trial (a resumed trial's earlier processes ran the
  // same ablate version: resume_state.h refuses another).
  s.provenance = provenance();
  return s;
}

// A trial that ran out of memory despite the estimate checked before it started
// (experiments/models/memory_estimate.h): the estimate is a lower bound, not a promise.
std::string out_of_memory_message(const Trial& trial) {
  const TrialConfig& c = trial.config;
  return "trial " + trial.id +
         " ran out of memory (d_model = " + std::to_string(c.model.transformer.d_model) +
         ", max_len = " + std::to_string(c.model.transformer.max_len) +
         ", batch = " + std::to_string(c.train.batch) +
         ", validation_batch = " + std::to_string(c.train.validation_batch) +
         "): lower one of them, or run it on a machine with more memory";
}

// GEMM threads are a per-thread setting: this trial's, restored for the next trial
// that runs on this worker thread.
struct GemmThreadsScope {
  int previous = kernels::gemm_threads();
  explicit GemmThreadsScope(std::int64_t n) { kernels::set_gemm_threads(int(n)); }
  ~GemmThreadsScope() { kernels::set_gemm_threads(previous); }
};

// Training time, across resumes: this process's clock plus the time the saved state had.
struct TrainingClock {
  Clock::time_point start = Clock::now();
  double earlier_seconds = 0;  // training time before a resume
  double elapsed() const {
    return earlier_seconds + std::chrono::duration<double>(Clock::now() - start).count();
  }
  void resume_from(double seconds) {
    earlier_seconds = seconds;
    start = Clock::now();
  }
};

// Fault injection for tests of failure handling (a trial that throws mid-sweep, on
// whichever thread or MPI rank runs it).
void inject_failure_for_tests(const Trial& trial) {
  if (const char* fail = std::getenv("ABLATE_FAIL_TRIAL"); fail && trial.id == fail)
    throw std::runtime_error("injected failure (ABLATE_FAIL_TRIAL=" + trial.id + ")");
}

// One trial's training: set up (and resumed), stepped, evaluated and selected on
// validation, finished by testing the selected model and writing its artifacts. What
// outlives it — the outcome, the progress, the clock — belongs to run_trial.
class TrialTraining {
 public:
  TrialTraining(const Trial& trial, const std::string& base_dir, const std::string& dir,
                TrialOutcome& out, TrainingProgress& p, TrainingClock& clock,
                const StateSaved& state_saved)
      : trial_(trial),
        c_(trial.config),
        dir_(dir),
        resume_path_(TrialDir(dir).resume_state()),
        out_(out),
        p_(p),
        clock_(clock),
        state_saved_(state_saved),
        task_(shared_task_cache().get(c_.task, c_.data_seed, base_dir)),
        model_(build_model(c_, *task_)),
        optimizer_(nn::optimizer_registry().create(c_.train.optimizer.kind,
                                                   c_.train.optimizer.options,
                                                   model_.module->named_parameters())),
        schedule_(nn::schedule_registry().create(c_.train.schedule.kind, c_.train.schedule.options,
                                                 c_.train.lr, c_.train.steps,
                                                 c_.model.transformer.d_model)),
        params_(model_.module->parameters()),
        data_(Generator(c_.trial_seed).fork(kBatchStream)),
        evaluator_(c_, *task_, model_) {
    out_.params = model_.module->parameter_count(true);
    if (c_.train.norm_telemetry) start_norm_telemetry(*model_.module);
  }

  // Continues from the state saved in the trial's directory when it is one of this trial.
  void resume() {
    std::string ignored;
    if (std::optional<TrainingProgress> saved =
            load_resume_state(resume_path_, trial_, *model_.module, *optimizer_, data_, &ignored)) {
      p_ = std::move(*saved);
      out_.resumed_from_step = out_.steps = p_.step;
      out_.final = p_.final;
      out_.best = p_.best;
      clock_.resume_from(p_.seconds);
    } else if (!ignored.empty()) {
      std::fprintf(stderr, "ablate: %s\n", ignored.c_str());
    }
    saved_at_ = clock_.elapsed();
    saved_step_ = p_.step;
  }

  void train(const TrialProgress& progress) {
    out_.status = "ok";
    for (std::int64_t step = p_.step + 1; step <= c_.train.steps; ++step) {
      if (stop_signal()) {  // SIGINT / SIGTERM: stop at this step boundary, resumable
        if (p_.step > saved_step_) save_state();
        out_.status = "interrupted";
        return;
      }
      if (trial_.pause_at_step > 0 && step > trial_.pause_at_step) {
        pause();
        return;
      }
      if (!take_step(step, progress)) return;
      if (step < c_.train.steps && save_due(step)) save_state();
    }
  }

  // What the outcome records of the model, then (status ok) the selected model tested
  // and its artifacts written.
  void finish() {
    out_.init_gradients = p_.init_gradients;
    out_.attention_path = attention_path_of(*model_.module);
    if (c_.train.norm_telemetry)
      out_.norm_drift_training = norm_drift_over_training(*model_.module);
    if (out_.status != "ok") return;
    if (!p_.selected.empty()) test_selected_model();
    write_trial_artifacts(trial_, dir_, *task_, model_, evaluator_, out_);
  }

 private:
  // The state is saved every resume_every steps, or after about five minutes of
  // training, and when asked to stop.
  static constexpr double kSecondsBetweenSaves = 300;

  bool save_due(std::int64_t step) const {
    return c_.train.resume_every > 0 ? step % c_.train.resume_every == 0
                                     : clock_.elapsed() - saved_at_ >= kSecondsBetweenSaves;
  }

  void save_state() {
    p_.final = out_.final;
    p_.best = out_.best;
    p_.seconds = clock_.elapsed();
    save_resume_state(resume_path_, trial_, *model_.module, *optimizer_, data_, p_);
    saved_at_ = p_.seconds;
    saved_step_ = p_.step;
    if (state_saved_) state_saved_(resume_path_);
  }

  // A rung of a successive-halving tuning stage (Trial::pause_at_step): the state saved
  // there for the trial to continue from, or the trial finished there as stopped.
  void pause() {
    if (trial_.prune_at_pause) {
      out_.status = "pruned";
      return;
    }
    if (p_.step > saved_step_) save_state();
    out_.status = "paused";
  }

  void diverged(std::int64_t step, const std::string& error) {
    out_.status = "diverged";
    out_.diverged_at = step;
    out_.error = error;
    out_.steps = step;
  }

  // One optimisation step, evaluated when it is due; false when training stops here
  // (diverged, or no gain on validation for train.patience evaluations).
  bool take_step(std::int64_t step, const TrialProgress& progress) {
    Var loss = evaluator_.training_loss(data_);
    double l = loss.item();
    if (!std::isfinite(l)) {
      tape_.reset();
      diverged(step, "the training loss became " + std::string(std::isnan(l) ? "NaN" : "infinite") +
                         " at step " + std::to_string(step));
      return false;
    }
    tape_.backward(loss);
    tape_.reset();
    bool evaluating = step % c_.train.eval_every == 0 || step == c_.train.steps;
    std::vector<std::pair<std::string, double>> group_norms;  // before clipping
    if (evaluating) group_norms = nn::grad_norms_by_module(*model_.module, 3);
    if (step == 1) {
      p_.init_gradients = measure_initial_gradients(*model_.module, params_);
      p_.init_gradients.loss = l;
    }
    const double grad_norm = c_.train.clip_grad_norm > 0
                                 ? nn::clip_grad_norm(params_, c_.train.clip_grad_norm)
                                 : nn::global_grad_norm(params_);
    if (!std::isfinite(grad_norm)) {
      diverged(step, "the gradient norm became non-finite at step " + std::to_string(step));
      return false;
    }
    double lr = schedule_->lr(step);
    optimizer_->step(lr);
    optimizer_->zero_grad();
    p_.loss_sum += l;
    ++p_.loss_count;
    out_.steps = p_.step = step;
    if (progress && (step % 10 == 0 || step == 1)) progress(step, l);
    return !evaluating || evaluate_and_select(step, lr, grad_norm, std::move(group_norms));
  }

  // Training-time attention statistics since the last evaluation (before evaluation
  // adds to them); none without train.attention_telemetry.
  std::vector<Evaluation::AttentionStats> take_attention_telemetry() {
    std::vector<Evaluation::AttentionStats> attention;
    if (c_.train.attention_telemetry)
      for (auto& [name, m] : nn::attention_modules(*model_.module)) {
        attention.push_back({name, m->telemetry().mean_entropy(), m->telemetry().mean_max_prob()});
        m->telemetry().reset();
      }
    return attention;
  }

  // Evaluates on validation, records it in metrics.jsonl, and keeps the model when its
  // loss is the lowest so far; false when train.patience evaluations brought no gain.
  bool evaluate_and_select(std::int64_t step, double lr, double grad_norm,
                           std::vector<std::pair<std::string, double>> group_norms) {
    std::vector<Evaluation::AttentionStats> attention = take_attention_telemetry();
    Evaluation e = evaluator_.evaluate();
    e.grad_norms = std::move(group_norms);
    e.attention = std::move(attention);
    if (c_.train.norm_telemetry) e.norm_drift = take_norm_drift(*model_.module);
    if (c_.train.attention_telemetry)
      for (auto& [name, m] : nn::attention_modules(*model_.module)) m->telemetry().reset();
    e.step = step;
    e.train_loss = p_.loss_sum / double(p_.loss_count);
    e.lr = lr;
    e.grad_norm = grad_norm;
    e.seconds = clock_.elapsed();
    p_.loss_sum = 0;
    p_.loss_count = 0;
    p_.metrics_log += metrics_line(e);
    write_file_atomically(TrialDir(dir_).metrics(), p_.metrics_log);
    out_.final = e;
    if (e.loss < p_.best_val) {
      p_.best_val = e.loss;
      out_.best = e;
      p_.selected = nn::copy_state(*model_.module);
      p_.evals_without_gain = 0;
    } else if (c_.train.patience > 0 && ++p_.evals_without_gain >= c_.train.patience) {
      out_.stopped_early = true;
      return false;
    }
    return true;
  }

  // Validation chose the model (lowest validation loss); test measures it, once.
  void test_selected_model() {
    nn::restore_state(*model_.module, p_.selected);
    out_.test = evaluator_.evaluate(Split::test);
    out_.test.step = out_.best.step;
    out_.tested = true;
    tape_.reset();
  }

  const Trial& trial_;
  const TrialConfig& c_;
  const std::string& dir_;
  const std::string resume_path_;
  TrialOutcome& out_;
  TrainingProgress& p_;
  TrainingClock& clock_;
  const StateSaved& state_saved_;
  Tape& tape_ = Tape::current();
  std::shared_ptr<const Task> task_;  // shared with the run's other trials of the same task
  TrialModel model_;
  std::unique_ptr<nn::Optimizer> optimizer_;
  std::unique_ptr<nn::Schedule> schedule_;
  std::vector<Parameter*> params_;
  Generator data_;
  Evaluator evaluator_;
  double saved_at_ = 0;  // training time at the last save
  std::int64_t saved_step_ = 0;
};

// A finished trial's speed and summary.json (written last: its presence marks the
// trial finished); its resume state is no longer needed.
void write_trial_record(const Trial& trial, const std::string& dir, const TrainingClock& clock,
                        bool metrics_written, TrialOutcome& out) {
  out.wall_seconds = clock.elapsed();
  // The speed of this process's part of the training (a resumed trial's earlier part
  // ran elsewhere, perhaps on another machine).
  const double seconds_here = out.wall_seconds - clock.earlier_seconds;
  out.steps_per_second =
      seconds_here > 0 ? double(out.steps - out.resumed_from_step) / seconds_here : 0;
  out.peak_rss_mib = peak_rss_mib();
  const TrialDir files(dir);
  if (!metrics_written) write_file_atomically(files.metrics(), "");
  write_file_atomically(files.summary(), to_json(trial_summary(trial, out)).dump(2) + "\n");
  // Finished: nothing left to resume — but a trial halving stopped keeps its state, to
  // continue from should the schedule be changed to keep its setting (halving_stage.h).
  std::error_code gone;
  if (out.status != "pruned") std::filesystem::remove(files.resume_state(), gone);
}

}  // namespace

TrialOutcome run_trial(const Trial& trial, const std::string& base_dir, const std::string& dir,
                       const TrialProgress& progress, const StateSaved& state_saved) {
  std::filesystem::create_directories(dir);
  write_file_atomically(TrialDir(dir).config(), trial.config_toml);
  TrialOutcome out;
  TrainingProgress p;  // what the loop carries from step to step (and a resume restores)
  p.best_val = INFINITY;
  TrainingClock clock;
  Tape& tape = Tape::current();
  GemmThreadsScope gemm_threads(trial.config.train.threads);
  kernels::MatmulPrecisionScope precision(matmul_precision_of(trial.config));
  try {
    inject_failure_for_tests(trial);
    TrialTraining training(trial, base_dir, dir, out, p, clock, state_saved);
    training.resume();
    training.train(progress);
    training.finish();
  } catch (const nn::Interrupted&) {
    // Stopped inside an evaluation (nn/interrupt.h): its step's state is not a step
    // boundary — the evaluation's record is missing — so nothing is saved here and the
    // next run continues from the state saved last (or from step 0), which gives the
    // same bits as an uninterrupted run.
    tape.reset();
    out.status = "interrupted";
  } catch (const std::bad_alloc&) {
    tape.reset();
    out.status = "failed";
    out.error = out_of_memory_message(trial);
  } catch (const std::exception& e) {
    tape.reset();
    out.status = "failed";
    out.error = e.what();
  }
  // An interrupted or paused trial writes no summary.json: it is not finished, and the
  // next run continues it from its resume state.
  if (out.status == "interrupted" || out.status == "paused") return out;
  write_trial_record(trial, dir, clock, !p.metrics_log.empty(), out);
  return out;
}

}  // namespace ablate::experiments
