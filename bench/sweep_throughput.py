#!/usr/bin/env python3
"""Trials per hour on a sweep workload that mirrors the committed replications: ablate
today, an older ablate, and PyTorch.

The workload is bench/sweep_workload/: trials at the size and length the committed
replications ran (experiments/studies/results/replications/*: ~1,740 trials, 84 % of
them character language models of 1,200-2,000 steps, 16 % copy/reverse sequence models
of 2,500 steps with greedy decoding; `--mix` prints that distribution beside the
workload's):

    lm_2000        4 points × 2 seeds: LM, 2,000 steps, 104,548-145,636 parameters
    lm_1200_deep   2 trials: LM, 1,200 steps, 6 layers (312,804) and 2 layers
    seq2seq_2500   1 point × 2 seeds: copy, encoder-decoder, 2,500 steps of batch 64,
                   greedy decoding of 1,000 sequences at every evaluation and at test

Every peer runs each workload with both cores busy, timed whole (from the command's
start to its end: task construction, training, evaluation, the reports):

    ablate            `ablate run FILE --jobs 2` with this checkout's build
    baseline          the same with another build (--baseline BIN), built the same way
    torch             PyTorch training the same trials, two processes taking trials from
                      one queue (bench/sweep_throughput_torch.py --mode sequential)
    torch_ensemble    PyTorch's own ensembling, functorch's vmap over a point's seeds, two
                      processes taking whole points (or half a point's seeds) from a queue

Rounds alternate the order of the peers (3 by default); the FLOP ceiling of a core
(build/bench/bench_ceiling) is measured at the start, the middle and the end. PyTorch
runs with the fastest OpenBLAS core type measured on this host (bench/openblas_probe.py).

With --claims-baseline, the same run measures CPU-seconds per decided claim
(bench/claims_throughput.py) and seq2seq evaluation time (bench/decode_throughput.py;
--decode-baseline, by default the same build) against that build, and ends with the
targets side by side: trials/hour against the baseline and PyTorch, seconds per decided
claim (and decided verdicts reversed), decoding time with identical predictions, and the
ceiling readings.

"identical" compares, in every round, every trial of the ablate run with the baseline
run's: a trial in one run and not the other, its metrics.jsonl (every evaluation, the
training loss and gradient norms; clock readings aside), summary.json's status, size and
test block (every test metric and its standard error), and every other file the trial
wrote (samples.txt, predictions.tsv, attention.json, ...) byte for byte.
`--require-identical` makes any difference an error.

    /usr/bin/python3 bench/sweep_throughput.py --baseline OLD/build/experiments/ablate --baseline-name OLD
    /usr/bin/python3 bench/sweep_throughput.py --baseline C777528/build/experiments/ablate --baseline-name c777528 \
        --claims-baseline 5B2E066/build/experiments/ablate --claims-baseline-name 5b2e066 --require-identical
                                                                 # the three targets side by side
    /usr/bin/python3 bench/sweep_throughput.py --mix            # the replications' mix and the workload's
    /usr/bin/python3 bench/sweep_throughput.py --compare-runs DIR_A DIR_B   # the identical check alone
    python3 bench/sweep_throughput.py --self-test   # the check catches a missing trial, a changed prediction...
    python3 bench/sweep_throughput.py --peers ablate --workloads quickstart --rounds 1 --set train.steps=20  # CI
"""
import argparse, csv, datetime, glob, hashlib, json, math, os, shutil, subprocess, sys, tempfile, time

sys.dont_write_bytecode = True  # no __pycache__ in the checkout (CI's smoke test runs this)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_torch import TORCH_NOTE, make_env, run_benchmark  # noqa: E402  (one definition of each)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOAD_DIR = os.path.join(REPO, "bench", "sweep_workload")
REPLICATION_RESULTS = os.path.join(REPO, "experiments", "studies", "results", "replications")
WORKLOADS = ("lm_2000", "lm_1200_deep", "seq2seq_2500")
# Earlier workloads, kept runnable by name (the tiny quickstart is CI's smoke test); not
# in the default mix: 62 % of their time was the 150- and 80-step quick variants, which
# no committed result was made with.
OTHER_WORKLOADS = ("quickstart", "vaswani_table3_quick", "xiong_warmup_quick", "replication_point")
PEERS = ("baseline", "ablate", "torch", "torch_ensemble")
LABELS = {"baseline": "ablate {base}", "ablate": "ablate",
          "torch": "PyTorch one by one", "torch_ensemble": "PyTorch vmap ensemble"}
