#!/usr/bin/env python3
"""The fastest OpenBLAS core type for Debian's PyTorch on this host, by measurement.

Debian's PyTorch 1.13 multiplies f32 matrices with OpenBLAS, which picks its kernels
from the CPU at load time. Its guess is not always its fastest kernel (on an AVX-512
Xeon it picks one that takes a small training step twice as long as SapphireRapids'),
and OPENBLAS_CORETYPE overrides it. So the PyTorch peers are run with the core type
measured fastest here: each candidate the CPU's flags allow, and the detected default,
times the same small matmul-heavy training step in its own process (the variable is
read once, when the library loads), three times in alternating order, its fastest time
counting; a candidate that crashes, computes wrong products or that OpenBLAS replaces by
another core is left out. compare_torch.py and sweep_throughput.py both call best_coretype().

    /usr/bin/python3 bench/openblas_probe.py            # prints the table and the choice

Nothing here imports torch in the calling process: only the workers do (a parent
holding libtorch would inflate the peak RSS its children report).
"""
import json, os, statistics, subprocess, sys, time

TORCH_PYTHON = "/usr/bin/python3"  # Debian's, where python3-torch installs
DEFAULT = "default"  # OPENBLAS_CORETYPE unset: OpenBLAS's own detection
# Core types of OpenBLAS 0.3.21's dynamic x86-64 build worth trying on a modern CPU, with
# the CPU flags (/proc/cpuinfo) each one's kernels need. Older ones (Sandybridge, Zen's
# AVX2 kernels are Haswell's) are no faster than Haswell on any AVX2 machine.
CANDIDATES = {
    "Haswell": {"avx2", "fma"},
    "Zen": {"avx2", "fma"},
    "SkylakeX": {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"},
    "Cooperlake": {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd", "avx512_bf16"},
    "SapphireRapids": {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd", "avx512_bf16"},
}
_cache = {}


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def candidates():
    """The detected default first, then every core type whose kernels this CPU can run."""
    flags = cpu_flags()
    return [DEFAULT] + [name for name, needs in CANDIDATES.items() if needs <= flags]


def worker(seconds):
    """One process, one core type (from the environment): a small training step of two
    linear layers (forward, backward, Adam: six GEMMs of Transformer-feed-forward shape,
    1024×64 by 64×256), timed; also which core OpenBLAS says it runs and whether the
    product is right."""
    import ctypes
    import torch
    torch.set_num_threads(1)
    torch.manual_seed(0)
    blas = ctypes.CDLL("libopenblas.so.0")  # the same library instance torch loaded
    blas.openblas_get_corename.restype = ctypes.c_char_p
    core = blas.openblas_get_corename().decode()
    a, b = torch.randn(257, 129), torch.randn(129, 65)
    error = ((a @ b).double() - a.double() @ b.double()).abs().max().item()
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 64))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(1024, 64), torch.randn(1024, 64)

    def step():
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    for _ in range(5):
        step()
    times = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or len(times) < 20:
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    print(json.dumps({"core": core, "ms": statistics.median(times) * 1e3, "max_error": error,
                      "torch": torch.__version__}))


def measure(name, seconds=1.0, env=None):
    """{"core", "ms", ...} of one candidate, or {"error": why} when it cannot run."""
    env = dict(env or os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env.pop("OPENBLAS_CORETYPE", None)
    if name != DEFAULT:
        env["OPENBLAS_CORETYPE"] = name
    p = subprocess.run([TORCH_PYTHON, os.path.abspath(__file__), "--worker", str(seconds)], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:  # a kernel using instructions this CPU lacks: SIGILL
        return {"error": f"exit {p.returncode}: {p.stderr.strip()[-200:]}"}
    r = json.loads(p.stdout.strip().splitlines()[-1])
    if r["max_error"] > 1e-2:
        r["error"] = f"wrong products (max error {r['max_error']:.3g})"
    elif name != DEFAULT and r["core"].lower() != name.lower():
        # OpenBLAS falls back to detection for a core it does not know (0.3.21 knows no
        # SapphireRapids) or cannot run: that is another candidate's kernel, not this one.
        r["error"] = f"OpenBLAS runs {r['core']} instead"
    return r


def probe(seconds=1.0, rounds=3, log=sys.stderr):
    """Times every candidate `rounds` times, alternating the order; returns (fastest name,
    {name: result}). A candidate's time is its fastest round: other processes only ever
    slow a round down, so the least disturbed one is the kernel's own speed."""
    names = candidates()
    results = {n: [] for n in names}
    for r in range(rounds):
        for n in (names if r % 2 == 0 else list(reversed(names))):
            results[n].append(measure(n, seconds))
    table = {}
    for n, rs in results.items():
        bad = next((x["error"] for x in rs if "error" in x), None)
        table[n] = {"error": bad} if bad else {"core": rs[0]["core"], "torch": rs[0]["torch"],
                                               "ms": min(x["ms"] for x in rs)}
    ok = {n: t for n, t in table.items() if "ms" in t}
    if not ok:
        raise RuntimeError("no OpenBLAS core type ran: " + "; ".join(f"{n}: {t['error']}" for n, t in table.items()))
    best = min(ok, key=lambda n: ok[n]["ms"])
    # The detected default runs one of the named kernels: if that kernel is the fastest,
    # leaving the variable unset is the same choice, said more simply.
    if best != DEFAULT and DEFAULT in ok and ok[DEFAULT]["core"].lower() == best.lower():
        best = DEFAULT
    for n, t in table.items():
        what = f"{t['ms']:.3f} ms (runs {t['core']})" if "ms" in t else f"left out: {t['error']}"
        label = n if n != DEFAULT else "default (unset)"
        print(f"[openblas] {label:18s} {what}{'   <- fastest' if n == best else ''}", file=log)
    return best, table


def best_coretype(forced=None, log=sys.stderr):
    """The value for OPENBLAS_CORETYPE (None: leave it unset), probed once per process;
    `forced` (a name, or "default") skips the probe."""
    if forced:
        choice, table = forced, None
    else:
        if "best" not in _cache:
            _cache["best"] = probe(log=log)
        choice, table = _cache["best"]
    print(f"[openblas] PyTorch peers run with OPENBLAS_CORETYPE="
          f"{'unset (OpenBLAS detects)' if choice == DEFAULT else choice}"
          f"{' (forced)' if forced else ' (fastest measured on this host)'}", file=log, flush=True)
    return None if choice == DEFAULT else choice, table


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker(float(sys.argv[2]))
    else:
        best_coretype()
