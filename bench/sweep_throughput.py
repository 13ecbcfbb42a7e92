#!/usr/bin/env python3
"""Trials per hour on a fixed sweep workload: ablate today, an older ablate, and PyTorch.

The workload is bench/sweep_workload/*.toml: the quickstart (tiny, 40 trials), two
replication files at their quick length (vaswani_table3: 16 trials; xiong_warmup: 32)
and one full-size replication point (2 trials). Every peer runs all of it with both
cores busy, one workload at a time:

    ablate            `ablate run FILE --jobs 2` with this checkout's build
    baseline          `ablate run FILE --jobs 2` with another build (--baseline BIN):
                      the commit the speed-up is measured against
    torch             PyTorch training the same trials one after another, two processes
                      (bench/sweep_throughput_torch.py --mode sequential, one slice each)
    torch_ensemble    PyTorch's own ensembling: the seeds of a point trained in lockstep
                      with functorch's vmap over stacked weights (--mode ensemble)

Wall-clock seconds per workload (from the start of the command to its end: task
construction, training, evaluation, the run's reports) give trials per hour. The
core's FLOP ceiling is measured at the start and the end (build/bench/bench_ceiling).
Rounds alternate the order of the peers. The metrics.jsonl of each trial id (every
evaluation, training loss and gradient norm; timings left out) are compared between
`ablate` and `baseline`: the column "identical" says whether they agree to the last
bit for every trial the two runs share.

    /usr/bin/python3 bench/sweep_throughput.py --baseline /path/to/old/build/experiments/ablate
    /usr/bin/python3 bench/sweep_throughput.py --peers ablate --workloads quickstart   # ~15 s
    python3 bench/sweep_throughput.py --peers ablate --workloads quickstart --set train.steps=20  # CI's smoke test
"""
import argparse, csv, datetime, json, os, shutil, subprocess, sys, tempfile, time

sys.dont_write_bytecode = True  # no __pycache__ in the checkout (CI's smoke test runs this)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_torch import make_env, run_benchmark  # noqa: E402  (one definition of each)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOAD_DIR = os.path.join(REPO, "bench", "sweep_workload")
WORKLOADS = ("quickstart", "vaswani_table3_quick", "xiong_warmup_quick", "replication_point")
# The replication workload of the targets: everything but the tiny quickstart.
REPLICATION = ("vaswani_table3_quick", "xiong_warmup_quick", "replication_point")
PEERS = ("baseline", "ablate", "torch", "torch_ensemble")
LABELS = {"baseline": "ablate {base}", "ablate": "ablate",
          "torch": "PyTorch one by one", "torch_ensemble": "PyTorch vmap ensemble"}
TORCH_PYTHON = "/usr/bin/python3"
JOBS = 2
OVERRIDES = []  # --set KEY=VALUE: a smaller workload for a smoke test (ablate peers only)
# Fields of metrics.jsonl that are clock readings, not computed values.
TIMINGS = {"seconds"}


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


def trial_metrics(run_dir):
    """{trial id: its metrics.jsonl without the timings} of a finished run: every
    evaluation's scores, training loss and gradient norms at full precision."""
    names = os.listdir(run_dir) if os.path.isdir(run_dir) else []
    if len(names) != 1:
        return {}
    trials = os.path.join(run_dir, names[0], "trials")
    metrics = {}
    for trial in sorted(os.listdir(trials)):
        with open(os.path.join(trials, trial, "metrics.jsonl")) as f:
            lines = [json.loads(line) for line in f if line.strip()]
        metrics[trial] = [{k: v for k, v in m.items() if k not in TIMINGS} for m in lines]
    return metrics


