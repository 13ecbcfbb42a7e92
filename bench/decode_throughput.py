#!/usr/bin/env python3
"""Seq2seq evaluation time: greedy decoding of a test set, this build against another.

A sequence task's evaluation decodes its validation set at every evaluation and its test
set at the end, greedily, in batches of train.validation_batch. `ablate predict` decodes
exactly that way (experiments/runner/predict.cpp), so it times the evaluation's decoding
alone. Per model and build:

  1. the build trains the model once with train.checkpoint = true (not timed), from
     the file as a sweep trains it (seed 0);
  2. the test sources of its predictions.tsv (1,000 sequences) are decoded by
     `ablate predict TRIAL_DIR INPUT` with the input once and repeated REPEAT times, in
     rounds that alternate the builds' order; the decoding time of 1,000 sequences is
     (t(REPEAT) - t(1)) / (REPEAT - 1), which leaves out the process start, the
     checkpoint's loading and the task's construction;
  3. the builds' predictions are compared byte for byte (each build decodes its own
     checkpoint; the trainings are bit-identical, so must the predictions be).

Models (MODELS): the quickstart's (reverse, d_model 32, 1 + 1 layers) and a
replication-size one (bench/sweep_workload/seq2seq_2500.toml: copy, d_model 64,
d_ff 256, 1 + 1 layers, 2,500 steps).

    /usr/bin/python3 bench/decode_throughput.py --baseline /work/base-5b2e066/build/experiments/ablate --baseline-name 5b2e066
"""
import argparse, csv, datetime, json, os, shutil, subprocess, sys, tempfile, time

sys.dont_write_bytecode = True
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOBS = 2
REPEAT = 20
MODELS = {
    "quickstart": (os.path.join(REPO, "experiments", "studies", "quickstart.toml"),
                   ["model.attention.qk=separate", "model.attention.scale=sqrt_dk"]),
    "replication size (copy, seq2seq_2500)": (os.path.join(REPO, "bench", "sweep_workload", "seq2seq_2500.toml"), []),
}


def train_checkpoint(binary, path, overrides, env):
    """Trains seeds 0 and 1 of the file's (one) point with a checkpoint (an adaptive
    design's first block needs two); (run root, the first trial's directory by id)."""
    out = tempfile.mkdtemp(prefix="ablate-decode-")
    cmd = [binary, "run", path, "--jobs", str(JOBS), "--out", out, "-q", "sweep.seeds=[0,1]",
           "train.checkpoint=true", *overrides]
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    trials = sorted(os.path.join(out, run, "trials", t) for run in os.listdir(out)
                    for t in os.listdir(os.path.join(out, run, "trials")))
    if len(trials) != 2:
        sys.exit(f"error: {' '.join(cmd)}: {len(trials)} trials, expected two")
    return out, trials[0]


def test_sources(trial_dir):
    with open(os.path.join(trial_dir, "predictions.tsv"), newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [r["source"] for r in rows]


def timed_predict(binary, trial_dir, input_path, out_path, env):
    cmd = [binary, "predict", trial_dir, input_path, "--out", out_path]
    start = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    return seconds


def measure(builds, rounds, env, overrides=(), models=None):
    """{model: {build: {"per_1000": [s...], "sources": n, "identical": bool}}}.
    builds: {name: binary}; the first is the one the others are compared with;
    overrides: KEY=VALUE for the trainings (a smoke test's train.steps=20)."""
    names = list(builds)
    results = {}
    tmp = tempfile.mkdtemp(prefix="decode-inputs-")
    try:
        for model, (path, extra) in (models or MODELS).items():
            trained = {b: train_checkpoint(builds[b], path, [*extra, *(overrides or ())], env) for b in names}
            sources = test_sources(trained[names[0]][1])
            once, many = os.path.join(tmp, "once.txt"), os.path.join(tmp, "many.txt")
            with open(once, "w") as f:
                f.write("\n".join(sources) + "\n")
            with open(many, "w") as f:
                f.write("\n".join(sources * REPEAT) + "\n")
            per = {b: [] for b in names}
            outputs = {}
            for r in range(rounds):
                for b in (names if r % 2 == 0 else list(reversed(names))):
                    out = os.path.join(tmp, f"{b}.tsv")
                    t1 = timed_predict(builds[b], trained[b][1], once, out, env)
                    tn = timed_predict(builds[b], trained[b][1], many, out, env)
                    per[b].append((tn - t1) / (REPEAT - 1) * 1000 / len(sources))
                    with open(out, "rb") as f:
                        outputs[b] = f.read()
                    print(f"[decode round {r + 1}] {model}: {b} {per[b][-1]:.3f} s per 1,000 sequences",
                          file=sys.stderr, flush=True)
            results[model] = {b: {"per_1000": per[b], "sources": len(sources),
                                  "identical": outputs[b] == outputs[names[0]]} for b in names}
            for out, _ in trained.values():
                shutil.rmtree(out, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return results


def median(xs):
    xs = sorted(xs)
    return (xs[len(xs) // 2] + xs[(len(xs) - 1) // 2]) / 2 if xs else float("nan")


def speedups(results, ours, base):
    """{model: (ours s, base s, base / ours, identical)} from medians over rounds."""
    out = {}
    for model, by in results.items():
        a, b = median(by[ours]["per_1000"]), median(by[base]["per_1000"])
        out[model] = (a, b, b / a if a > 0 else float("nan"), by[base]["identical"])
    return out


def report(results, ours, base):
    lines = [f"| model | {base} s per 1,000 | {ours} s per 1,000 | {ours} vs {base} | predictions identical |",
             "|---|---:|---:|---:|---|"]
    for model, (a, b, ratio, same) in speedups(results, ours, base).items():
        lines.append(f"| {model} | {b:.3f} | {a:.3f} | {ratio:.2f}× | {'yes' if same else '**no**'} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ablate", default=os.path.join(REPO, "build", "experiments", "ablate"))
    ap.add_argument("--baseline", required=True, help="another build's ablate binary")
    ap.add_argument("--baseline-name", default="baseline")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, help="train this many steps instead of the file's (a smoke test)")
    ap.add_argument("--json")
    args = ap.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS="1")
    results = measure({"ablate": args.ablate, args.baseline_name: args.baseline}, args.rounds, env,
                      [f"train.steps={args.steps}"] if args.steps else [])
    print(f"# Seq2seq evaluation time, {datetime.date.today()}, {args.rounds} round(s), greedy decoding "
          f"of the test sources by `ablate predict` (one process, one thread)\n")
    print(report(results, "ablate", args.baseline_name))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"date": str(datetime.date.today()), "results": results}, f, indent=1)
    if not all(by[args.baseline_name]["identical"] for by in results.values()):
        sys.exit("error: the builds' predictions differ")


if __name__ == "__main__":
    main()
