#!/usr/bin/env python3
"""Side-by-side speed and memory of ablate and its peers on the four reference models.

Builds the four reference Transformers of bench/reference_configs.h in PyTorch with the
same shapes and times, alternately, one configuration per process, one thread each:

    torch_f32        PyTorch from Python, f32
    torch_bf16       PyTorch from Python, bf16 autocast around forward and loss
    libtorch_f32     the same model in libtorch's C++ API (build/bench/bench_libtorch,
                     built where libtorch-dev is installed); libtorch_bf16 on request
    ours_f32         build/bench/bench_models  train/<c>, forward/<c>
    ours_bf16        bench_models  train_bf16/<c>, forward_bf16/<c>   (where it has them)
    ours_recompute   bench_models  train_recompute/<c>                (where it has it)

The core's FLOP ceiling is measured in the same run (build/bench/bench_ceiling, at the
start and at the end) and "% of ceiling" is against the higher of the two. Prints one
Markdown table per mode of medians over all repetitions of all rounds; --json keeps
every raw number. Environments: `best` (the default: OpenBLAS with the core type
bench/openblas_probe.py measures fastest on this host, glibc malloc keeps freed memory)
and `default` (the machine's as is). Every table with a ratio against PyTorch says which
PyTorch: 1.13, Debian's python3-torch, the only PyTorch installable here.

    /usr/bin/python3 bench/compare_torch.py                        # everything, ~10-15 min
    /usr/bin/python3 bench/compare_torch.py --quick                 # smoke test, ~1-2 min
    /usr/bin/python3 bench/compare_torch.py --quick --configs tiny  # ~20 s
"""
import argparse, datetime, json, math, os, resource, statistics, subprocess, sys, time

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import openblas_probe  # noqa: E402  (bench/openblas_probe.py: the fastest OPENBLAS_CORETYPE here)

# Said beside every ratio against PyTorch: which PyTorch, and why that one.
TORCH_NOTE = "PyTorch 1.13 (Debian's python3-torch), the only PyTorch installable here"

CONFIGS = {  # name: d_model, heads, enc, dec, d_ff, src/tgt length, batch, vocab (bench/reference_configs.h)
    "tiny": (32, 2, 1, 1, 64, 10, 32, 16),
    "small": (64, 4, 2, 2, 256, 16, 32, 32),
    "medium": (128, 4, 2, 2, 512, 32, 32, 64),
    "base": (256, 8, 3, 3, 1024, 64, 16, 1000),
}
ENVS = ("best", "default")
MODES = ("train", "forward")
# Peer name: (label in the tables, the bench_models benchmark for a mode, or None when the
# peer is not ours). Order = the order of the table's columns and of the first round.
PEERS = {
    "torch_f32": ("PyTorch f32", None),
    "torch_bf16": ("PyTorch bf16", None),
    "libtorch_f32": ("libtorch f32", None),
    "libtorch_bf16": ("libtorch bf16", None),
    "ours_f32": ("ours f32", {"train": "train/{}", "forward": "forward/{}"}),
    "ours_bf16": ("ours bf16", {"train": "train_bf16/{}", "forward": "forward_bf16/{}"}),
    "ours_recompute": ("ours recompute", {"train": "train_recompute/{}"}),
}
DEFAULT_PEERS = ("torch_f32", "torch_bf16", "libtorch_f32", "ours_f32", "ours_bf16", "ours_recompute")
TORCH_PYTHON = "/usr/bin/python3"  # Debian's, where python3-torch installs
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FALLBACK_PEAK = 224.0  # GFLOP/s, when bench_ceiling is not built


