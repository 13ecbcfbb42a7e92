#include "experiments/runner/trial_runner.h"

#include "experiments/runner/stop_signal.h"

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "experiments/io/atomic_file.h"
#include "autograd/kernels/gemm.h"
#include "experiments/models/model_factory.h"
#include "experiments/io/json_number.h"
#include "experiments/runner/evaluation.h"
#include "experiments/runner/initial_gradients.h"
#include "experiments/runner/lm_samples.h"
#include "experiments/runner/norm_telemetry.h"
#include "experiments/runner/predictions.h"
#include "experiments/runner/resume_state.h"
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
constexpr std::int64_t kSampleTokens = 200;  // tokens generated after each prompt (language models)

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

json to_json(const Evaluation& e) {
  json j{{"step", e.step}, {"train_loss", e.train_loss}, {"val_loss", e.loss},
         {"lr", e.lr}, {"grad_norm", e.grad_norm}, {"seconds", e.seconds}};
  for (const auto& [k, v] : e.metrics) j[k] = v;
  if (!e.grad_norms.empty()) {
    json g = json::object();
    for (const auto& [name, norm] : e.grad_norms) g[name] = norm;
    j["grad_norms"] = g;
  }
  if (!e.attention.empty()) {
    json a = json::object();
    for (const Evaluation::AttentionStats& s : e.attention)
      a[s.module] = {{"entropy", s.entropy}, {"max_prob", s.max_prob}};
    j["attention"] = a;
  }
  if (!e.norm_drift.empty()) j["norm_drift"] = norm_drift_json(e.norm_drift);
  return j;
}

// The evaluation record drops the telemetry (it is per evaluation, not a result).
json summary_record(const Evaluation& e) {
  Evaluation plain = e;
  plain.grad_norms.clear();
  plain.attention.clear();
  plain.norm_drift.clear();
  return to_json(plain);
}

// The attention path of every module's forwards so far, summed; the first reason (in
// module order) a forward was not fused, prefixed by its module's name.
nn::AttentionPathRecord attention_path_of(nn::Module& model) {
  nn::AttentionPathRecord total;
  for (const auto& [name, module] : nn::attention_modules(model)) {
    const nn::AttentionPathRecord& r = module->path_record();
    total.fused += r.fused;
    total.general += r.general;
    if (total.why_not_fused.empty() && !r.why_not_fused.empty()) total.why_not_fused = name + ": " + r.why_not_fused;
  }
  return total;
}

// What computed the trial's numbers beyond its config: the attention path, the GEMM
// backend and the matmul precision (a backend change was measured to move means).
json computation_json(const Trial& trial, const nn::AttentionPathRecord& a) {
  const char* path = a.fused == 0 && a.general == 0 ? "none"
                     : a.general == 0              ? "fused"
                     : a.fused == 0                ? "general"
                                                   : "mixed";
  // No counts: they depend on how the forwards ran (train.recompute repeats them, a
  // resumed trial counts only its own process's), not on what was computed.
  json attention{{"path", path}};
  if (!a.why_not_fused.empty()) attention["why_not_fused"] = a.why_not_fused;
  return {{"attention", attention},
          {"gemm_backend", kernels::gemm_backend_name(kernels::gemm_backend())},
          {"precision", trial.config.train.precision}};
}

json summary_json(const Trial& trial, const TrialOutcome& o) {
  json j;
  j["id"] = trial.id;
  j["status"] = o.status;
  if (!o.error.empty()) j["error"] = o.error;
  j["params"] = o.params;
  j["steps"] = o.steps;
  j["train_steps"] = trial.config.train.steps;  // configured (steps is fewer after an early stop)
  j["resumed_from_step"] = o.resumed_from_step;
  if (o.diverged_at) j["diverged_at"] = o.diverged_at;
  j["stopped_early"] = o.stopped_early;
  j["final"] = summary_record(o.final);
  j["best"] = summary_record(o.best);
  if (o.tested) {
    // The test split, evaluated once with the model validation selected (o.best.step).
    json test{{"step", o.test.step}, {"loss", o.test.loss}};
    for (const auto& [k, v] : o.test.metrics) test[k] = v;
    json errors = json::object();
    for (const auto& [k, v] : o.test.standard_errors) errors[k] = finite_or_string(v);
    test["standard_errors"] = errors;
    j["test"] = test;
  }
  for (const char* part : {"final", "best", "test"})
    if (j.contains(part))
      for (auto& [k, v] : j[part].items())
        if (v.is_number_float()) v = finite_or_string(v.get<double>());
  add_initial_gradients(j, o.init_gradients);
  add_norm_drift(j, o);
  j["wall_seconds"] = o.wall_seconds;
  j["steps_per_second"] = o.steps_per_second;
  j["peak_rss_mib"] = o.peak_rss_mib;
  j["seed"] = trial.config.trial_seed;
  j["data_seed"] = trial.config.data_seed;
  // The files the trial read, with the content it read (its identity includes it).
  json files = json::object();
  for (const auto& [key, digest] : trial.config.task.file_sha256)
    files["task." + key] = {{"path", trial.config.task.options.get_string(key)}, {"sha256", digest}};
  if (!files.empty()) j["files"] = files;
  j["code_version"] = code_version();
  j["computation"] = computation_json(trial, o.attention_path);
  if (!trial.config.plugins.empty()) {
    json plugins = json::array();
    for (const PluginRef& p : trial.config.plugins)
      plugins.push_back({{"path", p.path}, {"sha256", p.sha256}, {"built_for", p.built_for}});
    j["plugins"] = plugins;
  }
  json point = json::object();
  for (const auto& [k, v] : trial.point) point[k] = v;
  j["point"] = point;
  return j;
}

