#!/usr/bin/env python3
"""Side-by-side speed and memory of ablate and PyTorch on the four reference models.

Builds the four reference Transformers of bench/reference_models.cpp in PyTorch with the
same shapes, then runs ours (build/bench/bench_models) and PyTorch's alternately, one
configuration per process (so peak RSS is per configuration), one thread each, in two
environments: `default` (the machine's, OPENBLAS_CORETYPE=Haswell) and `best` (OpenBLAS
picks its own AVX-512 kernel, glibc malloc keeps freed memory instead of returning it).
Prints a Markdown table of medians over all repetitions of all rounds.

    /usr/bin/python3 bench/compare_torch.py                        # all four, both envs, ~15 min
    /usr/bin/python3 bench/compare_torch.py --quick --configs tiny  # smoke test
"""
import argparse, datetime, json, math, os, resource, statistics, subprocess, sys, time

CONFIGS = {  # name: d_model, heads, enc, dec, d_ff, src/tgt length, batch, vocab
    "tiny": (32, 2, 1, 1, 64, 10, 32, 16),
    "small": (64, 4, 2, 2, 256, 16, 32, 32),
    "medium": (128, 4, 2, 2, 512, 32, 32, 64),
    "base": (256, 8, 3, 3, 1024, 64, 16, 1000),
}
ENVS = ("default", "best")
MODES = ("train", "forward")
TORCH_PYTHON = "/usr/bin/python3"  # Debian's, where python3-torch installs
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def forward_flops(name):
    """Matmul FLOPs of one forward pass, counted exactly as bench/reference_models.cpp does."""
    D, _, enc, dec, dff, T, B, V = CONFIGS[name]
    tokens = B * T
    P, A, F, O = 2 * tokens * D * D, 4 * tokens * T * D, 4 * tokens * D * dff, 2 * tokens * D * V
    return enc * (4 * P + A + F) + dec * (2 * (4 * P + A) + F) + O


def ensure_torch():
    """Re-exec under Debian's Python, installing python3-torch there if it is missing.

    Only the workers import torch: a child's ru_maxrss starts at its parent's RSS
    (subprocess uses vfork, and exec keeps the high-water mark), so a parent holding
    libtorch (~230 MiB) would inflate every peak RSS measured, ours included."""
    import importlib.util
    if importlib.util.find_spec("torch") is not None:
        return
    me = [os.path.abspath(__file__)] + sys.argv[1:]
    if os.path.realpath(sys.executable) != os.path.realpath(TORCH_PYTHON) and os.path.exists(TORCH_PYTHON):
        os.execv(TORCH_PYTHON, [TORCH_PYTHON] + me)
    if os.environ.get("COMPARE_TORCH_INSTALLED"):
        sys.exit("error: python3-torch was installed but `import torch` still fails under " + TORCH_PYTHON)
    print("import torch failed: installing python3-torch (Debian) ...", file=sys.stderr)
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    apt = sudo + ["apt-get", "install", "-y", "-q", "--no-install-recommends", "python3-torch"]
    if subprocess.call(apt) != 0:  # a fresh machine may have no package lists yet
        subprocess.call(sudo + ["apt-get", "update", "-q"])
        if subprocess.call(apt) != 0:
            sys.exit("error: could not install python3-torch with apt-get")
    os.environ["COMPARE_TORCH_INSTALLED"] = "1"
    os.execv(TORCH_PYTHON, [TORCH_PYTHON] + me)


# ---- PyTorch side (runs in a worker subprocess) ------------------------------------------

