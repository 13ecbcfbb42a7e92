#!/usr/bin/env python3
"""Seconds per decided claim: CPU-seconds an adaptive sweep spends per claim it decides.

What a user of ablate waits for is a verdict, not a trial. bench/claims_workload/ is a
fixed set of claims registered before any of these runs, each file run end to end with
its adaptive design (`ablate run FILE --jobs 2`: the rounds add seeds to the points
whose claims are still open, then stop):

    reverse_qk       3 claims on the quickstart's reverse task: two large effects (shared
                     Q/K, decided at the first look after round 0), one medium (the
                     unscaled scores, ~25 seeds)
    copy_positions   2 very large effects (ALiBi, rotary on copy)
    norm_placement   1 small effect (pre- vs post-norm, d ≈ 0.6): many seeds, may stay open
    lm_positions     the real-data claim: a small character LM on sotu without positions

The metric is CPU-seconds (user + system of the run's process tree) over the claims
decided: a claim is decided when the run's claims.csv gives it the verdict `agrees` or
`disagrees` (the adaptive design's `sequential_verdict`; a fixed design's
`claim_verdict`), and is open when it is `inconclusive` (at the budget, or for futility).
A claim over several points is read from its combined row (the one without a point id).

Older builds may not know the design the files ask for. Each build's design handling is
chosen explicitly (--ablate-design, --baseline-design), `auto` by default — the first of
these that `ablate check` accepts, said in the output:

    as-is                 the file unchanged (design = "group_sequential")
    confidence_sequence   the CLI override sweep.adaptive.design=confidence_sequence
                          (for a build that knows the key)
    drop                  the file without its `design` line: the build's own adaptive
                          design (5b2e066 knows [sweep.adaptive] max_seeds and block only,
                          and its rounds are the confidence sequence's)
    fixed                 no [sweep.adaptive]: every point at the budget's seeds, judged
                          by the fixed-n verdicts (a build from before adaptive sweeps)

    /usr/bin/python3 bench/claims_throughput.py --baseline /work/base-5b2e066/build/experiments/ablate --baseline-name 5b2e066
    python3 bench/claims_throughput.py --rounds 1 --files reverse_qk   # ~1 min
"""
import argparse, csv, datetime, json, os, re, resource, shutil, subprocess, sys, tempfile, time, tomllib

sys.dont_write_bytecode = True
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLAIMS_DIR = os.path.join(REPO, "bench", "claims_workload")
FILES = ("reverse_qk", "copy_positions", "norm_placement", "lm_positions")
DESIGNS = ("auto", "as-is", "confidence_sequence", "drop", "fixed")
JOBS = 2
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_throughput import measure_ceiling  # noqa: E402  (one definition)
DECIDED = ("agrees", "disagrees")


def claims_file(name):
    return os.path.join(CLAIMS_DIR, name + ".toml")


def variant(name, design, tmp):
    """(path, CLI overrides) of the file under a design handling (the module's docstring)."""
    path = claims_file(name)
    if design in ("as-is", "confidence_sequence"):
        return path, (["sweep.adaptive.design=confidence_sequence"] if design == "confidence_sequence" else [])
    with open(path) as f:
        text = f.read()
    if design == "drop":
        text = re.sub(r'(?m)^design\s*=.*\n', "", text)
    else:  # fixed: the budget's seeds at every point, no rounds
        budget = tomllib.loads(text)["sweep"]["adaptive"]["max_seeds"]
        text = re.sub(r'(?ms)^\[sweep\.adaptive\]\n.*?(?=^\[|\Z)', "", text)
        text = re.sub(r'(?m)^seeds\s*=.*$', f"seeds = {list(range(budget))}", text, count=1)
    out = os.path.join(tmp, f"{name}.{design}.toml")
    with open(out, "w") as f:
        f.write(text)
    return out, []