// The attention weights of every attention module on the first validation example.
json attention_maps(const Task& task, TrialModel& model) {
  std::vector<Seq2SeqBatch> validation = task.evaluation_batches(Split::validation, 1);
  if (validation.empty()) return json::object();
  const Seq2SeqBatch& b = validation.front();
  auto modules = nn::attention_modules(*model.module);
  for (auto& [name, m] : modules) m->capture_attention(true);
  model.module->eval();
  const StreamBatch stream = model.decoder_only ? make_stream_batch(b, model.stream) : StreamBatch{};
  {
    NoGradGuard no_grad;
    if (model.decoder_only)
      model.decoder_only->forward(stream.input);
    else
      model.seq2seq->forward(b.src, b.tgt_in);
    Tape::current().reset();
  }
  model.module->train();
  auto text = [&](std::int32_t id, bool target) -> std::string {
    return id == kBos ? "<s>" : id == kEos ? "</s>" : id == kPad ? "<pad>" : task.detokenize(&id, 1, target);
  };
  auto tokens = [&](const Tensor& ids, bool target) {
    json out = json::array();
    for (std::int64_t i = 0; i < ids.numel(); ++i) out.push_back(text(std::int32_t(ids.at(i)), target));
    return out;
  };
  json j{{"modules", json::array()}};
  if (model.decoder_only) {  // one stream: source (in stream ids), <s>, target
    json out = json::array();
    for (std::int64_t i = 0; i < stream.input.numel(); ++i) {
      const bool target = i >= stream.target_start[0];
      const std::int32_t id = std::int32_t(stream.input.at(i));
      out.push_back(text(target ? id : model.stream.source_id(id), target));
    }
    j["stream"] = out;
  } else {
    j["source"] = tokens(b.src, false);
    j["target_in"] = tokens(b.tgt_in, true);
  }
  for (auto& [name, m] : modules) {
    const Tensor& a = m->captured_attention();  // [1, H, Tq, Tk]
    m->capture_attention(false);
    std::int64_t H = a.shape()[1], Tq = a.shape()[2], Tk = a.shape()[3];
    json heads = json::array();
    for (std::int64_t h = 0; h < H; ++h) {
      json rows = json::array();
      for (std::int64_t i = 0; i < Tq; ++i) {
        json row = json::array();
        for (std::int64_t k = 0; k < Tk; ++k) row.push_back(a.at((h * Tq + i) * Tk + k));
        rows.push_back(row);
      }
      heads.push_back(rows);
    }
    bool cross = name.find("multihead_attn") != std::string::npos;
    bool decoder = name.rfind("decoder", 0) == 0;
    const char* queries = model.decoder_only ? "stream" : decoder ? "target_in" : "source";
    const char* keys = model.decoder_only ? "stream" : decoder && !cross ? "target_in" : "source";
    j["modules"].push_back({{"name", name}, {"queries", queries}, {"keys", keys}, {"weights", heads}});
  }
  return j;
}

// A trial that ran out of memory despite the estimate checked before it started
// (experiments/models/memory_estimate.h): the estimate is a lower bound, not a promise.
std::string out_of_memory_message(const Trial& trial) {
  const TrialConfig& c = trial.config;
  return "trial " + trial.id + " ran out of memory (d_model = " + std::to_string(c.model.transformer.d_model) +
         ", max_len = " + std::to_string(c.model.transformer.max_len) + ", batch = " + std::to_string(c.train.batch) +
         ", validation_batch = " + std::to_string(c.train.validation_batch) +
         "): lower one of them, or run it on a machine with more memory";
}

}  // namespace