def forward_flops(name):
    """Matmul FLOPs of one forward pass, counted exactly as bench/reference_configs.h does."""
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
    """The reference model in PyTorch: post-norm encoder-decoder, like ours in every shape.
    bench/libtorch_reference_model.cpp writes the same model out op by op in C++."""
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
    import contextlib
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    import_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Python + libtorch alone
    bf16 = args.precision == "bf16"
    # PyTorch's documented CPU mixed precision: autocast around forward and loss only.
    autocast = (lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if bf16 else contextlib.nullcontext
    if args.worker == "tape":
        # The same work as ours' BM_MulSum8: (x*w).sum() forward + backward on 8 elements.
        # Gradients accumulate into .grad between calls, as ours does (no zeroing timed).
        x, w = torch.ones(8, requires_grad=True), torch.full((8,), 0.5, requires_grad=True)
        step = lambda: (x * w).sum().backward() or 0.0
    else:
        model, src, tgt_in, targets = build_torch_model(args.config)
        V = CONFIGS[args.config][7]
        loss_of = lambda: F.cross_entropy(model(src, tgt_in).reshape(-1, V), targets.reshape(-1), ignore_index=0)
        if args.mode == "train":
            opt = torch.optim.Adam(model.parameters(), lr=1e-4)

            def step():  # set_to_none: PyTorch's recommended (and 2.x default) zero_grad
                opt.zero_grad(set_to_none=True)
                with autocast():
                    loss = loss_of()
                loss.backward()
                opt.step()
                return loss.item()
        else:
            # eval() lets torch take its inference fast path (dropout is 0 anyway). Not
            # under bf16 autocast: 1.13's fused encoder kernel then fails ("expected
            # scalar type BFloat16 but found Float"), so bf16 runs the regular path.
            if not bf16:
                model.eval()

            def step():
                with torch.no_grad(), autocast():
                    return loss_of().item()
    first_loss = step()  # before any update: libtorch's first loss must be the same
    times = [t * 1e3 for t in time_reps(step, args.reps, args.min_time)]
    print(json.dumps({"torch_version": torch.__version__, "reps_ms": times, "first_loss": first_loss,
                      "median_ms": statistics.median(times), "import_rss_mib": import_rss,
                      "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


# ---- running the peers -------------------------------------------------------------------

def make_env(name, coretype=None):
    """The environment of every subprocess: one thread everywhere, plus the env's tuning.
    `best` runs OpenBLAS with `coretype` (bench/openblas_probe.py's fastest core type on
    this host; None leaves OpenBLAS to detect the CPU)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if name == "best":
        env.pop("OPENBLAS_CORETYPE", None)
        if coretype:
            env["OPENBLAS_CORETYPE"] = coretype
        # Keep freed memory in the process: no trimming, no mmap for blocks < 32 MiB, so
        # large tensors are not page-faulted in again on every step.
        env["GLIBC_TUNABLES"] = "glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=33554432"
    return env


def run(cmd, env, what):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"error: {what} failed (exit {p.returncode}): {' '.join(cmd)}\n{p.stderr[-3000:]}")
    return p.stdout


def run_benchmark(binary, bench, env, reps, min_time):
    """One Google Benchmark (a regex) in its own process: per-repetition times and counters."""
    out = run([binary, f"--benchmark_filter=^{bench}$", f"--benchmark_repetitions={reps}",
               f"--benchmark_min_time={min_time}", "--benchmark_format=json",
               "--benchmark_report_aggregates_only=false"], env, f"{os.path.basename(binary)} ({bench})")
    data = json.loads(out)
    its = [b for b in data["benchmarks"] if b.get("run_type") == "iteration"]
    if not its:
        sys.exit(f"error: {binary} ran no benchmark named {bench}")
    return its, data.get("context", {})


def run_ours(binary, bench, env, reps, min_time):
    """Ours, in the same shape as a PyTorch worker's answer (times in the benchmark's unit)."""
    its, context = run_benchmark(binary, bench, env, reps, min_time)
    times = [b["real_time"] for b in its]
    return {"reps_ms": times, "median_ms": statistics.median(times), "unit": its[0]["time_unit"],
            "peak_rss_mib": max(b.get("peak_rss_MiB", 0.0) for b in its), "context": context}


def run_torch(env, reps, min_time, worker, config="", mode="", precision="f32"):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", worker, "--reps", str(reps),
           "--min-time", str(min_time), "--precision", precision] + (["--config", config, "--mode", mode] if config else [])
    return json.loads(run(cmd, env, f"PyTorch worker ({worker} {config} {mode} {precision})").strip().splitlines()[-1])


def run_libtorch(binary, env, reps, min_time, mode, config="", precision="f32"):
    cmd = [binary, "--mode", mode, "--reps", str(reps), "--min-time", str(min_time), "--precision", precision]
    cmd += ["--config", config] if config else []
    return json.loads(run(cmd, env, f"bench_libtorch ({config} {mode} {precision})").strip().splitlines()[-1])


def run_peer(args, peer, config, mode, env):
    if peer.startswith("torch_"):
        return run_torch(env, args.reps, args.min_time, "model", config, mode, peer.split("_")[1])
    if peer.startswith("libtorch_"):
        return run_libtorch(args.libtorch_binary, env, args.reps, args.min_time, mode, config, peer.split("_")[1])
    return run_ours(args.ours_binary, PEERS[peer][1][mode].format(config), env, args.reps, args.min_time)


def measure_ceiling(args, env, when):
    """bench_ceiling's f32 FMA (and bf16 dot-product) peak: median GFLOP/s of each."""
    its, _ = run_benchmark(args.ceiling_binary, "(fma_ceiling|bf16_dot_ceiling)(/real_time)?", env,
                           args.reps, min(args.min_time, 0.2))
    result = {"when": when}
    for name in ("fma_ceiling", "bf16_dot_ceiling"):
        rates = [b["GFLOP/s"] for b in its if b["name"].split("/")[0] == name]
        if rates:
            result[name] = statistics.median(rates)
            result[name + "_reps"] = rates
    print(f"[ceiling {when}] f32 FMA {result.get('fma_ceiling', float('nan')):.1f} GFLOP/s"
          + (f", bf16 dot {result['bf16_dot_ceiling']:.1f} GFLOP/s" if "bf16_dot_ceiling" in result else ""),
          file=sys.stderr, flush=True)
    return result


def available_cells(args):
    """{(peer, mode, config): True} for what can run; notes for the peers left out."""
    notes, cells = [], {}
    ours_tests = set(run([args.ours_binary, "--benchmark_list_tests"], None, "bench_models --benchmark_list_tests").split())
    libtorch_built = os.access(args.libtorch_binary, os.X_OK)
    for peer in args.peers:
        label, benches = PEERS[peer]
        if peer.startswith("libtorch_") and not libtorch_built:
            notes.append(f"{label}: {args.libtorch_binary} is not built (CMake builds it where Debian's "
                         "libtorch-dev is installed: `apt-get install --no-install-recommends libtorch-dev`, "
                         "then reconfigure and build the bench_libtorch target): left out")
            continue
        missing = []
        for mode in args.modes:
            for config in args.configs:
                if benches is None:
                    cells[(peer, mode, config)] = True
                elif mode in benches and benches[mode].format(config) in ours_tests:
                    cells[(peer, mode, config)] = True
                elif mode in benches:
                    missing.append(benches[mode].format(config))
        if missing:
            notes.append(f"{label}: bench_models has no {', '.join(missing)}: not available")
    return cells, notes


def measure(args, cells):
    """Every (round, config, env, mode): the available peers, one process each, in the
    columns' order in even rounds and reversed in odd ones."""
    runs, overhead, context = {}, {}, {}
    for r in range(args.rounds):
        for config in args.configs:
            for env_name in args.envs:
                env = make_env(env_name, args.coretype)
                for mode in args.modes:
                    order = [p for p in args.peers if cells.get((p, mode, config))]
                    if r % 2:
                        order.reverse()
                    medians = []
                    for position, peer in enumerate(order):
                        result = run_peer(args, peer, config, mode, env)
                        context = result.pop("context", None) or context
                        result.update(round=r, position=position)  # for looking at the VM's noise later
                        runs.setdefault((config, env_name, mode), {}).setdefault(peer, []).append(result)
                        medians.append(f"{PEERS[peer][0]} {result['median_ms']:.3g}")
                    print(f"[round {r + 1}/{args.rounds}] {config:6} {env_name:7} {mode:7} ms: " + ", ".join(medians),
                          file=sys.stderr, flush=True)
        if not args.no_overhead:
            for env_name in args.envs:
                measure_overhead(args, env_name, overhead.setdefault(env_name, {}), r)
    return runs, overhead, context


def measure_overhead(args, env_name, o, r):
    """(x * w).sum() forward + backward on 8 elements: ours, PyTorch from Python, libtorch."""
    env = make_env(env_name, args.coretype)
    ours = run_ours(args.tape_binary, "BM_MulSum8", env, args.reps, args.min_time)
    o.setdefault("ours_us", []).extend(t / 1e3 for t in ours["reps_ms"])  # ns -> µs
    o.setdefault("torch_us", []).extend(t * 1e3 for t in run_torch(env, args.reps, args.min_time, "tape")["reps_ms"])
    if os.access(args.libtorch_binary, os.X_OK):
        lt = run_libtorch(args.libtorch_binary, env, args.reps, args.min_time, "tape")
        o.setdefault("libtorch_us", []).extend(t * 1e3 for t in lt["reps_ms"])
    print(f"[round {r + 1}/{args.rounds}] per-op  {env_name:7} " + ", ".join(
        f"{k[:-3]} {statistics.median(v):.3f} µs" for k, v in o.items()), file=sys.stderr, flush=True)


# ---- summary and report ------------------------------------------------------------------

def summarize(runs, peak):
    rows = []
    for (config, env, mode), by_peer in runs.items():
        flops = forward_flops(config) * (3 if mode == "train" else 1)
        row = {"config": config, "env": env, "mode": mode, "flops": flops}
        for peer, results in by_peer.items():
            ms = statistics.median([t for res in results for t in res["reps_ms"]])
            row[peer] = {"ms": ms, "gflops": flops / ms / 1e6, "peak_rss_mib": max(res["peak_rss_mib"] for res in results),
                         "first_loss": results[0].get("first_loss")}
        ms = lambda p: row[p]["ms"] if p in row else None
        speedup = lambda theirs, ours: ms(theirs) / ms(ours) if ms(theirs) and ms(ours) else None
        row["ours_f32_vs_libtorch"] = speedup("libtorch_f32", "ours_f32")
        row["ours_f32_vs_torch"] = speedup("torch_f32", "ours_f32")
        row["ours_bf16_vs_torch_bf16"] = speedup("torch_bf16", "ours_bf16")
        row["ours_bf16_vs_libtorch_f32"] = speedup("libtorch_f32", "ours_bf16")
        for p in ("ours_f32", "ours_bf16"):
            row[p + "_pct_ceiling"] = 100 * row[p]["gflops"] / peak if p in row else None
        if "ours_f32" in row and "libtorch_f32" in row:
            row["rss_ours_vs_libtorch_pct"] = 100 * row["ours_f32"]["peak_rss_mib"] / row["libtorch_f32"]["peak_rss_mib"]
        rows.append(row)
    return rows


def loss_warnings(rows):
    """libtorch's model is PyTorch's written out in C++, initialised from the same seed:
    their first losses agree (to rounding) unless the two models differ."""
    out = []
    for r in rows:
        for a, b, tol in (("torch_f32", "libtorch_f32", 1e-5), ("torch_bf16", "libtorch_bf16", 1e-2)):
            la, lb = (r.get(a) or {}).get("first_loss"), (r.get(b) or {}).get("first_loss")
            if la is not None and lb is not None and abs(la - lb) > tol * max(1.0, abs(la)):
                out.append(f"warning: {r['config']} {r['mode']}: first loss {PEERS[a][0]} {la:.6f} vs "
                           f"{PEERS[b][0]} {lb:.6f}: the two models are not the same")
    return out


def fmt(x, spec, suffix=""):
    return "–" if x is None else f"{x:{spec}}{suffix}"


def table(rows, mode, peers, envs):
    """One Markdown table: a row per config (and env)."""
    rows = [r for r in rows if r["mode"] == mode]
    present = [p for p in peers if any(p in r for r in rows)]
    have = lambda *ps: all(p in present for p in ps)
    cols = [("config", lambda r: r["config"])]
    if len(envs) > 1:
        cols.append(("env", lambda r: r["env"]))
    for p in present:
        cols.append((f"{PEERS[p][0]} ms", lambda r, p=p: fmt((r.get(p) or {}).get("ms"), ".3g")))
    ratios = [("ours f32 vs libtorch", "ours_f32_vs_libtorch", ("ours_f32", "libtorch_f32")),
              ("ours f32 vs PyTorch", "ours_f32_vs_torch", ("ours_f32", "torch_f32")),
              ("ours bf16 vs PyTorch bf16", "ours_bf16_vs_torch_bf16", ("ours_bf16", "torch_bf16")),
              ("ours bf16 vs libtorch f32", "ours_bf16_vs_libtorch_f32", ("ours_bf16", "libtorch_f32"))]
    for title, key, needs in ratios:
        if have(*needs):
            cols.append((title, lambda r, key=key: fmt(r.get(key), ".2f", "×")))
    for p in ("ours_f32", "ours_bf16"):
        if have(p):
            cols.append((f"{PEERS[p][0]} % of ceiling", lambda r, p=p: fmt(r.get(p + "_pct_ceiling"), ".0f", " %")))
    for p in present:
        cols.append((f"{PEERS[p][0]} peak RSS MiB", lambda r, p=p: fmt((r.get(p) or {}).get("peak_rss_mib"), ".0f")))
    if have("ours_f32", "libtorch_f32"):
        cols.append(("RSS ours/libtorch", lambda r: fmt(r.get("rss_ours_vs_libtorch_pct"), ".0f", " %")))
    lines = ["| " + " | ".join(c[0] for c in cols) + " |",
             "|" + "|".join("---" if i == 0 or (i == 1 and len(envs) > 1) else "---:" for i in range(len(cols))) + "|"]
    lines += ["| " + " | ".join(c[1](r) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def header(args, context, versions, ceilings, peak):
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
    backend = next((str(v) for k, v in context.items() if "backend" in k or "gemm" in k.lower()), None)
    ceiling_text = "; ".join(f"{c['when']}: f32 FMA {c['fma_ceiling']:.1f}"
                             + (f", bf16 dot {c['bf16_dot_ceiling']:.1f}" if "bf16_dot_ceiling" in c else "")
                             for c in ceilings if "fma_ceiling" in c)
    lines = [f"Date (UTC): {datetime.datetime.utcnow():%Y-%m-%d %H:%M}",
             f"Machine: {cpu}, {os.cpu_count()} cores; one thread per process",
             ", ".join(f"{k} {v}" for k, v in versions.items()) + f"; ours: {args.ours_binary}"
             + (f" (GEMM backend: {backend})" if backend else "")
             + (f", ABLATE_GEMM={os.environ['ABLATE_GEMM']}" if "ABLATE_GEMM" in os.environ else ""),
             f"Medians over {args.rounds} round(s) × {args.reps} repetitions of ≥ {args.min_time} s, the peers "
             f"alternating (order reversed every other round); envs: {', '.join(args.envs)} (best = "
             f"OPENBLAS_CORETYPE={args.coretype or 'unset'} (the fastest probed) + glibc malloc trim/mmap "
             "thresholds raised; default = as is, "
             f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')})",
             f"Ceiling (bench_ceiling, GFLOP/s, one core): {ceiling_text or 'not measured'}; "
             f"% of ceiling is against {peak:.1f}" + (" (--peak)" if args.peak else
                                                      " (the higher f32 FMA figure)" if ceiling_text else
                                                      " (bench_ceiling not built: a nominal figure)")]
    return "\n".join(lines)


def print_report(args, rows, overhead, context, versions, ceilings, peak, notes, import_rss):
    print(header(args, context, versions, ceilings, peak) + "\n")
    for note in notes + loss_warnings(rows):
        print(f"- {note}")
    torch_version = versions.get("PyTorch") or versions.get("libtorch")
    for mode in args.modes:
        print(f"\n### {mode}\n")
        if torch_version:
            print(f"PyTorch peers: torch {torch_version}, {TORCH_NOTE}; OPENBLAS_CORETYPE="
                  f"{args.coretype or 'unset'} in `best`.\n")
        print(table(rows, mode, args.peers, args.envs))
    print("\nSpeed-ups are the peer's ms / ours (> 1: ours is faster). GFLOP/s and % of ceiling count the "
          "same matmul FLOPs for every peer (×3 for a training step) over wall-clock time per step; bf16's "
          "own ceiling (dot products) is twice the f32 FMA one. Peak RSS is of the whole process: "
          + ", ".join(f"{k} {v:.0f} MiB" for k, v in import_rss.items()) + " before building the model.")
    if overhead:
        print("\nPer-op overhead: `(x * w).sum()` forward + backward on 8 elements, per call (ours: "
              "bench_tape BM_MulSum8; PyTorch: called from Python; libtorch: from C++; grads accumulating; "
              f"torch {torch_version}, {TORCH_NOTE})\n")
        has_lt = any("libtorch_us" in o for o in overhead.values())
        print("| env | PyTorch µs | " + ("libtorch µs | " if has_lt else "") + "ours µs | PyTorch/ours |"
              + (" libtorch/ours |" if has_lt else ""))
        print("|---|---:|" + ("---:|" if has_lt else "") + "---:|---:|" + ("---:|" if has_lt else ""))
        for env, o in overhead.items():
            t, u = statistics.median(o["torch_us"]), statistics.median(o["ours_us"])
            lt = statistics.median(o["libtorch_us"]) if "libtorch_us" in o else None
            print(f"| {env} | {t:.2f} | " + (f"{fmt(lt, '.2f')} | " if has_lt else "") + f"{u:.3f} | {t / u:.0f}× |"
                  + (f" {fmt(lt and lt / u, '.0f', '×')} |" if has_lt else ""))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated: " + ",".join(CONFIGS))
    p.add_argument("--envs", default="best", help="comma-separated: best,default (default: best)")
    p.add_argument("--modes", default=",".join(MODES), help="comma-separated: train,forward")
    p.add_argument("--peers", default=",".join(DEFAULT_PEERS), help="comma-separated: " + ",".join(PEERS))
    p.add_argument("--rounds", type=int, default=3, help="alternations of the peers per cell")
    p.add_argument("--reps", type=int, default=5, help="repetitions per process")
    p.add_argument("--min-time", type=float, default=0.5, help="seconds per repetition (at least)")
    p.add_argument("--peak", type=float, help="f32 GFLOP/s of one core for '%% of ceiling' "
                   "(default: measured by bench_ceiling in the same run)")
    p.add_argument("--build-dir", default=os.path.join(REPO, "build"), help="where bench/bench_* are")
    p.add_argument("--ours-binary", help="default: BUILD_DIR/bench/bench_models")
    p.add_argument("--tape-binary", help="default: BUILD_DIR/bench/bench_tape")
    p.add_argument("--libtorch-binary", help="default: BUILD_DIR/bench/bench_libtorch")
    p.add_argument("--ceiling-binary", help="default: BUILD_DIR/bench/bench_ceiling")
    p.add_argument("--openblas-coretype", metavar="NAME",
                   help="OPENBLAS_CORETYPE of the best environment ('default': unset), instead of "
                        "probing the fastest (bench/openblas_probe.py)")
    p.add_argument("--no-overhead", action="store_true", help="skip the per-op overhead comparison")
    p.add_argument("--json", metavar="FILE", help="write all raw numbers here")
    p.add_argument("--quick", action="store_true", help="smoke test: rounds 1, reps 2, min-time 0.1")
    p.add_argument("--worker", choices=("model", "tape"), help=argparse.SUPPRESS)  # internal
    p.add_argument("--config", help=argparse.SUPPRESS)
    p.add_argument("--mode", help=argparse.SUPPRESS)
    p.add_argument("--precision", default="f32", choices=("f32", "bf16"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.quick:
        args.rounds, args.reps, args.min_time = 1, 2, 0.1
    for name, allowed in (("configs", CONFIGS), ("envs", ENVS), ("modes", MODES), ("peers", PEERS)):
        values = [v.strip() for v in getattr(args, name).split(",") if v.strip()]
        bad = [v for v in values if v not in allowed]
        if bad or not values:
            p.error(f"--{name}: {','.join(bad) or 'empty'} not among {','.join(allowed)}")
        setattr(args, name, values)
    args.peers = [peer for peer in PEERS if peer in args.peers]  # the columns' order
    if args.rounds < 1 or args.reps < 1 or args.min_time <= 0:
        p.error("--rounds and --reps must be ≥ 1 and --min-time > 0")
    for name, binary in (("ours", "bench_models"), ("tape", "bench_tape"), ("libtorch", "bench_libtorch"),
                         ("ceiling", "bench_ceiling")):
        if not getattr(args, name + "_binary"):
            setattr(args, name + "_binary", os.path.join(args.build_dir, "bench", binary))
    return args


def main():
    args = parse_args()
    ensure_torch()
    if args.worker:
        return torch_worker(args)
    for path in [args.ours_binary] + ([] if args.no_overhead else [args.tape_binary]):
        if not os.access(path, os.X_OK):
            print(f"error: {path} not found; build it first: `bash scripts/build.sh` "
                  "(or `cmake --build build --target bench_models bench_tape bench_ceiling`)", file=sys.stderr)
            sys.exit(2)
    cells, notes = available_cells(args)
    args.coretype = None
    if "best" in args.envs and any(p.startswith(("torch_", "libtorch_")) for p in args.peers):
        args.coretype, _ = openblas_probe.best_coretype(args.openblas_coretype)
    if not os.access(args.ceiling_binary, os.X_OK):
        notes.append(f"{args.ceiling_binary} is not built: the FLOP ceiling was not measured")
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    measure_ceiling_now = lambda when: ([measure_ceiling(args, make_env(args.envs[0], args.coretype), when)]
                                        if os.access(args.ceiling_binary, os.X_OK) else [])
    ceilings = measure_ceiling_now("start")
    runs, overhead, context = measure(args, cells)
    ceilings += measure_ceiling_now("end")
    measured = [c["fma_ceiling"] for c in ceilings if "fma_ceiling" in c]
    peak = args.peak or (max(measured) if measured else FALLBACK_PEAK)
    rows = summarize(runs, peak)
    first = {p: rs[0] for by_peer in runs.values() for p, rs in by_peer.items()}
    versions = {}
    if any(p.startswith("torch_") for p in first):
        versions["PyTorch"] = next(v["torch_version"] for p, v in first.items() if p.startswith("torch_"))
    if any(p.startswith("libtorch_") for p in first):
        versions["libtorch"] = next(v["torch_version"] for p, v in first.items() if p.startswith("libtorch_"))
    import_rss = {PEERS[p][0].split()[0]: v["import_rss_mib"] for p, v in first.items() if "import_rss_mib" in v}
    print_report(args, rows, overhead, context, versions, ceilings, peak, notes, import_rss)
    if args.json:
        raw = {"args": {k: v for k, v in vars(args).items() if k not in ("worker", "config", "mode", "precision")},
               "context": context, "versions": versions, "ceilings": ceilings, "peak_gflops": peak, "notes": notes,
               "summary": rows, "overhead": overhead,
               "runs": [{"config": c, "env": e, "mode": m, "peers": by_peer} for (c, e, m), by_peer in runs.items()]}
        with open(args.json, "w") as f:
            json.dump(raw, f, indent=1)


if __name__ == "__main__":
    main()