def build_torch_model(name):
    """The reference model in PyTorch: post-norm encoder-decoder, like ours in every shape."""
    import torch
    from torch import nn
    D, H, enc, dec, dff, T, B, V = CONFIGS[name]

    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.src_embed, self.tgt_embed = nn.Embedding(V, D), nn.Embedding(V, D)
            pos = torch.arange(T, dtype=torch.float32).unsqueeze(1)
            freq = torch.exp(torch.arange(0, D, 2, dtype=torch.float32) * (-math.log(10000.0) / D))
            table = torch.zeros(T, D)
            table[:, 0::2], table[:, 1::2] = torch.sin(pos * freq), torch.cos(pos * freq)
            self.register_buffer("positions", table)
            layer = lambda cls: cls(D, H, dff, dropout=0.0, activation="relu", batch_first=True, norm_first=False)
            self.encoder = nn.TransformerEncoder(layer(nn.TransformerEncoderLayer), enc, norm=None)
            self.decoder = nn.TransformerDecoder(layer(nn.TransformerDecoderLayer), dec, norm=None)
            self.out = nn.Linear(D, V)
            self.register_buffer("causal", torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1))

        def forward(self, src, tgt):
            # Padding masks are all False here, but ours computes them too, so the work matches.
            src_pad, tgt_pad = src == 0, tgt == 0
            x = self.src_embed(src) * math.sqrt(D) + self.positions
            memory = self.encoder(x, src_key_padding_mask=src_pad)
            y = self.tgt_embed(tgt) * math.sqrt(D) + self.positions
            y = self.decoder(y, memory, tgt_mask=self.causal, tgt_key_padding_mask=tgt_pad,
                             memory_key_padding_mask=src_pad)
            return self.out(y)

    torch.manual_seed(0)
    src = torch.randint(3, V, (B, T))  # copy task; 0, 1, 2 are pad, BOS, EOS
    tgt_in = torch.cat([torch.ones(B, 1, dtype=src.dtype), src[:, :-1]], dim=1)
    return Seq2Seq(), src, tgt_in, src


def time_reps(step, reps, min_time):
    """Per-step mean of `reps` repetitions, each long enough to last ~min_time seconds."""
    for _ in range(3):  # warm-up: allocator caches, lazy init
        step()
    t0 = time.perf_counter()
    step()
    n = max(1, math.ceil(min_time / max(time.perf_counter() - t0, 1e-9)))
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(n):
            step()
        times.append((time.perf_counter() - t0) / n)
    return times