def run_ablate(binary, workload, env):
    out = tempfile.mkdtemp(prefix="ablate-throughput-")
    cmd = [binary, "run", workload_file(workload), "--jobs", str(JOBS), "--out", out, "-q", *OVERRIDES]
    seconds, _, error = timed([cmd], env)
    rows = trial_metrics(out) if not error else {}
    shutil.rmtree(out, ignore_errors=True)
    if not error and not rows:
        error = f"{' '.join(cmd)} finished, but no trial's metrics.jsonl was found under --out"
    return {"seconds": seconds, "trials": len(rows), "rows": rows, "error": error}


def run_torch(workload, mode, env):
    script = os.path.join(REPO, "bench", "sweep_throughput_torch.py")
    cmds = [[TORCH_PYTHON, script, "--workload", workload_file(workload), "--mode", mode,
             "--slice", f"{k}/{JOBS}"] for k in range(1, JOBS + 1)]
    seconds, outs, error = timed(cmds, env)
    if error:
        unavailable = '"available": false' in error or "exit 3" in error
        return {"seconds": seconds, "trials": 0, "error": None if unavailable else error,
                "available": not unavailable}
    answers = [json.loads(o.strip().splitlines()[-1]) for o in outs]
    return {"seconds": seconds, "trials": sum(a["trials"] for a in answers), "answers": answers}


def run_peer(args, peer, workload, env):
    if peer == "ablate":
        return run_ablate(args.ablate, workload, env)
    if peer == "baseline":
        return run_ablate(args.baseline, workload, env)
    return run_torch(workload, "sequential" if peer == "torch" else "ensemble", env)


def measure_ceiling(binary, env, when):
    its, _ = run_benchmark(binary, "fma_ceiling(/real_time)?", env, 3, 0.2)
    rate = sorted(b["GFLOP/s"] for b in its)[len(its) // 2]
    print(f"[ceiling {when}] f32 FMA {rate:.1f} GFLOP/s", file=sys.stderr, flush=True)
    return rate


def identical(a, b):
    """Whether two runs' rows of the same trial ids agree in every score, to the last bit."""
    common = set(a) & set(b)
    if not common:
        return None
    return all(a[i] == b[i] for i in common)


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2 if n else float("nan")


def summarize(args, peers, raw, differing):
    """Markdown: seconds and trials per hour of each peer per workload, and the ratios;
    the workloads whose metrics differ from the baseline's are added to `differing`."""
    base_label = LABELS["baseline"].format(base=args.baseline_name)
    label = {p: LABELS[p].format(base=args.baseline_name) if p == "baseline" else LABELS[p] for p in peers}
    groups = [(w, (w,)) for w in args.workloads]
    if all(w in args.workloads for w in REPLICATION):
        groups.append(("replication workload (the three above)", REPLICATION))
    lines = ["| workload | trials | " + " | ".join(f"{label[p]} s" for p in peers) + " | "
             + " | ".join(f"{label[p]} trials/h" for p in peers) + " | ablate vs " + base_label
             + " | ablate vs best PyTorch | identical to " + base_label + " |",
             "|---|---:|" + "---:|" * (2 * len(peers)) + "---:|---:|---|"]
    for name, members in groups:
        secs, trials = {}, None
        for p in peers:
            per = [median([r["seconds"] for r in raw[p][w] if r.get("trials")]) for w in members]
            secs[p] = sum(per) if all(x == x for x in per) and per else float("nan")
            if p == "ablate":
                trials = sum(max((r["trials"] for r in raw[p][w]), default=0) for w in members)
        hourly = {p: trials * 3600 / secs[p] if secs[p] == secs[p] and secs[p] > 0 else float("nan") for p in peers}
        fastest = "ablate"
        vs_base = secs.get("baseline", float("nan")) / secs[fastest] if "baseline" in secs else float("nan")
        torch_best = min([secs[p] for p in ("torch", "torch_ensemble") if p in secs and secs[p] == secs[p]] or [float("nan")])
        same = None
        if "baseline" in peers:
            checks = [identical(raw["ablate"][w][0].get("rows", {}), raw["baseline"][w][0].get("rows", {}))
                      for w in members if raw["ablate"][w] and raw["baseline"][w]]
            same = "yes" if checks and all(c for c in checks) else ("no" if checks else "n/a")
            differing.extend([name] if same == "no" else [])
        fmt = lambda x, s: "n/a" if x != x else format(x, s)
        lines.append(f"| {name} | {trials} | " + " | ".join(fmt(secs[p], ".1f") for p in peers) + " | "
                     + " | ".join(fmt(hourly[p], ".0f") for p in peers) + f" | {fmt(vs_base, '.2f')}× | "
                     + f"{fmt(torch_best / secs[fastest], '.2f')}× | {same or 'n/a'} |")
    return "\n".join(lines)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ablate", default=os.path.join(REPO, "build", "experiments", "ablate"))
    ap.add_argument("--baseline", help="another build's ablate binary: the speed-up's reference")
    ap.add_argument("--baseline-name", default="baseline", help="its label in the table (e.g. a commit)")
    ap.add_argument("--ceiling", default=os.path.join(REPO, "build", "bench", "bench_ceiling"),
                    help="bench_ceiling's binary; 'none' measures no ceiling")
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--json", help="write every raw number here")
    ap.add_argument("--require-identical", action="store_true",
                    help="exit 1 when a trial's metrics differ from the baseline's")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="an override for every ablate run (a smoke test: train.steps=20); "
                         "not with the PyTorch peers, which read the files as they are")
    args = ap.parse_args()
    args.peers = [p for p in args.peers.split(",") if p]
    args.workloads = [w for w in args.workloads.split(",") if w]
    for p in args.peers:
        if p not in PEERS:
            sys.exit(f"error: --peers: unknown peer {p!r} (allowed: {', '.join(PEERS)})")
    for w in args.workloads:
        if w not in WORKLOADS:
            sys.exit(f"error: --workloads: unknown workload {w!r} (allowed: {', '.join(WORKLOADS)})")
    if "baseline" in args.peers and not args.baseline:
        args.peers.remove("baseline")
    if "ablate" not in args.peers:
        args.peers.insert(0, "ablate")
    if args.set and any(p.startswith("torch") for p in args.peers):
        sys.exit("error: --set changes only ablate's runs; leave out the PyTorch peers with it")
    OVERRIDES.extend(args.set)
    return args