def accepts(binary, path, overrides):
    p = subprocess.run([binary, "check", path, *overrides], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode == 0, (p.stderr or p.stdout).strip().splitlines()[:1]


def choose_design(binary, name, wanted, tmp):
    """The design handling of one build for one file, checked with `ablate check`."""
    tried = []
    for design in ([wanted] if wanted != "auto" else ["as-is", "drop", "fixed"]):
        path, overrides = variant(name, design, tmp)
        ok, why = accepts(binary, path, overrides)
        if ok:
            return design, path, overrides
        tried.append(f"{design}: {why[0] if why else 'refused'}")
    sys.exit(f"error: {binary} accepts {name} under no design handling tried ({'; '.join(tried)})")


def decided_claims(run_dir):
    """(claims, decided, {claim: verdict}) from a run's claims.csv."""
    with open(os.path.join(run_dir, "claims.csv")) as f:
        rows = list(csv.DictReader(f))
    by_claim = {}
    for r in rows:
        by_claim.setdefault(r["claim"], []).append(r)
    verdicts = {}
    for claim, rs in by_claim.items():
        row = next((r for r in rs if not r.get("point_id")), rs[0]) if len(rs) > 1 else rs[0]
        verdicts[claim] = (row.get("sequential_verdict") or row.get("claim_verdict") or "").strip()
    decided = sum(1 for v in verdicts.values() if v.startswith(DECIDED))
    return len(verdicts), decided, verdicts


def run_file(binary, path, overrides, env):
    """One end-to-end adaptive run: wall and CPU seconds, trials, claims decided."""
    out = tempfile.mkdtemp(prefix="ablate-claims-")
    cmd = [binary, "run", path, "--jobs", str(JOBS), "--out", out, "-q", *overrides]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    try:
        if p.returncode != 0:
            sys.exit(f"error: {' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-2000:]}")
        run_dir = os.path.join(out, os.listdir(out)[0])
        claims, decided, verdicts = decided_claims(run_dir)
        trials = len(os.listdir(os.path.join(run_dir, "trials")))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return {"wall": wall, "cpu": cpu, "trials": trials, "claims": claims, "decided": decided, "verdicts": verdicts}


def median(xs):
    xs = sorted(xs)
    return (xs[len(xs) // 2] + xs[(len(xs) - 1) // 2]) / 2 if xs else float("nan")


def report(builds, files, raw, designs):
    lines = ["| file | build | design | trials | CPU s | wall s | claims | decided | CPU s per decided claim |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    totals = {}
    for name in files + ["**all**"]:
        for b in builds:
            if name == "**all**":
                cpu, wall = totals[b]["cpu"], totals[b]["wall"]
                trials, claims, decided, design = totals[b]["trials"], totals[b]["claims"], totals[b]["decided"], ""
            else:
                runs = raw[b][name]
                cpu, wall = median([r["cpu"] for r in runs]), median([r["wall"] for r in runs])
                trials, claims, decided = runs[0]["trials"], runs[0]["claims"], runs[0]["decided"]
                design = designs[b][name]
                t = totals.setdefault(b, {"cpu": 0, "wall": 0, "trials": 0, "claims": 0, "decided": 0})
                for k, v in (("cpu", cpu), ("wall", wall), ("trials", trials), ("claims", claims), ("decided", decided)):
                    t[k] += v
            per = f"{cpu / decided:.1f}" if decided else "n/a (none decided)"
            lines.append(f"| {name} | {b} | {design} | {trials} | {cpu:.1f} | {wall:.1f} | {claims} | {decided} | {per} |")
    if len(builds) == 2:
        a, b = builds
        pa = totals[a]["cpu"] / totals[a]["decided"] if totals[a]["decided"] else float("nan")
        pb = totals[b]["cpu"] / totals[b]["decided"] if totals[b]["decided"] else float("nan")
        lines.append(f"\nSeconds per decided claim, {a} vs {b}: {pb / pa:.2f}× "
                     f"({pa:.1f} vs {pb:.1f} CPU s; > 1: {a} needs fewer)")
    return "\n".join(lines)


def measure(builds, files, rounds, overrides, env):
    """Runs every file under every build, rounds alternating the builds' order.
    builds: {name: (binary, design wanted)}. Returns (raw, designs):
    raw[build][file] a list of run_file results, designs[build][file] the handling used."""
    names = list(builds)
    tmp = tempfile.mkdtemp(prefix="claims-variants-")
    designs, chosen = {}, {}
    try:
        for b, (binary, wanted) in builds.items():
            for f in files:
                design, path, extra = choose_design(binary, f, wanted, tmp)
                designs.setdefault(b, {})[f] = design
                chosen[(b, f)] = (path, extra + overrides)
                print(f"[design] {b} {f}: {design}", file=sys.stderr)
        raw = {b: {f: [] for f in files} for b in names}
        for r in range(rounds):
            for f in files:
                for b in (names if r % 2 == 0 else list(reversed(names))):
                    path, extra = chosen[(b, f)]
                    result = run_file(builds[b][0], path, extra, env)
                    raw[b][f].append(result)
                    print(f"[claims round {r + 1}] {f:15s} {b:12s} CPU {result['cpu']:7.1f} s  "
                          f"wall {result['wall']:6.1f} s  {result['trials']} trials  "
                          f"{result['decided']}/{result['claims']} claims decided", file=sys.stderr, flush=True)
                    if raw[b][f][0]["verdicts"] != result["verdicts"]:
                        print(f"warning: {b} {f}: round {r + 1}'s verdicts differ from round 1's", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return raw, designs


def per_decided_claim(raw, build):
    """(CPU seconds per decided claim, decided, claims) over every file: medians over rounds."""
    cpu = sum(median([r["cpu"] for r in runs]) for runs in raw[build].values())
    decided = sum(runs[0]["decided"] for runs in raw[build].values())
    claims = sum(runs[0]["claims"] for runs in raw[build].values())
    return (cpu / decided if decided else float("nan")), decided, claims


def reversed_verdicts(raw, a, b):
    """Claims decided one way by build a and the other way by build b (any round)."""
    out = []
    for f in raw[a]:
        for ra, rb in zip(raw[a][f], raw[b][f]):
            for claim, va in ra["verdicts"].items():
                vb = rb["verdicts"].get(claim, "")
                if va.startswith(DECIDED) and vb.startswith(DECIDED) and va.split()[0] != vb.split()[0]:
                    out.append(f"{f}: {claim}: {a} {va}, {b} {vb}")
    return sorted(set(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ablate", default=os.path.join(REPO, "build", "experiments", "ablate"))
    ap.add_argument("--baseline", help="another build's ablate binary")
    ap.add_argument("--baseline-name", default="baseline")
    ap.add_argument("--ablate-design", default="auto", choices=DESIGNS)
    ap.add_argument("--baseline-design", default="auto", choices=DESIGNS)
    ap.add_argument("--files", default=",".join(FILES))
    ap.add_argument("--rounds", type=int, default=3, help="runs of each file per build, order alternating")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="an override for every run (a smoke test: train.steps=50)")
    ap.add_argument("--ceiling", default=os.path.join(REPO, "build", "bench", "bench_ceiling"),
                    help="bench_ceiling's binary; 'none' measures no ceiling")
    ap.add_argument("--json")
    args = ap.parse_args()
    files = [f for f in args.files.split(",") if f]
    for f in files:
        if f not in FILES:
            sys.exit(f"error: --files: unknown {f!r} (allowed: {', '.join(FILES)})")
    builds = {"ablate": (args.ablate, args.ablate_design)}
    if args.baseline:
        builds[args.baseline_name] = (args.baseline, args.baseline_design)
    names = list(builds)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    ceiling = args.ceiling if os.path.exists(args.ceiling) else None
    ceilings = [measure_ceiling(ceiling, env, "start")] if ceiling else []
    raw, designs = measure(builds, files, args.rounds, args.set, env)
    if ceiling:
        ceilings.append(measure_ceiling(ceiling, env, "end"))
    print(f"# Seconds per decided claim, {datetime.date.today()}, --jobs {JOBS}, {args.rounds} round(s)"
          + (f", overrides {' '.join(args.set)}" if args.set else "") + "; f32 FMA ceiling: "
          + (", ".join(f"{c:.1f}" for c in ceilings) + " GFLOP/s (start, end)" if ceilings else "not measured")
          + "\n")
    print(report(names, files, raw, designs))
    if len(names) == 2:
        flipped = reversed_verdicts(raw, *names)
        print(f"\nDecided verdicts reversed between the builds: {len(flipped)}")
        for line in flipped:
            print(f"- {line}")
    for b in names:
        for f in files:
            for claim, v in raw[b][f][0]["verdicts"].items():
                print(f"- {b} {f}: {v or '(no verdict)'}: {claim}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"date": str(datetime.date.today()), "designs": designs, "ceilings": ceilings, "raw": raw},
                      fh, indent=1)


if __name__ == "__main__":
    main()