def torch_worker(args):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    import_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Python + libtorch alone
    if args.worker == "tape":
        # The same work as ours' BM_MulSum8: (x*w).sum() forward + backward on 8 elements.
        # Gradients accumulate into .grad between calls, as ours does (no zeroing timed).
        x, w = torch.ones(8, requires_grad=True), torch.full((8,), 0.5, requires_grad=True)
        step = lambda: (x * w).sum().backward()
    else:
        model, src, tgt_in, targets = build_torch_model(args.config)
        V = CONFIGS[args.config][7]
        loss_of = lambda: F.cross_entropy(model(src, tgt_in).reshape(-1, V), targets.reshape(-1), ignore_index=0)
        if args.mode == "train":
            opt = torch.optim.Adam(model.parameters(), lr=1e-4)

            def step():  # set_to_none: PyTorch's recommended (and 2.x default) zero_grad
                opt.zero_grad(set_to_none=True)
                loss = loss_of()
                loss.backward()
                opt.step()
                return loss.item()
        else:
            model.eval()  # lets torch take its inference fast path; dropout is 0 anyway

            def step():
                with torch.no_grad():
                    return loss_of().item()
    times = [t * 1e3 for t in time_reps(step, args.reps, args.min_time)]
    print(json.dumps({"torch_version": torch.__version__, "reps_ms": times,
                      "median_ms": statistics.median(times), "import_rss_mib": import_rss,
                      "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


# ---- running both sides ------------------------------------------------------------------

def make_env(name):
    """The environment of every subprocess: one thread everywhere, plus the env's tuning."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if name == "best":
        env.pop("OPENBLAS_CORETYPE", None)  # OpenBLAS then picks its AVX-512 kernel
        # Keep freed memory in the process: no trimming, no mmap for blocks < 32 MiB, so
        # large tensors are not page-faulted in again on every step.
        env["GLIBC_TUNABLES"] = "glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=33554432"
    return env


def run(cmd, env, what):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"error: {what} failed (exit {p.returncode}): {' '.join(cmd)}\n{p.stderr[-3000:]}")
    return p.stdout


def run_ours(binary, bench, env, reps, min_time):
    """One Google Benchmark in its own process; per-repetition times in ms (or ns), counters."""
    out = run([binary, f"--benchmark_filter=^{bench}$", f"--benchmark_repetitions={reps}",
               f"--benchmark_min_time={min_time}", "--benchmark_format=json",
               "--benchmark_report_aggregates_only=false"], env, f"ours ({bench})")
    data = json.loads(out)
    its = [b for b in data["benchmarks"] if b.get("run_type") == "iteration"]
    if not its:
        sys.exit(f"error: {binary} ran no benchmark named {bench}")
    return {"reps": [b["real_time"] for b in its], "unit": its[0]["time_unit"],
            "gflops": [b["GFLOP/s"] for b in its if "GFLOP/s" in b],
            "peak_rss_mib": max(b.get("peak_rss_MiB", 0.0) for b in its), "context": data.get("context", {})}


def run_torch(env, reps, min_time, worker, config="", mode=""):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", worker, "--reps", str(reps),
           "--min-time", str(min_time)] + (["--config", config, "--mode", mode] if config else [])
    return json.loads(run(cmd, env, f"PyTorch worker ({worker} {config} {mode})").strip().splitlines()[-1])


def measure(args):
    """Alternate ours and PyTorch for every (round, config, env, mode); collect raw numbers."""
    cells, overhead, context = {}, {}, {}
    for r in range(args.rounds):
        for config in args.configs:
            for env_name in args.envs:
                env = make_env(env_name)
                for mode in args.modes:
                    ours = run_ours(args.ours_binary, f"{mode}/{config}", env, args.reps, args.min_time)
                    theirs = run_torch(env, args.reps, args.min_time, "model", config, mode)
                    context = ours.pop("context") or context
                    cell = cells.setdefault((config, env_name, mode), {"ours": [], "torch": []})
                    cell["ours"].append(ours)
                    cell["torch"].append(theirs)
                    print(f"[round {r + 1}/{args.rounds}] {config:6} {env_name:7} {mode:7} ours "
                          f"{statistics.median(ours['reps']):8.2f} ms, PyTorch {theirs['median_ms']:8.2f} ms",
                          file=sys.stderr, flush=True)
        if not args.no_overhead:
            for env_name in args.envs:
                env = make_env(env_name)
                ours = run_ours(args.tape_binary, "BM_MulSum8", env, args.reps, args.min_time)
                theirs = run_torch(env, args.reps, args.min_time, "tape")
                ours.pop("context")
                o = overhead.setdefault(env_name, {"ours_us": [], "torch_us": []})
                o["ours_us"] += [t / 1e3 for t in ours["reps"]]  # ns -> µs
                o["torch_us"] += [t * 1e3 for t in theirs["reps_ms"]]  # ms -> µs
                print(f"[round {r + 1}/{args.rounds}] per-op  {env_name:7} ours {statistics.median(o['ours_us']):.3f} "
                      f"µs, PyTorch {statistics.median(o['torch_us']):.2f} µs", file=sys.stderr, flush=True)
    return cells, overhead, context


def summarize(cells, peak):
    rows = []
    for (config, env, mode), cell in cells.items():
        ours_ms = statistics.median([t for run in cell["ours"] for t in run["reps"]])
        torch_ms = statistics.median([t for run in cell["torch"] for t in run["reps_ms"]])
        flops = forward_flops(config) * (3 if mode == "train" else 1)
        ours_gf = statistics.median([g for run in cell["ours"] for g in run["gflops"]] or [flops / ours_ms / 1e6])
        ours_rss = max(run["peak_rss_mib"] for run in cell["ours"])
        torch_rss = max(run["peak_rss_mib"] for run in cell["torch"])
        rows.append({"config": config, "env": env, "mode": mode, "torch_ms": torch_ms, "ours_ms": ours_ms,
                     "speedup": torch_ms / ours_ms, "torch_gflops": flops / torch_ms / 1e6, "ours_gflops": ours_gf,
                     "ours_pct_peak": 100 * ours_gf / peak, "torch_rss_mib": torch_rss, "ours_rss_mib": ours_rss,
                     "rss_pct": 100 * ours_rss / torch_rss})
    return rows


def header(args, context, torch_version):
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
    backend = next((str(v) for k, v in context.items() if "backend" in k or "gemm" in k.lower()), None)
    lines = [f"Date (UTC): {datetime.datetime.utcnow():%Y-%m-%d %H:%M}",
             f"Machine: {cpu}, {os.cpu_count()} cores; one thread per side",
             f"PyTorch {torch_version}; ours: {args.ours_binary}"
             + (f" (GEMM backend: {backend})" if backend else "")
             + (f", ABLATE_GEMM={os.environ['ABLATE_GEMM']}" if "ABLATE_GEMM" in os.environ else ""),
             f"Medians over {args.rounds} round(s) × {args.reps} repetitions of ≥ {args.min_time} s, "
             f"ours and PyTorch alternating; envs: default = as is "
             f"(OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')}), "
             "best = OPENBLAS_CORETYPE unset + glibc malloc trim/mmap thresholds raised"]
    return "\n".join(lines)


def print_report(args, rows, overhead, context, torch_version, import_rss):
    print(header(args, context, torch_version) + "\n")
    print("| config | env | mode | PyTorch ms | ours ms | speed-up | PyTorch GFLOP/s | ours GFLOP/s "
          "| ours % of peak | PyTorch peak RSS MiB | ours peak RSS MiB | RSS ours/PyTorch |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['config']} | {r['env']} | {r['mode']} | {r['torch_ms']:.3g} | {r['ours_ms']:.3g} "
              f"| {r['speedup']:.2f}× | {r['torch_gflops']:.1f} | {r['ours_gflops']:.1f} | {r['ours_pct_peak']:.0f} % "
              f"| {r['torch_rss_mib']:.0f} | {r['ours_rss_mib']:.0f} | {r['rss_pct']:.0f} % |")
    print(f"\nPeak = {args.peak:g} GFLOP/s per core. GFLOP/s of both sides count the same matmul FLOPs "
          "(×3 for a training step); peak RSS is of the whole process: PyTorch's includes Python and "
          f"libtorch, {import_rss:.0f} MiB after `import torch` alone.")
    if overhead:
        print("\nPer-op overhead: `(x * w).sum()` forward + backward on 8 elements, per call (ours: "
              "bench_tape BM_MulSum8; PyTorch: `(x * w).sum().backward()` called from Python, grads accumulating)\n")
        print("| env | PyTorch µs | ours µs | PyTorch/ours |\n|---|---:|---:|---:|")
        for env, o in overhead.items():
            t, u = statistics.median(o["torch_us"]), statistics.median(o["ours_us"])
            print(f"| {env} | {t:.2f} | {u:.3f} | {t / u:.0f}× |")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated: " + ",".join(CONFIGS))
    p.add_argument("--envs", default=",".join(ENVS), help="comma-separated: default,best")
    p.add_argument("--modes", default="train", help="comma-separated: train,forward")
    p.add_argument("--rounds", type=int, default=3, help="alternations of ours and PyTorch per cell")
    p.add_argument("--reps", type=int, default=5, help="repetitions per process")
    p.add_argument("--min-time", type=float, default=0.5, help="seconds per repetition (at least)")
    p.add_argument("--peak", type=float, default=224.0, help="f32 GFLOP/s peak of one core")
    p.add_argument("--ours-binary", default=os.path.join(REPO, "build/bench/bench_models"))
    p.add_argument("--tape-binary", default=os.path.join(REPO, "build/bench/bench_tape"))
    p.add_argument("--no-overhead", action="store_true", help="skip the per-op overhead comparison")
    p.add_argument("--json", metavar="FILE", help="write all raw numbers here")
    p.add_argument("--quick", action="store_true", help="smoke test: rounds 1, reps 2, min-time 0.2")
    p.add_argument("--worker", choices=("model", "tape"), help=argparse.SUPPRESS)  # internal
    p.add_argument("--config", help=argparse.SUPPRESS)
    p.add_argument("--mode", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.quick:
        args.rounds, args.reps, args.min_time = 1, 2, 0.2
    for name, allowed in (("configs", CONFIGS), ("envs", ENVS), ("modes", MODES)):
        values = [v.strip() for v in getattr(args, name).split(",") if v.strip()]
        bad = [v for v in values if v not in allowed]
        if bad or not values:
            p.error(f"--{name}: {','.join(bad) or 'empty'} not among {','.join(allowed)}")
        setattr(args, name, values)
    if args.rounds < 1 or args.reps < 1 or args.min_time <= 0:
        p.error("--rounds and --reps must be ≥ 1 and --min-time > 0")
    return args


def main():
    args = parse_args()
    ensure_torch()
    if args.worker:
        return torch_worker(args)
    for path in [args.ours_binary] + ([] if args.no_overhead else [args.tape_binary]):
        if not os.access(path, os.X_OK):
            print(f"error: {path} not found; build it first: `bash scripts/build.sh` "
                  "(or `cmake --build build --target bench_models bench_tape`)", file=sys.stderr)
            sys.exit(2)
    cells, overhead, context = measure(args)
    rows = summarize(cells, args.peak)
    first = next(iter(cells.values()))["torch"][0]
    torch_version = first["torch_version"]
    print_report(args, rows, overhead, context, torch_version, first["import_rss_mib"])
    if args.json:
        raw = {"args": {k: v for k, v in vars(args).items() if k not in ("worker", "config", "mode")},
               "context": context, "torch_version": torch_version, "summary": rows, "overhead": overhead,
               "runs": [{"config": c, "env": e, "mode": m, **cell} for (c, e, m), cell in cells.items()]}
        with open(args.json, "w") as f:
            json.dump(raw, f, indent=1)


if __name__ == "__main__":
    main()