TORCH_PYTHON = "/usr/bin/python3"
JOBS = 2
OVERRIDES = []  # --set KEY=VALUE: a smaller workload for a smoke test (ablate peers only)
STEPS = []  # --steps N: every peer trains N steps (a smoke test of all four peers)
# Clock readings in metrics.jsonl and summary.json's evaluations: not computed values.
TIMINGS = {"seconds"}
# A trial's files compared by their content (below), not byte for byte: the resolved
# config.toml is the trial's identity (its id is its hash) in whatever format the build
# writes it; summary.json and metrics.jsonl also hold timings, RSS and provenance.
NOT_BYTES = {"config.toml", "summary.json", "metrics.jsonl"}


def workload_file(name):
    return os.path.join(WORKLOAD_DIR, name + ".toml")


def timed(cmds, env):
    """Runs the commands side by side; wall seconds until the last one ends."""
    start = time.perf_counter()
    procs = [subprocess.Popen(c, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for c in cmds]
    outs = [p.communicate() for p in procs]
    seconds = time.perf_counter() - start
    for c, p, (out, err) in zip(cmds, procs, outs):
        if p.returncode != 0:
            return seconds, None, f"exit {p.returncode}: {' '.join(c)}\n{err[-2000:]}"
    return seconds, [o for o, _ in outs], None


# ---- the identical check -----------------------------------------------------------------

def digest(value):
    """A canonical hash of a JSON value (keys sorted, floats as Python prints them: the
    shortest text that reads back to the same double, so equal hashes = equal bits)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def trial_outputs(trial_dir):
    """{part: hash} of everything a finished trial computed: metrics.jsonl without the
    clock, summary.json's status, size and test block, and every other file it wrote."""
    parts = {}
    with open(os.path.join(trial_dir, "metrics.jsonl")) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    parts["metrics.jsonl"] = digest([{k: v for k, v in m.items() if k not in TIMINGS} for m in lines])
    summary_path = os.path.join(trial_dir, "summary.json")
    if os.path.exists(summary_path):
        with open(summary_path) as f:
            summary = json.load(f)
        parts["summary.json test"] = digest(summary.get("test"))
        parts["summary.json status, steps, params"] = digest(
            [summary.get("status"), summary.get("steps"), summary.get("params")])
    else:
        parts["summary.json"] = "missing: the trial did not finish"
    for name in sorted(os.listdir(trial_dir)):
        path = os.path.join(trial_dir, name)
        if name not in NOT_BYTES and os.path.isfile(path):
            with open(path, "rb") as f:
                parts[name] = hashlib.sha256(f.read()).hexdigest()
    return parts


def run_outputs(out_dir):
    """{trial id: trial_outputs} of the one run under an --out directory (or of a run
    directory itself: the folder that holds trials/)."""
    run_dir = out_dir
    if not os.path.isdir(os.path.join(run_dir, "trials")):
        names = os.listdir(out_dir) if os.path.isdir(out_dir) else []
        if len(names) != 1:
            return {}
        run_dir = os.path.join(out_dir, names[0])
    trials = os.path.join(run_dir, "trials")
    if not os.path.isdir(trials):
        return {}
    return {t: trial_outputs(os.path.join(trials, t)) for t in sorted(os.listdir(trials))}


def differences(a, b, name_a="ablate", name_b="baseline"):
    """Every way two runs' trials differ, one line each; [] when identical. Trials in only
    one run are differences (a missing trial must not pass), and so is an empty run."""
    if not a and not b:
        return ["neither run has a finished trial"]
    out = []
    for trial in sorted(set(a) | set(b)):
        if trial not in b:
            out.append(f"trial {trial}: only in {name_a}'s run")
        elif trial not in a:
            out.append(f"trial {trial}: only in {name_b}'s run")
        else:
            for part in sorted(set(a[trial]) | set(b[trial])):
                if a[trial].get(part) != b[trial].get(part):
                    where = ("only in " + (name_a if part in a[trial] else name_b) + "'s"
                             if part not in a[trial] or part not in b[trial] else "differs")
                    out.append(f"trial {trial}: {part} {where}")
    return out


def self_test(binary):
    """The identical check must fail on what it exists to catch: one tiny run (quickstart,
    20 steps, 2 seeds) against copies of itself with a trial removed, one prediction
    changed, one test metric off by one ulp, one evaluation's loss changed and one file
    added. Returns the failures (empty: the check works)."""
    tmp = tempfile.mkdtemp(prefix="identical-self-test-")
    try:
        out = os.path.join(tmp, "a")
        cmd = [binary, "run", workload_file("quickstart"), "--jobs", str(JOBS), "--out", out, "-q",
               "train.steps=20", "train.eval_every=10", "sweep.seeds=[0, 1]"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        run = os.path.join(out, os.listdir(out)[0])
        base = run_outputs(run)
        trial = sorted(base)[0]

        def tampered(change):
            copy = os.path.join(tmp, "b")
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(run, copy)
            change(os.path.join(copy, "trials", trial))
            return differences(base, run_outputs(copy), "A", "B")

        def edit(path, fn):
            with open(path) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write(fn(text))

        def ulp(d):
            path = os.path.join(d, "summary.json")
            with open(path) as f:
                summary = json.load(f)
            summary["test"]["loss"] = math.nextafter(summary["test"]["loss"], math.inf)
            with open(path, "w") as f:
                json.dump(summary, f)
        cases = {
            "nothing changed": (lambda d: None, False),
            "a trial removed": (lambda d: shutil.rmtree(d), True),
            "a prediction changed": (lambda d: edit(os.path.join(d, "predictions.tsv"),
                                                    lambda t: t.replace("\n1\t", "\n1\t9 ", 1)), True),
            "a test metric off by one ulp": (ulp, True),
            "an evaluation's loss changed": (lambda d: edit(os.path.join(d, "metrics.jsonl"),
                                                            lambda t: t.replace('"val_loss":', '"val_loss":1', 1)), True),
            "a file added": (lambda d: open(os.path.join(d, "samples.txt"), "w").close(), True),
        }
        failures = []
        for name, (change, should_differ) in cases.items():
            found = tampered(change)
            print(f"[self-test] {name}: {'; '.join(found) or 'identical'}", file=sys.stderr)
            if bool(found) != should_differ:
                failures.append(f"{name}: the check said {'differs' if found else 'identical'}")
        return failures
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---- the peers ---------------------------------------------------------------------------

def run_mix(out_dir):
    """(steps, params, wall seconds, family) of each trial of a finished run, from its
    results.csv: what the workload's trials were, for the mix table."""
    names = os.listdir(out_dir) if os.path.isdir(out_dir) else []
    path = os.path.join(out_dir, names[0], "results.csv") if len(names) == 1 else ""
    return read_mix(path) if os.path.exists(path) else []


def build_flags(out_dir):
    """The flags the build that made a run compiled with (summary.json's provenance), as a
    sorted list of its -O/-m options; None for a build from before provenance."""
    for path in sorted(glob.glob(os.path.join(out_dir, "*", "trials", "*", "summary.json")))[:1]:
        with open(path) as f:
            flags = json.load(f).get("provenance", {}).get("build", {}).get("cxx_flags")
        return sorted(x for x in flags.split() if x.startswith(("-O", "-m"))) if flags else None
    return None


def binary_flags(binary):
    """The same, for a build from before provenance: CMake's flags.make beside the binary
    (BUILD/experiments/CMakeFiles/ablate.dir/flags.make)."""
    path = os.path.join(os.path.dirname(binary), "CMakeFiles", "ablate.dir", "flags.make")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        line = next((l for l in f if l.startswith("CXX_FLAGS")), "")
    return sorted(x for x in line.split("=", 1)[-1].split() if x.startswith(("-O", "-m"))) or None


def run_ablate(binary, workload, env, keep_mix=False):
    out = tempfile.mkdtemp(prefix="ablate-throughput-")
    cmd = [binary, "run", workload_file(workload), "--jobs", str(JOBS), "--out", out, "-q", *OVERRIDES]
    seconds, _, error = timed([cmd], env)
    outputs = run_outputs(out) if not error else {}
    mix = run_mix(out) if keep_mix and not error else []
    flags = (build_flags(out) or binary_flags(binary)) if not error else None
    shutil.rmtree(out, ignore_errors=True)
    if not error and not outputs:
        error = f"{' '.join(cmd)} finished, but no trial was found under --out"
    return {"seconds": seconds, "trials": len(outputs), "outputs": outputs, "mix": mix, "flags": flags,
            "error": error}


def run_torch(workload, mode, env):
    """Two processes of the PyTorch peer, taking units (trials, or a point's seeds) from
    one queue: whichever is free takes the next, so both stay busy to the end."""
    script = os.path.join(REPO, "bench", "sweep_throughput_torch.py")
    queue = tempfile.mkdtemp(prefix="torch-queue-")
    steps = [f"--steps={STEPS[0]}"] if STEPS else []
    cmds = [[TORCH_PYTHON, script, "--workload", workload_file(workload), "--mode", mode,
             "--queue", queue, "--workers", str(JOBS), *steps] for _ in range(JOBS)]
    seconds, outs, error = timed(cmds, env)
    shutil.rmtree(queue, ignore_errors=True)
    if error:
        unavailable = '"available": false' in error or "exit 3" in error
        return {"seconds": seconds, "trials": 0, "error": None if unavailable else error,
                "available": not unavailable}
    answers = [json.loads(o.strip().splitlines()[-1]) for o in outs]
    return {"seconds": seconds, "trials": sum(a["trials"] for a in answers), "answers": answers,
            "torch": answers[0].get("torch")}


def run_peer(args, peer, workload, env, torch_env, keep_mix=False):
    if peer == "ablate":
        return run_ablate(args.ablate, workload, env, keep_mix)
    if peer == "baseline":
        return run_ablate(args.baseline, workload, env)
    return run_torch(workload, "sequential" if peer == "torch" else "ensemble", torch_env)


def measure_ceiling(binary, env, when):
    its, _ = run_benchmark(binary, "fma_ceiling(/real_time)?", env, 3, 0.2)
    rate = sorted(b["GFLOP/s"] for b in its)[len(its) // 2]
    print(f"[ceiling {when}] f32 FMA {rate:.1f} GFLOP/s", file=sys.stderr, flush=True)
    return rate


# ---- the mix: the committed replications' trials and the workload's ----------------------

def read_mix(results_csv, family=None):
    """[(family, steps, params, wall seconds)] of a results.csv. A language model's rows
    have test_bpc; every other replication is a sequence task with greedy decoding."""
    with open(results_csv) as f:
        rows = list(csv.DictReader(f))
    out = []
    for r in rows:
        fam = family or ("LM" if "test_bpc" in r else "sequence")
        out.append((fam, int(r["steps"] or 0), int(r["params"] or 0), float(r["wall_seconds"] or 0)))
    return out


def replication_mix():
    mix = []
    for name in sorted(os.listdir(REPLICATION_RESULTS)):
        path = os.path.join(REPLICATION_RESULTS, name, "results.csv")
        if os.path.exists(path):
            mix += read_mix(path)
    return mix


def size_class(params):
    return "< 100k" if params < 100_000 else "100k-150k" if params < 150_000 else \
        "150k-250k" if params < 250_000 else ">= 250k"


def mix_table(columns):
    """Markdown: per (family, steps, parameter class), each mix's share of trials and of
    trial time. `columns` is [(title, [(family, steps, params, seconds)])]."""
    keys = sorted({(f, s, size_class(p)) for _, mix in columns for f, s, p, _ in mix},
                  key=lambda k: (k[0], -k[1], k[2]))
    head = "| family | steps | parameters | " + " | ".join(
        f"{t}: trials | {t}: share of trials | {t}: share of time" for t, _ in columns) + " |"
    lines = [head, "|---|---:|---|" + "---:|---:|---:|" * len(columns)]
    for key in keys:
        cells = []
        for _, mix in columns:
            mine = [m for m in mix if (m[0], m[1], size_class(m[2])) == key]
            total_s = sum(m[3] for m in mix) or float("nan")
            cells += [str(len(mine)), f"{100 * len(mine) / max(len(mix), 1):.0f} %",
                      f"{100 * sum(m[3] for m in mine) / total_s:.0f} %"]
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(cells) + " |")
    lines.append("| **all** | | | " + " | ".join(f"{len(m)} | 100 % | 100 %" for _, m in columns) + " |")
    return "\n".join(lines)


def print_mix(workload_mix=None):
    reps = replication_mix()
    columns = [("replications", reps)]
    if workload_mix:
        columns.append(("workload", workload_mix))
    print("## The mix: committed replications (experiments/studies/results/replications/*/results.csv, "
          "time = their wall_seconds)" + (" and this workload (round 1 of ablate)" if workload_mix else "") + "\n")
    print(mix_table(columns) + "\n")


# ---- the report --------------------------------------------------------------------------

def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2 if n else float("nan")


def summarize(args, peers, raw, diffs, torch_version=None):
    """Markdown: seconds (median over rounds) and trials per hour of each peer per
    workload, the ratios, and the identical check over every round."""
    label = {p: LABELS[p].format(base=args.baseline_name) for p in peers}
    base_label = label.get("baseline", "baseline")
    groups = [(w, (w,)) for w in args.workloads]
    if len(args.workloads) > 1:
        groups.append(("**whole workload**", tuple(args.workloads)))
    lines = ["| workload | trials | " + " | ".join(f"{label[p]} s" for p in peers) + " | "
             + " | ".join(f"{label[p]} trials/h" for p in peers) + f" | ablate vs {base_label}"
             + " | ablate vs best PyTorch" + (f" (torch {torch_version}, Debian's)" if torch_version else "")
             + " | identical to " + base_label + " (every round) |",
             "|---|---:|" + "---:|" * (2 * len(peers)) + "---:|---:|---|"]
    fmt = lambda x, s: "n/a" if x != x else format(x, s)
    ratio = lambda x: "n/a" if x != x else f"{x:.2f}×"
    for name, members in groups:
        secs = {p: whole_seconds(raw, p, members) for p in peers}
        trials = sum(max((r["trials"] for r in raw["ablate"][w]), default=0) for w in members)
        hourly = {p: trials * 3600 / secs[p] if secs[p] == secs[p] and secs[p] > 0 else float("nan")
                  for p in peers}
        vs_base = secs["baseline"] / secs["ablate"] if "baseline" in secs else float("nan")
        torch_best = min([secs[p] for p in ("torch", "torch_ensemble") if p in secs and secs[p] == secs[p]]
                         or [float("nan")])
        same = "n/a"
        if "baseline" in peers:
            found = [d for w in members for d in diffs.get(w, [])]
            checked = sum(len(raw["ablate"][w]) for w in members)
            same = f"yes ({checked} run pairs)" if not found else f"**no**: {len(found)} differences"
        lines.append(f"| {name} | {trials} | " + " | ".join(fmt(secs[p], ".1f") for p in peers) + " | "
                     + " | ".join(fmt(hourly[p], ".0f") for p in peers) + f" | {ratio(vs_base)} | "
                     + f"{ratio(torch_best / secs['ablate'])} | {same} |")
    return "\n".join(lines)


def whole_seconds(raw, peer, workloads):
    per = [median([r["seconds"] for r in raw[peer][w] if r.get("trials")]) for w in workloads]
    return sum(per) if per and all(x == x for x in per) else float("nan")


def targets(args, raw, diffs, claims, decode, ceilings, torch_version):
    """The issue's three targets side by side: measured ratio, goal, met or not."""
    rows = ["| target | measured | goal | met |", "|---|---:|---:|---|"]
    yes = lambda ok: "yes" if ok else "**no**"
    ours = whole_seconds(raw, "ablate", args.workloads)
    if "baseline" in raw:
        same = not any(diffs.get(w) for w in args.workloads)
        ratio = whole_seconds(raw, "baseline", args.workloads) / ours
        rows.append(f"| trials/hour vs {args.baseline_name}, whole workload, bit-identical f32 | {ratio:.2f}×"
                    f"{'' if same else ' (results differ)'} | ≥ 1.5× | {yes(ratio >= 1.5 and same)} |")
    torch = [whole_seconds(raw, p, args.workloads) for p in ("torch", "torch_ensemble") if p in raw]
    torch = [t for t in torch if t == t]
    if torch:
        ratio = min(torch) / ours
        rows.append(f"| trials/hour vs PyTorch {torch_version or ''} (Debian's python3-torch, the only one "
                    f"installable here; its best mode) | {ratio:.2f}× | ≥ 2.5× | {yes(ratio >= 2.5)} |")
    if claims:
        import claims_throughput
        raw_c = claims[0]
        base = args.claims_baseline_name
        mine, d_mine, n_mine = claims_throughput.per_decided_claim(raw_c, "ablate")
        theirs, d_theirs, n_theirs = claims_throughput.per_decided_claim(raw_c, base)
        flipped = claims_throughput.reversed_verdicts(raw_c, "ablate", base)
        ratio = theirs / mine
        rows.append(f"| CPU-seconds per decided claim, {base} / ablate ({theirs:.1f} / {mine:.1f}; decided "
                    f"{d_theirs}/{n_theirs} and {d_mine}/{n_mine}; {len(flipped)} verdicts reversed) | "
                    f"{ratio:.2f}× | ≥ 2×, none reversed | {yes(ratio >= 2 and not flipped)} |")
    if decode:
        import decode_throughput
        for model, (a, b, ratio, same) in decode_throughput.speedups(decode, "ablate",
                                                                     args.decode_baseline_name).items():
            rows.append(f"| seq2seq evaluation, {model}, vs {args.decode_baseline_name} ({b:.3f} → {a:.3f} s "
                        f"per 1,000 sequences{'' if same else '; predictions differ'}) | {ratio:.2f}× | ≥ 2×, "
                        f"identical predictions | {yes(ratio >= 2 and same)} |")
    rows.append(f"\nf32 FMA ceiling of a core in the same run: "
                + (", ".join(f"{c:.1f}" for c in ceilings) + " GFLOP/s" if ceilings else "not measured") + ".")
    return "\n".join(rows)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ablate", default=os.path.join(REPO, "build", "experiments", "ablate"))
    ap.add_argument("--baseline", help="another build's ablate binary: the speed-up's reference")
    ap.add_argument("--baseline-name", default="baseline", help="its label in the table (e.g. a commit)")
    ap.add_argument("--ceiling", default=os.path.join(REPO, "build", "bench", "bench_ceiling"),
                    help="bench_ceiling's binary; 'none' measures no ceiling")
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--workloads", default=",".join(WORKLOADS),
                    help=f"comma-separated (default {','.join(WORKLOADS)}; also {','.join(OTHER_WORKLOADS)})")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", help="write every raw number here")
    ap.add_argument("--require-identical", action="store_true",
                    help="exit 1 when any trial of any round differs from the baseline's, or is in one run only")
    ap.add_argument("--openblas-coretype", metavar="NAME",
                    help="the PyTorch peers' OPENBLAS_CORETYPE ('default': unset) instead of the fastest probed")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="an override for every ablate run (a smoke test: train.steps=20); "
                         "not with the PyTorch peers, which read the files as they are")
    ap.add_argument("--steps", type=int, help="train every trial of every peer this many steps (a smoke test)")
    ap.add_argument("--claims-baseline", metavar="BIN",
                    help="also measure CPU-seconds per decided claim (bench/claims_throughput.py) against this build")
    ap.add_argument("--claims-baseline-name", default="claims baseline")
    ap.add_argument("--claims-baseline-design", default="auto",
                    help="its design handling (bench/claims_throughput.py: auto, as-is, drop, fixed, ...)")
    ap.add_argument("--claims-rounds", type=int, help="rounds of the claims workload (default: --rounds)")
    ap.add_argument("--claims-files", help="comma-separated files of bench/claims_workload/ (default: all)")
    ap.add_argument("--decode-baseline", metavar="BIN",
                    help="also time seq2seq evaluation (bench/decode_throughput.py) against this build "
                         "(default: --claims-baseline)")
    ap.add_argument("--decode-baseline-name", help="its label (default: --claims-baseline-name)")
    ap.add_argument("--mix", action="store_true", help="print the replications' trial mix and exit")
    ap.add_argument("--self-test", action="store_true",
                    help="check that the identical check catches a missing trial, a changed prediction, "
                         "metric or file (a tiny run of --ablate; CI's smoke tier)")
    ap.add_argument("--compare-runs", nargs=2, metavar=("DIR_A", "DIR_B"),
                    help="the identical check of two finished run directories, alone (exit 1 if they differ)")
    args = ap.parse_args()
    args.peers = [p for p in args.peers.split(",") if p]
    args.workloads = [w for w in args.workloads.split(",") if w]
    for p in args.peers:
        if p not in PEERS:
            sys.exit(f"error: --peers: unknown peer {p!r} (allowed: {', '.join(PEERS)})")
    for w in args.workloads:
        if w not in WORKLOADS + OTHER_WORKLOADS:
            sys.exit(f"error: --workloads: unknown workload {w!r} (allowed: {', '.join(WORKLOADS + OTHER_WORKLOADS)})")
    if args.rounds < 1:
        sys.exit("error: --rounds must be at least 1")
    if "baseline" in args.peers and not args.baseline:
        args.peers.remove("baseline")
    if args.baseline and "baseline" not in args.peers:  # a baseline given is a baseline run
        args.peers.insert(0, "baseline")
    if args.require_identical and not args.baseline:
        sys.exit("error: --require-identical needs --baseline (the build itself will do)")
    if "ablate" not in args.peers:
        args.peers.insert(0, "ablate")
    if args.set and any(p.startswith("torch") for p in args.peers):
        sys.exit("error: --set changes only ablate's runs; leave out the PyTorch peers with it")
    OVERRIDES.extend(args.set)
    if args.steps:
        OVERRIDES.append(f"train.steps={args.steps}")
        STEPS.append(args.steps)
    if args.claims_baseline and not args.decode_baseline:
        args.decode_baseline = args.claims_baseline
    args.decode_baseline_name = args.decode_baseline_name or args.claims_baseline_name
    if args.claims_baseline:
        import claims_throughput
        args.claims_files = [f for f in (args.claims_files or ",".join(claims_throughput.FILES)).split(",") if f]
        for f in args.claims_files:
            if f not in claims_throughput.FILES:
                sys.exit(f"error: --claims-files: unknown {f!r} (allowed: {', '.join(claims_throughput.FILES)})")
    return args