def main():
    args = parse_args()
    env = make_env("best")
    ceilings = [measure_ceiling(args.ceiling, env, "start")] if os.path.exists(args.ceiling) else []
    raw = {p: {w: [] for w in args.workloads} for p in args.peers}
    for r in range(args.rounds):
        order = args.peers if r % 2 == 0 else list(reversed(args.peers))
        for w in args.workloads:
            for p in order:
                result = run_peer(args, p, w, env)
                if result.get("error"):
                    sys.exit(f"error: {p} on {w}: {result['error']}")
                raw[p][w].append(result)
                print(f"[round {r + 1}] {w:22s} {p:15s} {result['seconds']:8.1f} s  "
                      f"{result['trials']} trials", file=sys.stderr, flush=True)
    if os.path.exists(args.ceiling):
        ceilings.append(measure_ceiling(args.ceiling, env, "end"))
    print(f"# Sweep throughput, {datetime.date.today()}, --jobs {JOBS}, {args.rounds} round(s); "
          f"f32 FMA ceiling {', '.join(f'{c:.1f}' for c in ceilings)} GFLOP/s (start, end)\n")
    differing = []
    print(summarize(args, args.peers, raw, differing))
    if args.json:
        for p in raw.values():
            for runs in p.values():
                for r in runs:
                    r.pop("rows", None)
        with open(args.json, "w") as f:
            json.dump({"date": str(datetime.date.today()), "ceilings": ceilings, "raw": raw}, f, indent=1)
    if args.require_identical and differing:
        sys.exit(f"error: metrics differ from the baseline's on {', '.join(differing)}")


if __name__ == "__main__":
    main()