TrialOutcome run_trial(const Trial& trial, const std::string& base_dir, const std::string& dir,
                       const TrialProgress& progress, const StateSaved& state_saved) {
  std::filesystem::create_directories(dir);
  write_file_atomically(dir + "/config.toml", trial.config_toml);
  const std::string resume_path = dir + "/" + kResumeFile;
  const TrialConfig& c = trial.config;
  TrialOutcome out;
  TrainingProgress p;  // what the loop carries from step to step (and a resume restores)
  p.best_val = INFINITY;
  auto start = Clock::now();
  double earlier_seconds = 0;  // training time before a resume
  auto elapsed = [&] { return earlier_seconds + std::chrono::duration<double>(Clock::now() - start).count(); };
  Tape& tape = Tape::current();
  // GEMM threads are a per-thread setting: this trial's, restored for the next trial
  // that runs on this worker thread.
  struct GemmThreads {
    int previous = kernels::gemm_threads();
    explicit GemmThreads(std::int64_t n) { kernels::set_gemm_threads(int(n)); }
    ~GemmThreads() { kernels::set_gemm_threads(previous); }
  } gemm_threads(c.train.threads);
  kernels::MatmulPrecisionScope precision(matmul_precision_of(c));
  try {
    // Fault injection for tests of failure handling (a trial that throws mid-sweep,
    // on whichever thread or MPI rank runs it).
    if (const char* fail = std::getenv("ABLATE_FAIL_TRIAL"); fail && trial.id == fail)
      throw std::runtime_error("injected failure (ABLATE_FAIL_TRIAL=" + trial.id + ")");
    std::unique_ptr<Task> task = task_registry().create(c.task.kind, c.task.options, c.data_seed, base_dir);
    TrialModel model = build_model(c, *task);
    out.params = model.module->parameter_count(true);
    auto optimizer = nn::optimizer_registry().create(c.train.optimizer.kind, c.train.optimizer.options,
                                                     model.module->named_parameters());
    auto schedule = nn::schedule_registry().create(c.train.schedule.kind, c.train.schedule.options,
                                                   c.train.lr, c.train.steps, c.model.transformer.d_model);
    std::vector<Parameter*> params = model.module->parameters();
    Generator data(Generator(c.trial_seed).fork(kBatchStream));
    Evaluator evaluator(c, *task, model);
    if (c.train.norm_telemetry) start_norm_telemetry(*model.module);
    std::string ignored;
    if (std::optional<TrainingProgress> saved =
            load_resume_state(resume_path, trial, *model.module, *optimizer, data, &ignored)) {
      p = std::move(*saved);
      out.resumed_from_step = out.steps = p.step;
      out.final = p.final;
      out.best = p.best;
      earlier_seconds = p.seconds;
      start = Clock::now();
    } else if (!ignored.empty()) {
      std::fprintf(stderr, "ablate: %s\n", ignored.c_str());
    }
    // The state is saved every resume_every steps, or after about five minutes of
    // training, and when asked to stop.
    constexpr double kSecondsBetweenSaves = 300;
    double saved_at = elapsed();
    std::int64_t saved_step = p.step;
    auto save_state = [&] {
      p.final = out.final;
      p.best = out.best;
      p.seconds = elapsed();
      save_resume_state(resume_path, trial, *model.module, *optimizer, data, p);
      saved_at = p.seconds;
      saved_step = p.step;
      if (state_saved) state_saved(resume_path);
    };
    double grad_norm = 0;
    out.status = "ok";
    for (std::int64_t step = p.step + 1; step <= c.train.steps; ++step) {
      if (stop_signal()) {  // SIGINT / SIGTERM: stop at this step boundary, resumable
        if (p.step > saved_step) save_state();
        out.status = "interrupted";
        break;
      }
      Var loss = evaluator.training_loss(data);
      double l = loss.item();
      if (!std::isfinite(l)) {
        out.status = "diverged";
        out.diverged_at = step;
        out.error = "the training loss became " + std::string(std::isnan(l) ? "NaN" : "infinite") +
                    " at step " + std::to_string(step);
        tape.reset();
        out.steps = step;
        break;
      }
      tape.backward(loss);
      tape.reset();
      bool evaluating = step % c.train.eval_every == 0 || step == c.train.steps;
      std::vector<std::pair<std::string, double>> group_norms;  // before clipping
      if (evaluating) group_norms = nn::grad_norms_by_module(*model.module, 3);
      if (step == 1) p.init_gradients = measure_initial_gradients(*model.module, params);
      grad_norm = c.train.clip_grad_norm > 0 ? nn::clip_grad_norm(params, c.train.clip_grad_norm)
                                             : nn::global_grad_norm(params);
      if (!std::isfinite(grad_norm)) {
        out.status = "diverged";
        out.diverged_at = step;
        out.error = "the gradient norm became non-finite at step " + std::to_string(step);
        out.steps = step;
        break;
      }
      double lr = schedule->lr(step);
      optimizer->step(lr);
      optimizer->zero_grad();
      p.loss_sum += l;
      ++p.loss_count;
      out.steps = p.step = step;
      if (progress && (step % 10 == 0 || step == 1)) progress(step, l);
      if (evaluating) {
        std::vector<Evaluation::AttentionStats> attention;
        if (c.train.attention_telemetry)  // training-time statistics, before evaluation adds to them
          for (auto& [name, m] : nn::attention_modules(*model.module)) {
            attention.push_back({name, m->telemetry().mean_entropy(), m->telemetry().mean_max_prob()});
            m->telemetry().reset();
          }
        Evaluation e = evaluator.evaluate();
        e.grad_norms = std::move(group_norms);
        e.attention = std::move(attention);
        if (c.train.norm_telemetry) e.norm_drift = take_norm_drift(*model.module);
        if (c.train.attention_telemetry)
          for (auto& [name, m] : nn::attention_modules(*model.module)) m->telemetry().reset();
        e.step = step;
        e.train_loss = p.loss_sum / double(p.loss_count);
        e.lr = lr;
        e.grad_norm = grad_norm;
        e.seconds = elapsed();
        p.loss_sum = 0;
        p.loss_count = 0;
        p.metrics_log += to_json(e).dump() + "\n";
        write_file_atomically(dir + "/metrics.jsonl", p.metrics_log);
        out.final = e;
        if (e.loss < p.best_val) {
          p.best_val = e.loss;
          out.best = e;
          p.selected = nn::copy_state(*model.module);
          p.evals_without_gain = 0;
        } else if (c.train.patience > 0 && ++p.evals_without_gain >= c.train.patience) {
          out.stopped_early = true;
          break;
        }
      }
      if (step < c.train.steps && (c.train.resume_every > 0 ? step % c.train.resume_every == 0
                                                             : elapsed() - saved_at >= kSecondsBetweenSaves))
        save_state();
    }
    out.init_gradients = p.init_gradients;
    out.attention_path = attention_path_of(*model.module);
    if (c.train.norm_telemetry) out.norm_drift_training = norm_drift_over_training(*model.module);
    if (out.status == "ok" && !p.selected.empty()) {
      // Validation chose the model (lowest validation loss); test measures it, once.
      nn::restore_state(*model.module, p.selected);
      out.test = evaluator.evaluate(Split::test);
      out.test.step = out.best.step;
      out.tested = true;
      tape.reset();
      if (model.sequence_model())
        write_file_atomically(dir + "/predictions.tsv", predictions_tsv(*task, evaluator.test_predictions()));
      if (model.lm)
        write_file_atomically(dir + "/samples.txt",
                              samples_text(generate_samples(*model.lm, *task, c.trial_seed, kSampleTokens)));
    }
    if (out.status == "ok" && model.sequence_model())
      write_file_atomically(dir + "/attention.json", attention_maps(*task, model).dump() + "\n");
    if (c.train.checkpoint && out.status == "ok")  // the selected model (its optimizer state is gone)
      nn::save_checkpoint(*model.module, dir + "/checkpoint.safetensors",
                          {{"config", trial.config_toml}, {"step", std::to_string(out.best.step)},
                           {"selected_by", "validation loss"}});
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
  // An interrupted trial writes no summary.json: it is not finished, and the next run
  // continues it from its resume state.
  if (out.status == "interrupted") return out;
  out.wall_seconds = elapsed();
  // The speed of this process's part of the training (a resumed trial's earlier part
  // ran elsewhere, perhaps on another machine).
  const double seconds_here = out.wall_seconds - earlier_seconds;
  out.steps_per_second = seconds_here > 0 ? double(out.steps - out.resumed_from_step) / seconds_here : 0;
  out.peak_rss_mib = peak_rss_mib();
  if (p.metrics_log.empty()) write_file_atomically(dir + "/metrics.jsonl", "");
  write_file_atomically(dir + "/summary.json", summary_json(trial, out).dump(2) + "\n");
  std::error_code gone;
  std::filesystem::remove(resume_path, gone);  // finished: nothing left to resume
  return out;
}

}  // namespace ablate::experiments