def main():
    args = parse_args()
    if args.mix:
        return print_mix()
    if args.self_test:
        failures = self_test(args.ablate)
        if failures:
            sys.exit("error: the identical check missed: " + "; ".join(failures))
        print("the identical check caught every change")
        return
    if args.compare_runs:
        found = differences(run_outputs(args.compare_runs[0]), run_outputs(args.compare_runs[1]), "A", "B")
        for d in found:
            print(d)
        print("identical" if not found else f"{len(found)} differences")
        sys.exit(1 if found else 0)
    env = make_env("best")
    torch_env, torch_version = env, None
    if any(p.startswith("torch") for p in args.peers):
        import openblas_probe
        coretype, _ = openblas_probe.best_coretype(args.openblas_coretype)
        torch_env = make_env("best", coretype)
    ceiling = args.ceiling if os.path.exists(args.ceiling) else None
    ceilings = [measure_ceiling(ceiling, env, "start")] if ceiling else []
    raw = {p: {w: [] for w in args.workloads} for p in args.peers}
    diffs = {}
    for r in range(args.rounds):
        order = args.peers if r % 2 == 0 else list(reversed(args.peers))
        for w in args.workloads:
            for p in order:
                result = run_peer(args, p, w, env, torch_env, keep_mix=(r == 0))
                if result.get("error"):
                    sys.exit(f"error: {p} on {w}: {result['error']}")
                torch_version = result.get("torch") or torch_version
                raw[p][w].append(result)
                print(f"[round {r + 1}] {w:22s} {p:15s} {result['seconds']:8.1f} s  "
                      f"{result['trials']} trials", file=sys.stderr, flush=True)
            if "baseline" in args.peers:  # this round's two runs, trial by trial
                found = differences(raw["ablate"][w][-1]["outputs"], raw["baseline"][w][-1]["outputs"])
                diffs.setdefault(w, []).extend(f"round {r + 1}, {w}: {d}" for d in found)
                for d in found[:20]:
                    print(f"[round {r + 1}] {w}: DIFFERS: {d}", file=sys.stderr)
        if ceiling and args.rounds > 1 and r + 1 == args.rounds // 2:
            ceilings.append(measure_ceiling(ceiling, env, "middle"))
    claims = decode = None
    if args.claims_baseline:
        import claims_throughput
        builds = {"ablate": (args.ablate, "auto"), args.claims_baseline_name: (args.claims_baseline,
                                                                               args.claims_baseline_design)}
        claims = claims_throughput.measure(builds, args.claims_files, args.claims_rounds or args.rounds,
                                           list(OVERRIDES), env)
    if args.decode_baseline:
        import decode_throughput
        decode = decode_throughput.measure({"ablate": args.ablate, args.decode_baseline_name: args.decode_baseline},
                                           args.rounds, env, list(OVERRIDES))
    if ceiling:
        ceilings.append(measure_ceiling(ceiling, env, "end"))
    print(f"# Sweep throughput, {datetime.date.today()}, --jobs {JOBS}, {args.rounds} round(s), peers "
          f"alternating; f32 FMA ceiling: " + (", ".join(f"{c:.1f}" for c in ceilings) + " GFLOP/s (start, "
          + ("middle, " if len(ceilings) > 2 else "") + "end)" if ceilings else "not measured") + "\n")
    if torch_version:
        print(f"PyTorch peers: torch {torch_version}, {TORCH_NOTE}; "
              f"OPENBLAS_CORETYPE={torch_env.get('OPENBLAS_CORETYPE', 'unset')}.\n")
    found = [d for ds in diffs.values() for d in ds]
    if "baseline" in args.peers:
        # "Built the same way": the -O and -m flags (-march, and -mtune as ABLATE_TUNE pins
        # it) of both builds, from their trials' provenance.
        w = args.workloads[0]
        mine, theirs = raw["ablate"][w][0].get("flags"), raw["baseline"][w][0].get("flags")
        same = mine == theirs
        print(f"Compiler flags: ablate {' '.join(mine or ['(not recorded)'])}; {args.baseline_name} "
              f"{' '.join(theirs or ['(not recorded)'])}" + ("" if same or theirs is None else
                                                             " — **the builds differ**") + "\n")
        if not same and theirs is not None:
            print(f"warning: the baseline was built with other flags ({theirs} vs {mine})", file=sys.stderr)
    print(summarize(args, args.peers, raw, diffs, torch_version))
    for d in found[:50]:
        print(f"- {d}")
    if claims:
        import claims_throughput
        print(f"\n## Seconds per decided claim (bench/claims_workload/, {args.claims_rounds or args.rounds} round(s))\n")
        print(claims_throughput.report(list(claims[0]), args.claims_files, *claims))
    if decode:
        import decode_throughput
        print(f"\n## Seq2seq evaluation time (greedy decoding by `ablate predict`, {args.rounds} round(s))\n")
        print(decode_throughput.report(decode, "ablate", args.decode_baseline_name))
    print("\n## The targets\n")
    print(targets(args, raw, diffs, claims, decode, ceilings, torch_version))
    workload_mix = [m for w in args.workloads for m in raw["ablate"][w][0].get("mix", [])]
    if not OVERRIDES:
        print()
        print_mix(workload_mix)
    if args.json:
        for p in raw.values():
            for runs in p.values():
                for r in runs:
                    r.pop("outputs", None)
        with open(args.json, "w") as f:
            json.dump({"date": str(datetime.date.today()), "ceilings": ceilings, "raw": raw,
                       "claims": claims and claims[0], "claims_designs": claims and claims[1], "decode": decode,
                       "differences": found, "torch": torch_version,
                       "openblas_coretype": torch_env.get("OPENBLAS_CORETYPE")}, f, indent=1)
    if args.require_identical and found:
        sys.exit(f"error: {len(found)} differences from the baseline's runs (above)")
    if args.require_identical and decode and not all(by[args.decode_baseline_name]["identical"]
                                                     for by in decode.values()):
        sys.exit("error: the decoded predictions differ from the baseline's (above)")


if __name__ == "__main__":
    main()
