#!/usr/bin/env python3
"""The PyTorch peer of bench/sweep_throughput.py: the same sweep trials, trained by PyTorch.

Over 500 lines on purpose: the whole peer (workload expansion, both models, both tasks'
data, the recipe, evaluation and the functorch ensemble) in one file, read side by side
with the C++ it mirrors, and run as one script by the driver.

Reads one of the ablate experiment files of bench/sweep_workload/ (with Python 3.11's
tomllib), expands its sweep exactly as `ablate run` does (the cartesian product of the
[sweep] lists, each [sweep.zip] group as one axis, times sweep.seeds) and trains every
trial with the architecture, data and recipe ablate would use for it:

    task "lm"                 DecoderLanguageModel (nn/transformer/transformer_models.cpp)
                              on the State of the Union characters
                              (experiments/tasks/lm_task.cpp)
    task "reverse"/"copy"/    the encoder-decoder Seq2SeqTransformer on random symbol
         "sort"               sequences (experiments/tasks/symbolic_tasks.cpp)

Per trial, as experiments/runner/trial_runner.cpp does: build the task (read the
corpus, build the vocabulary), build the model, then for every step draw a batch, take
the loss, backpropagate, clip the global gradient norm, set the scheduled learning rate
and take an Adam step; evaluate on validation every eval_every steps and at the last
step, keep the model with the lowest validation loss, test it once at the end; a
language model then continues three test prompts by 200 sampled tokens (ablate writes
them to samples.txt, experiments/runner/lm_samples.cpp) and a sequence model greedily
decodes every validation sequence at each evaluation and every test sequence at the end.
Left out, as too small to matter: a sequence model's attention maps of one validation
example and predictions.tsv, and the per-module gradient norms ablate logs at each
evaluation. The task (the data read, the vocabulary built) is made once per process and
shared by the trials that use it, as ablate's TaskCache does.

Not bit-identical to ablate (other random streams, other kernels), but the same
parameter shapes (the counts equal ablate's summary.json "params"), the same ops and
FLOPs and the same recipe, so the first training loss and the learning curves are
ablate's in distribution.

Modes:
    --mode sequential   trials one after another, one thread (torch.set_num_threads(1))
    --mode ensemble     PyTorch's own ensembling: the seeds of one sweep point stacked with
                        functorch.combine_state_for_ensemble and trained in lockstep with
                        functorch.vmap (each seed its own batches, Adam state and clipping);
                        a point's time is split equally among its trials

Both cores: the driver starts two processes of one thread with one --queue; each takes
the next unit (a trial; in ensemble mode a whole point, or half its seeds when the
points cannot be shared out evenly) when it is free, the costliest first.

    /usr/bin/python3 bench/sweep_throughput_torch.py --workload FILE --mode sequential --queue DIR --workers 2
    /usr/bin/python3 bench/sweep_throughput_torch.py FILE --mode ensemble --steps 20

Prints one JSON line on stdout (per-trial progress, parameter counts and diagnostics go
to stderr). Exit status: 0 done, 2 a workload this peer does not understand, 3 ensemble
mode without functorch/torch.func.
"""
import argparse
import copy
import itertools
import json
import math
import os
import random
import sys
import time
import tomllib

# One thread, as each ablate trial has (train.threads = 1); the driver runs one process
# per core. torch.set_num_threads(1) alone is not enough: Debian's PyTorch multiplies
# matrices with OpenBLAS, whose own thread pool reads OPENBLAS_NUM_THREADS when the
# library loads (unset, it used both cores: ~190 % CPU). So the variables are set here,
# before numpy and torch load it.
# --threads N (read here, before the libraries load) gives one process N threads instead:
# the alternative to two processes, slower at these sizes (bench/README.md).
THREADS = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv[:-1] else 1
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = str(THREADS)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

# Special token ids, as experiments/tasks/task.h numbers them: every vocabulary starts
# with them, then the task's own specials (lm: <unk>), then the sorted ordinary tokens.
PAD, BOS, EOS, FIRST_TOKEN = 0, 1, 2, 3
UNK = FIRST_TOKEN  # lm's only task special
SAMPLE_TOKENS = 200  # tokens ablate generates after each of the three test prompts
SAMPLE_PROMPT_CHARS = 40  # characters of each test document in its prompt (char tokens)


class WorkloadError(Exception):
    """The experiment file uses something this peer does not implement."""


# ---- reading the experiment file ---------------------------------------------------------

# Components that may be written as a name ("sinusoidal") or as a table with a "kind"
# ({ kind = "layer", placement = "pre" }); a swept key below one turns the name into a
# table, as ablate's set_path (experiments/config/trial_grid.cpp) does.
COMPONENTS = ("model.positions", "model.norm", "model.attention.qk", "model.attention.scale",
              "model.ffn", "train.optimizer", "train.schedule")


def set_path(doc, dotted, value):
    keys = dotted.split(".")
    node = doc
    for depth, key in enumerate(keys[:-1]):
        here = ".".join(keys[:depth + 1])
        child = node.get(key)
        if isinstance(child, str) and here in COMPONENTS:
            child = {"kind": child}
        elif child is None:
            child = {}
        elif not isinstance(child, dict):
            raise WorkloadError(f"sweep key '{dotted}': '{here}' is not a table")
        node[key] = child
        node = child
    node[keys[-1]] = copy.deepcopy(value)


def sweep_axes(sweep):
    """The axes of [sweep] in file order: each plain list one axis, each zip group one."""
    axes = []
    for key, values in sweep.items():
        if key == "seeds":
            continue
        if key == "zip":
            groups = values if isinstance(values, list) else [values]
            for group in groups:
                if not isinstance(group, dict) or not group:
                    raise WorkloadError("sweep.zip must be a table of key = [values]")
                lengths = {len(v) for v in group.values() if isinstance(v, list)}
                if len(lengths) != 1 or not all(isinstance(v, list) for v in group.values()):
                    raise WorkloadError("sweep.zip: zipped lists must be lists of equal length")
                keys = list(group)
                axes.append([list(zip(keys, row)) for row in zip(*group.values())])
            continue
        if not isinstance(values, list) or not values:
            raise WorkloadError(f"sweep.{key}: this peer understands only lists of values "
                                "(and seeds, zip)")
        axes.append([[(key, v)] for v in values])
    return axes


def expand(doc):
    """[(point label, resolved config, seeds)] in grid order (the first axis slowest)."""
    doc = copy.deepcopy(doc)
    top_known = {"name", "description", "seed", "trial_seed", "task", "model", "train", "sweep",
                 "report"}
    for key in doc:
        if key not in top_known:
            raise WorkloadError(f"top-level key '{key}' is not implemented by this peer")
    # [report] only shapes ablate's reports (baselines, plots, gradient norms at
    # initialisation — which ablate measures at step 1 of every trial anyway): no work
    # that a trial does.
    doc.pop("report", None)
    doc.pop("description", None)
    sweep = doc.pop("sweep", {})
    if not isinstance(sweep, dict):
        raise WorkloadError("[sweep] must be a table")
    seeds = sweep.get("seeds")
    if seeds is None:
        seeds = [doc.get("trial_seed", 0)]
    elif "trial_seed" in doc:
        raise WorkloadError("trial_seed cannot be combined with sweep.seeds")
    if not isinstance(seeds, list) or not all(isinstance(s, int) and s >= 0 for s in seeds):
        raise WorkloadError("sweep.seeds must be a list of non-negative integers")
    doc.pop("trial_seed", None)
    points = []
    for combination in itertools.product(*sweep_axes(sweep)):
        point_doc = copy.deepcopy(doc)
        label = []
        for assignment in combination:
            for key, value in assignment:
                set_path(point_doc, key, value)
                label.append(f"{key}={value}")
        points.append((" ".join(label) or "base", resolve(point_doc), list(seeds)))
    return points


class Table:
    """Reads the keys of one TOML table; finish() refuses any key left unread."""

    def __init__(self, node, path):
        if node is None:
            node = {}
        if not isinstance(node, dict):
            raise WorkloadError(f"'{path}' must be a table")
        self.node, self.path, self.read = node, path, set()

    def get(self, key, default, kind):
        self.read.add(key)
        value = self.node.get(key, default)
        # bool is an int in Python; TOML keeps them apart, and so does ablate. An integer
        # is a valid float (lr = 1).
        number = isinstance(value, int) and not isinstance(value, bool)
        if kind is int:
            ok = number
        elif kind is float:
            ok = number or isinstance(value, float)
        else:
            ok = isinstance(value, kind)
        if not ok:
            raise WorkloadError(f"'{self.where(key)}' must be a {kind.__name__}, got {value!r}")
        return float(value) if kind is float else value

    def choice(self, key, default, choices):
        value = self.get(key, default, str)
        if value not in choices:
            raise WorkloadError(f"'{self.where(key)}' = \"{value}\" is not implemented by this "
                                f"peer (it implements: {', '.join(choices)})")
        return value

    def child(self, key):
        self.read.add(key)
        return Table(self.node.get(key), self.where(key))

    def component(self, key, default, kinds):
        """A component (name or table with a kind); returns (kind, table of its options)."""
        self.read.add(key)
        node = self.node.get(key, default)
        if isinstance(node, str):
            node = {"kind": node}
        sub = Table(node, self.where(key))
        return sub.choice("kind", default, kinds), sub

    def where(self, key):
        return f"{self.path}.{key}" if self.path else key

    def finish(self):
        for key in self.node:
            if key not in self.read:
                raise WorkloadError(f"key '{self.where(key)}' is not implemented by this peer")


def resolve(doc):
    """The config of one grid point with ablate's defaults (experiments/config/plain_keys.cpp,
    the component registries); every key of the file must be one this peer implements."""
    top = Table(doc, "")
    c = {"name": top.get("name", "", str), "data_seed": top.get("seed", 0, int)}
    top.read.update(("task", "model", "train"))  # read below
    top.finish()

    task = Table(doc.get("task"), "task")
    kind = task.choice("kind", "", ["lm", "reverse", "copy", "sort"])
    c["task"] = t = {"kind": kind}
    if kind == "lm":
        t["tokens"] = task.choice("tokens", "word", ["char"])
        t["context"] = task.get("context", 128, int)
        t["validation_tokens"] = task.get("validation_tokens", 50000, int)
        t["test_tokens"] = task.get("test_tokens", 0, int)
        for split in ("train", "validation", "test"):
            t[split] = task.get(split, f"data:sotu/{split}.txt", str)
    else:
        t["vocab"] = task.get("vocab", 16, int)
        t["min_length"] = task.get("min_length", 4, int)
        t["max_length"] = task.get("max_length", 12, int)
        t["validation_size"] = task.get("validation_size", 1000, int)
        t["test_size"] = task.get("test_size", 1000, int)
    task.finish()

    model = Table(doc.get("model"), "model")
    c["model"] = m = {}
    m["d_model"] = model.get("d_model", 64, int)
    m["heads"] = model.get("heads", 4, int)
    m["d_ff"] = model.get("d_ff", 0, int) or 4 * m["d_model"]
    layers = doc.get("model", {}).get("layers", 2)
    if isinstance(layers, int) and not isinstance(layers, bool):
        m["encoder_layers"] = m["decoder_layers"] = model.get("layers", 2, int)
    else:
        lt = model.child("layers")
        m["encoder_layers"] = lt.get("encoder", 2, int)
        m["decoder_layers"] = lt.get("decoder", 2, int)
        lt.finish()
    att = model.child("attention")
    m["qk"], qk = att.component("qk", "separate", ["separate", "shared"])
    qk.finish()  # shared: normalize_keys and exclude_self at their defaults (true)
    m["scale"], sc = att.component("scale", "sqrt_dk", ["sqrt_dk", "none"])
    sc.finish()
    d_k, d_v = att.get("d_k", 0, int), att.get("d_v", 0, int)
    att.finish()
    if (d_k == 0 or d_v == 0) and m["d_model"] % m["heads"]:
        raise WorkloadError(f"d_model = {m['d_model']} is not divisible by heads = {m['heads']}")
    m["d_k"] = d_k or m["d_model"] // m["heads"]  # per head; 0 = d_model / heads
    m["d_v"] = d_v or m["d_model"] // m["heads"]
    m["positions"], pos = model.component("positions", "sinusoidal", ["sinusoidal", "learned"])
    pos.finish()  # max_len 512 rows (both kinds' default), base 10000
    _, norm = model.component("norm", "layer", ["layer"])
    m["placement"] = norm.choice("placement", "post", ["post", "pre"])
    norm.finish()
    _, ffn = model.component("ffn", "relu", ["relu"])
    ffn.finish()
    model.finish()

    train = Table(doc.get("train"), "train")
    c["train"] = tr = {}
    tr["steps"] = train.get("steps", 1000, int)
    tr["batch"] = train.get("batch", 32, int)
    tr["lr"] = train.get("lr", 1e-3, float)
    tr["clip_grad_norm"] = train.get("clip_grad_norm", 0.0, float)
    tr["eval_every"] = train.get("eval_every", 100, int)
    tr["validation_batch"] = train.get("validation_batch", 128, int)
    _, opt = train.component("optimizer", "adam", ["adam"])
    tr["betas"] = (opt.get("beta1", 0.9, float), opt.get("beta2", 0.999, float))
    opt.finish()
    tr["schedule"], sched = train.component("schedule", "constant", ["constant", "linear_warmup"])
    tr["warmup"] = sched.get("warmup", 4000, int) if tr["schedule"] == "linear_warmup" else 0
    sched.finish()
    train.finish()
    return c


def learning_rate(c, step):
    """nn/optim/schedule.cpp: linear_warmup ramps to lr at step = warmup, then stays (no
    decay); constant (and warmup = 0) is lr at every step. Steps count from 1."""
    tr = c["train"]
    if tr["schedule"] == "linear_warmup" and step < tr["warmup"]:
        return tr["lr"] * step / tr["warmup"]
    return tr["lr"]


# ---- tasks --------------------------------------------------------------------------------

def data_path(reference, base_dir):
    """ablate's data:<dataset>/<file> references (experiments/data/data_cache.cpp), or a
    path relative to the experiment file."""
    if not reference.startswith("data:"):
        return os.path.join(base_dir, reference)
    cache = os.environ.get("ABLATE_DATA") or (
        os.path.join(os.environ["XDG_CACHE_HOME"], "ablate", "data")
        if os.environ.get("XDG_CACHE_HOME")
        else os.path.join(os.environ.get("HOME") or "/root", ".cache", "ablate", "data"))
    path = os.path.join(cache, reference[len("data:"):])
    if not os.path.exists(path):
        raise WorkloadError(f"{reference}: not in the ablate data cache ({path}); "
                            "fetch it with: ablate data get sotu")
    return path


def code_points(path, limit=0):
    """The file's documents (non-empty lines) as one stream of code points, each document
    preceded by a '\\n' that stands for its <bos>; the first limit + 1 entries when limit."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    docs = [line[:-1] if line.endswith("\r") else line for line in lines]
    docs = [d for d in docs if d]
    if not docs:
        raise WorkloadError(f"{path}: no documents")
    cps = np.frombuffer(("\n" + "\n".join(docs)).encode("utf-32-le"), dtype=np.uint32)
    return (cps[:limit + 1] if limit > 0 else cps), docs


class LmTask:
    """experiments/tasks/lm_task.cpp with char tokens: the vocabulary is the sorted set of
    the training text's code points after <pad> <bos> <eos> <unk>; each split one stream
    of <bos> + document, ...; training windows of context + 1 tokens at uniform starts;
    evaluation in consecutive blocks of `context`; a target that is <bos> or past the
    stream's end is <pad> (not scored)."""

    def __init__(self, c, base_dir):
        t = c["task"]
        self.context = t["context"]
        train, _ = code_points(data_path(t["train"], base_dir))
        present = np.flatnonzero(np.bincount(train))
        present = present[present != ord("\n")]
        lookup = np.full(int(present.max()) + 1, UNK, dtype=np.int64)
        lookup[present] = np.arange(FIRST_TOKEN + 1, FIRST_TOKEN + 1 + len(present))
        lookup[ord("\n")] = BOS
        self.vocab = FIRST_TOKEN + 1 + len(present)

        def ids(cps):
            out = np.full(len(cps), UNK, dtype=np.int64)
            known = cps < len(lookup)
            out[known] = lookup[cps[known]]
            return out

        self.train = ids(train)
        if len(self.train) < self.context + 1:
            raise WorkloadError("the training text is shorter than context + 1 tokens")
        self.validation = ids(code_points(data_path(t["validation"], base_dir),
                                          t["validation_tokens"])[0])
        test_cps, test_docs = code_points(data_path(t["test"], base_dir), t["test_tokens"])
        self.test = ids(test_cps)
        # Sample prompts: <bos> and the first 40 characters of the first three test documents.
        self.prompts = []
        for doc in test_docs[:3]:
            head = np.frombuffer(doc[:SAMPLE_PROMPT_CHARS].encode("utf-32-le"), dtype=np.uint32)
            self.prompts.append([BOS] + ids(head).tolist())
        self._offsets = np.arange(self.context + 1)
        self._eval = {}

    @staticmethod
    def batch_stream(seed):
        """The trial's training draws (ablate forks the trial seed's "batch" stream)."""
        return np.random.default_rng([seed, 0x6261746368])

    def train_batch(self, rng, batch):
        starts = rng.integers(0, len(self.train) - self.context, size=batch)
        window = self.train[starts[:, None] + self._offsets]
        target = window[:, 1:].copy()
        target[target == BOS] = PAD
        return torch.from_numpy(window[:, :-1].copy()), torch.from_numpy(target)

    def evaluation_batches(self, split, batch):
        """(input, target) blocks, made once per trial (ablate's Evaluator caches them)."""
        if split not in self._eval:
            stream, T = (self.validation if split == "validation" else self.test), self.context
            starts = np.arange(0, len(stream) - 1, T)
            padded = np.concatenate([stream, np.full(T + 1, PAD, dtype=np.int64)])
            window = padded[starts[:, None] + self._offsets]
            target = window[:, 1:].copy()
            target[target == BOS] = PAD
            inputs, targets = torch.from_numpy(window[:, :-1].copy()), torch.from_numpy(target)
            self._eval[split] = [(inputs[i:i + batch], targets[i:i + batch])
                                 for i in range(0, len(starts), batch)]
        return self._eval[split]


class SymbolicTask:
    """experiments/tasks/symbolic_tasks.cpp: sequences of min..max symbols; validation and
    test are fixed distinct sequences from the data seed (at most half of each length's
    sequences held out), never drawn for training; target = the rearranged source."""

    def __init__(self, c):
        t = c["task"]
        self.kind, self.symbols = t["kind"], t["vocab"]
        self.min_length, self.max_length = t["min_length"], t["max_length"]
        self.vocab = FIRST_TOKEN + self.symbols
        self.held_out, held = set(), {}
        self.split = {}
        for split, stream in (("validation", 1), ("test", 2)):
            rng = random.Random(c["data_seed"] * 4 + stream)
            pairs, n = [], t[f"{split}_size"]
            while len(pairs) < n:
                source, target = self.draw(rng)
                capacity = math.floor(min(float(self.symbols) ** len(source), 1e18) / 2)
                if held.get(len(source), 0) >= capacity or source in self.held_out:
                    continue
                held[len(source)] = held.get(len(source), 0) + 1
                self.held_out.add(source)
                pairs.append((source, target))
            self.split[split] = pairs
        self._eval = {}

    @staticmethod
    def batch_stream(seed):
        return random.Random(seed * 4 + 3)  # apart from the data seed's streams 1 and 2

    def draw(self, rng):
        length = self.min_length + rng.randrange(self.max_length - self.min_length + 1)
        source = tuple(FIRST_TOKEN + rng.randrange(self.symbols) for _ in range(length))
        target = {"reverse": source[::-1], "sort": tuple(sorted(source))}.get(self.kind, source)
        return source, target

    @staticmethod
    def make_batch(pairs, width=None):
        """src, tgt_in = <bos> + target, tgt_out = target + <eos>, <pad>-padded (to `width`
        = (source, target) lengths when given, so that stacked seeds share a shape)."""
        s = max(len(p[0]) for p in pairs) if width is None else width[0]
        t = max(len(p[1]) for p in pairs) + 1 if width is None else width[1]
        src = np.zeros((len(pairs), s), dtype=np.int64)
        tgt_in = np.zeros((len(pairs), t), dtype=np.int64)
        tgt_out = np.zeros((len(pairs), t), dtype=np.int64)
        for row, (source, target) in enumerate(pairs):
            src[row, :len(source)] = source
            tgt_in[row, 0] = BOS
            tgt_in[row, 1:len(target) + 1] = target
            tgt_out[row, :len(target)] = target
            tgt_out[row, len(target)] = EOS
        return torch.from_numpy(src), torch.from_numpy(tgt_in), torch.from_numpy(tgt_out)

    def train_pairs(self, rng, batch):
        pairs = []
        while len(pairs) < batch:
            pair = self.draw(rng)
            if pair[0] not in self.held_out:
                pairs.append(pair)
        return pairs

    def train_batch(self, rng, batch):
        return self.make_batch(self.train_pairs(rng, batch))

    def evaluation_batches(self, split, batch):
        if split not in self._eval:
            pairs = self.split[split]
            self._eval[split] = [self.make_batch(pairs[i:i + batch])
                                 for i in range(0, len(pairs), batch)]
        return self._eval[split]

    def decode_length(self, tgt_out):
        # experiments/runner/sequence_model.cpp: max(batch's target width, the task's
        # longest target), at most what the model holds (its max_len: the longest target).
        return min(max(tgt_out.shape[1], self.max_length + 1), self.max_length + 1)


_TASKS = {}


def make_task(c, base_dir):
    """The trial's task, built once per process and shared by every trial that has the
    same [task] (and data seed), as ablate's process-wide TaskCache does
    (experiments/config/task_cache.h): reading sotu's 9.5 M characters and building its
    vocabulary is not work a trial does twice. A task is not changed by training."""
    key = json.dumps([c["task"], c["data_seed"], os.path.abspath(base_dir)], sort_keys=True)
    if key not in _TASKS:
        _TASKS[key] = LmTask(c, base_dir) if c["task"]["kind"] == "lm" else SymbolicTask(c)
    return _TASKS[key]


# ---- the model ----------------------------------------------------------------------------

def linear(d_in, d_out):
    """nn/layers/linear.cpp: Xavier-uniform weight [out, in], zero bias."""
    layer = nn.Linear(d_in, d_out)
    nn.init.xavier_uniform_(layer.weight)
    nn.init.zeros_(layer.bias)
    return layer


class Embedding(nn.Module):
    """nn/layers/embedding.cpp: N(0, 1/d) rows, the <pad> row zero (and never updated),
    times sqrt(d_model) on the way out (model.scale_embeddings, default true)."""

    def __init__(self, vocab, d):
        super().__init__()
        self.table = nn.Embedding(vocab, d, padding_idx=PAD)
        nn.init.normal_(self.table.weight, 0.0, 1.0 / math.sqrt(d))
        with torch.no_grad():
            self.table.weight[PAD].zero_()
        self.scale = math.sqrt(d)

    def forward(self, ids):
        return self.table(ids) * self.scale


class Positions(nn.Module):
    """nn/positions: sinusoidal (a fixed table, a buffer: no parameters) or learned
    (N(0, 0.02²) table, a parameter), max(512, max_len) resp. 512 rows, added to the
    embeddings."""

    def __init__(self, kind, d, max_len):
        super().__init__()
        if kind == "learned":
            if max_len > 512:
                raise WorkloadError("learned positions have 512 rows; the task needs more")
            self.weight = nn.Parameter(torch.empty(512, d).normal_(0.0, 0.02))
        else:
            rows = max(512, max_len)
            pos = torch.arange(rows, dtype=torch.float64)[:, None]
            i = torch.arange(d)
            angle = pos / torch.pow(10000.0, (2 * (i // 2)).double() / d)
            table = torch.where(i % 2 == 0, torch.sin(angle), torch.cos(angle)).float()
            self.register_buffer("table", table)

    def forward(self, x):
        table = self.weight if hasattr(self, "weight") else self.table
        return x + table[:x.shape[-2]]


class Attention(nn.Module):
    """nn/attention/multi_head_attention.cpp with d_k, d_v per head (not necessarily
    d_model / heads), W_o from heads·d_v back to d_model, biases everywhere.
    qk "separate": W_q and W_k; "shared" (Reformer): one W_qk makes the queries and (in
    self-attention the same tensor) the keys, which are L2-normalised per head; the
    exclude-self rule is in the mask (attention_mask below). scale "sqrt_dk" multiplies
    the scores by 1/sqrt(d_k) (here applied to the queries: the same product, T·d_k
    multiplications instead of T²), "none" by 1."""

    def __init__(self, m, self_attention):
        super().__init__()
        d, h, dk, dv = m["d_model"], m["heads"], m["d_k"], m["d_v"]
        self.heads, self.d_k, self.d_v = h, dk, dv
        self.shared = m["qk"] == "shared"
        # ablate reuses the queries as keys when x_kv is x_q; a flag says so here, since
        # under vmap the tensors a module sees are wrappers whose identity is no evidence.
        self.self_attention = self_attention
        if self.shared:
            self.w_qk = linear(d, h * dk)
        else:
            self.w_q = linear(d, h * dk)
            self.w_k = linear(d, h * dk)
        self.w_v = linear(d, h * dv)
        self.w_o = linear(h * dv, d)
        self.factor = 1.0 / math.sqrt(dk) if m["scale"] == "sqrt_dk" else 1.0

    def split(self, x, width):
        # [..., T, H·w] → [..., H, T, w]
        return x.reshape(x.shape[:-1] + (self.heads, width)).transpose(-3, -2)

    def forward(self, x_q, x_kv, allowed):
        if self.shared:
            q = self.split(self.w_qk(x_q), self.d_k)
            k = q if self.self_attention else self.split(self.w_qk(x_kv), self.d_k)
            k = F.normalize(k, dim=-1, eps=1e-12)
        else:
            q = self.split(self.w_q(x_q), self.d_k)
            k = self.split(self.w_k(x_kv), self.d_k)
        v = self.split(self.w_v(x_kv), self.d_v)
        if self.factor != 1.0:
            q = q * self.factor
        scores = torch.matmul(q, k.transpose(-1, -2))  # [..., H, Tq, Tk]
        # Every query has at least one allowed key in these tasks (the first token is
        # never <pad>), so -inf never fills a whole row. (Under vmap, masked_fill with a
        # batched boolean mask works in functorch 1.13 as is.)
        scores = scores.masked_fill(~allowed, float("-inf"))
        out = torch.matmul(torch.softmax(scores, dim=-1), v)  # [..., H, Tq, d_v]
        out = out.transpose(-3, -2)
        return self.w_o(out.reshape(out.shape[:-2] + (self.heads * self.d_v,)))


def attention_mask(key_ids, query_length, causal, exclude_self):
    """allowed[..., 1, i, j] (multi_head_attention.cpp's build_mask): key j is not <pad>,
    j <= i when causal, and for shared-QK self-attention a token does not attend to itself
    unless nothing else is allowed."""
    allowed = (key_ids != PAD)[..., None, None, :]  # [..., 1, 1, Tk]: broadcast over queries
    tk = key_ids.shape[-1]
    if causal:
        allowed = allowed & torch.ones(query_length, tk, dtype=torch.bool).tril()
    if exclude_self:
        eye = torch.eye(query_length, tk, dtype=torch.bool)
        others = (allowed & ~eye).any(dim=-1, keepdim=True)
        allowed = allowed & ~(eye & others)
    return allowed


class Block(nn.Module):
    """One encoder layer (cross = False: self-attention, FFN) or decoder layer (cross:
    self-attention, cross-attention, FFN), nn/transformer/transformer_layers.cpp: post
    norm y = norm(x + f(x)), pre norm y = x + f(norm(x)); FFN Linear-ReLU-Linear
    (ffn "relu"); LayerNorm eps 1e-5 with weight and bias; no dropout (0 by default)."""

    def __init__(self, m, cross):
        super().__init__()
        d = m["d_model"]
        self.pre = m["placement"] == "pre"
        self.self_attn = Attention(m, self_attention=True)
        self.cross_attn = Attention(m, self_attention=False) if cross else None
        self.linear1 = linear(d, m["d_ff"])
        self.linear2 = linear(m["d_ff"], d)
        self.norms = nn.ModuleList(nn.LayerNorm(d) for _ in range(3 if cross else 2))

    def forward(self, x, self_mask, memory=None, cross_mask=None):
        steps = [lambda h: self.self_attn(h, h, self_mask)]
        if self.cross_attn is not None:
            steps.append(lambda h: self.cross_attn(h, memory, cross_mask))
        steps.append(lambda h: self.linear2(F.relu(self.linear1(h))))
        for f, norm in zip(steps, self.norms):
            x = x + f(norm(x)) if self.pre else norm(x + f(x))
        return x


class Stack(nn.Module):
    """transformer_stacks.cpp: the layers, then a final LayerNorm with pre norm only
    (final_norm = "auto")."""

    def __init__(self, m, layers, cross):
        super().__init__()
        self.layers = nn.ModuleList(Block(m, cross) for _ in range(layers))
        self.norm = nn.LayerNorm(m["d_model"]) if m["placement"] == "pre" else None

    def forward(self, x, self_mask, memory=None, cross_mask=None):
        for layer in self.layers:
            x = layer(x, self_mask, memory, cross_mask)
        return self.norm(x) if self.norm is not None else x


class DecoderLanguageModel(nn.Module):
    """transformer_models.cpp's DecoderLanguageModel: embedding (× sqrt d) + positions,
    decoder_layers causal self-attention layers with a <pad> key mask, an untied output
    Linear with bias (model.tie_output defaults to false)."""

    def __init__(self, m, vocab, max_len):
        super().__init__()
        self.exclude_self = m["qk"] == "shared"
        self.embedding = Embedding(vocab, m["d_model"])
        self.positions = Positions(m["positions"], m["d_model"], max_len)
        self.decoder = Stack(m, m["decoder_layers"], cross=False)
        self.output = linear(m["d_model"], vocab)

    def forward(self, ids):
        mask = attention_mask(ids, ids.shape[-1], True, self.exclude_self)
        return self.output(self.decoder(self.positions(self.embedding(ids)), mask))


class Seq2SeqTransformer(nn.Module):
    """transformer_models.cpp's Seq2SeqTransformer: separate source and target embeddings
    and positions (share_embeddings false), encoder_layers and decoder_layers, untied
    output Linear. forward's `op` selects what the functional (vmapped) model computes:
    "full" the training logits, "encode" the memory, "decode" the logits of a target
    prefix given the memory (greedy decoding re-runs the decoder on the whole prefix,
    as Seq2SeqTransformer::greedy_decode does)."""

    def __init__(self, m, vocab, max_len):
        super().__init__()
        self.exclude_self = m["qk"] == "shared"
        d = m["d_model"]
        self.source_embedding = Embedding(vocab, d)
        self.target_embedding = Embedding(vocab, d)
        self.source_positions = Positions(m["positions"], d, max_len)
        self.target_positions = Positions(m["positions"], d, max_len)
        self.encoder = Stack(m, m["encoder_layers"], cross=False)
        self.decoder = Stack(m, m["decoder_layers"], cross=True)
        self.output = linear(d, vocab)

    def encode(self, src):
        mask = attention_mask(src, src.shape[-1], False, self.exclude_self)
        return self.encoder(self.source_positions(self.source_embedding(src)), mask)

    def decode(self, tgt_in, memory, src):
        self_mask = attention_mask(tgt_in, tgt_in.shape[-1], True, self.exclude_self)
        cross_mask = attention_mask(src, tgt_in.shape[-1], False, False)
        h = self.decoder(self.target_positions(self.target_embedding(tgt_in)), self_mask,
                         memory, cross_mask)
        return self.output(h)

    def forward(self, src, tgt_in=None, memory=None, op="full"):
        if op == "encode":
            return self.encode(src)
        if op == "decode":
            return self.decode(tgt_in, memory, src)
        return self.decode(tgt_in, self.encode(src), src)


def build_model(c, task, seed):
    """experiments/models/model_factory.cpp: a decoder for lm, seq2seq for the sequence
    tasks; max_len = the task's longest sequence (lm: the context)."""
    torch.manual_seed(seed)
    m = c["model"]
    if c["task"]["kind"] == "lm":
        return DecoderLanguageModel(m, task.vocab, task.context)
    return Seq2SeqTransformer(m, task.vocab, task.max_length + 1)


def parameter_count(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


# ---- one trial after another ------------------------------------------------------------

def masked_nll(logits, target):
    """Summed nats over the non-<pad> targets, their count, and how many the argmax gets."""
    flat = logits.reshape(-1, logits.shape[-1])
    nats = F.cross_entropy(flat, target.reshape(-1), ignore_index=PAD, reduction="sum")
    scored = target != PAD
    correct = ((logits.argmax(-1) == target) & scored).sum()
    return float(nats), int(scored.sum()), int(correct)


def greedy_decode(decode_step, src_rows, max_len):
    """Seq2SeqTransformer::greedy_decode's loop: prefix <bos>, each step the argmax of the
    last position over the whole prefix; a finished row (<eos>) continues with <pad>; stops
    when every row has finished. decode_step(prefix) → logits [..., B, L, V]."""
    shape = src_rows + (1,)
    prefix = torch.full(shape, BOS, dtype=torch.long)
    done = torch.zeros(src_rows, dtype=torch.bool)
    for _ in range(max_len):
        token = decode_step(prefix)[..., -1, :].argmax(-1)
        token = token.masked_fill(done, PAD)
        done = done | (token == EOS)
        prefix = torch.cat([prefix, token[..., None]], dim=-1)
        if bool(done.all()):
            break
    return prefix[..., 1:]


def sequence_correct(decoded, tgt_out):
    """Rows whose prediction (up to the first <eos> or <pad>) equals the target."""

    def cut(ids):
        keep = torch.cumprod((ids != EOS) & (ids != PAD), dim=-1).bool()
        return ids.masked_fill(~keep, PAD)

    width = max(decoded.shape[-1], tgt_out.shape[-1])
    a = F.pad(cut(decoded), (0, width - decoded.shape[-1]), value=PAD)
    b = F.pad(cut(tgt_out), (0, width - tgt_out.shape[-1]), value=PAD)
    return (a == b).all(-1)


def evaluate(model, task, c, split):
    """The validation (or test) loss in nats per scored token (experiments/runner/
    evaluation_lm.cpp, evaluation.cpp); sequence tasks also greedily decode every
    sequence of the split (train.decode_examples = 0: all) for the sequence accuracy."""
    model.eval()
    nats = tokens = right = rows = 0.0
    with torch.inference_mode():
        for batch in task.evaluation_batches(split, c["train"]["validation_batch"]):
            if isinstance(task, LmTask):
                n, k, _ = masked_nll(model(batch[0]), batch[1])
            else:
                src, tgt_in, tgt_out = batch
                memory = model.encode(src)
                n, k, _ = masked_nll(model.decode(tgt_in, memory, src), tgt_out)
                decoded = greedy_decode(lambda prefix: model.decode(prefix, memory, src),
                                        tuple(src.shape[:1]), task.decode_length(tgt_out))
                right += int(sequence_correct(decoded, tgt_out).sum())
                rows += src.shape[0]
            nats, tokens = nats + n, tokens + k
    model.train()
    return nats / tokens, (right / rows if rows else None)


def sample(model, task, seed):
    """lm_samples.cpp: each prompt continued by 200 tokens sampled from the softmax over
    the ordinary tokens, the model reading the last `context` tokens, one call per token."""
    generator = torch.Generator().manual_seed(seed)
    model.eval()
    with torch.inference_mode():
        for prompt in task.prompts:
            ids = torch.tensor([prompt])
            for _ in range(SAMPLE_TOKENS):
                logits = model(ids[:, -task.context:])[0, -1, FIRST_TOKEN:]
                token = torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)
                ids = torch.cat([ids, (token + FIRST_TOKEN)[None]], dim=1)
    model.train()


def training_loss(model, task, batch):
    if isinstance(task, LmTask):
        inputs, target = batch
        logits = model(inputs)
    else:
        src, tgt_in, target = batch
        logits = model(src, tgt_in)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1),
                           ignore_index=PAD)


def run_trial(c, seed, base_dir, samples):
    start = time.perf_counter()
    task = make_task(c, base_dir)
    model = build_model(c, task, seed)
    params = list(model.parameters())
    tr = c["train"]
    optimizer = torch.optim.Adam(params, lr=tr["lr"], betas=tr["betas"], eps=1e-8,
                                 foreach=True)
    rng = task.batch_stream(seed)
    first_loss = final_valid = test = accuracy = None
    best_valid, best_state, diverged = math.inf, None, False
    for step in range(1, tr["steps"] + 1):
        loss = training_loss(model, task, task.train_batch(rng, tr["batch"]))
        value = loss.item()
        if first_loss is None:
            first_loss = value
        if not math.isfinite(value):
            # ablate marks the trial diverged and stops it there: no test, no samples.
            print(f"diverged at step {step} (loss {value})", file=sys.stderr)
            diverged = True
            break
        loss.backward()
        if tr["clip_grad_norm"] > 0:
            torch.nn.utils.clip_grad_norm_(params, tr["clip_grad_norm"])
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(c, step)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if step % tr["eval_every"] == 0 or step == tr["steps"]:
            final_valid, _ = evaluate(model, task, c, "validation")
            if final_valid < best_valid:  # validation selects the model test measures
                best_valid = final_valid
                best_state = {k: v.clone() for k, v in model.state_dict().items()}
    if not diverged:
        model.load_state_dict(best_state)
        test, accuracy = evaluate(model, task, c, "test")
        if samples and isinstance(task, LmTask):
            sample(model, task, seed)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "first_loss": first_loss, "final_valid": final_valid,
            "test": test, "params": parameter_count(model), "accuracy": accuracy}


# ---- the seeds of a point in lockstep (functorch vmap) ----------------------------------

def ensemble_api():
    """functorch (PyTorch 1.13's separate package) or torch.func (2.0 and later)."""
    try:
        from functorch import combine_state_for_ensemble, vmap
        return combine_state_for_ensemble, vmap, "functorch"
    except ImportError:
        pass
    try:
        from torch.func import functional_call, stack_module_state, vmap
    except ImportError:
        return None
    # torch.func's spelling of the same thing: stacked state and a stateless call.

    def combine(models):
        params, buffers = stack_module_state(models)
        base, names_p, names_b = models[0], list(params), list(buffers)

        def fmodel(p, b, *args, **kwargs):
            state = dict(zip(names_p, p))
            state.update(zip(names_b, b))
            return functional_call(base, state, args, kwargs)
        return fmodel, tuple(params.values()), tuple(buffers.values())
    return combine, vmap, "torch.func"


def run_ensemble(c, seeds, base_dir, samples, api):
    """Trains the point's seeds as one stacked model. The task is built once for the point
    (the seeds share it: that is what an ensemble over seeds is); every seed has its own
    initialisation (torch.manual_seed(seed) before building its model), its own batches
    and sample stream, its own slice of Adam's moments (Adam is elementwise, so one Adam
    over the stacked tensors is S independent Adams) and its own gradient clipping.

    Under functorch 1.13's vmap every op of the model runs as written (masked_fill with
    a batched boolean mask, F.embedding with padding_idx, layer_norm, F.normalize); no
    reformulation was needed. What vmap does impose: the loss is taken outside vmap on
    the stacked logits [S, ...] (a per-seed mean, so that one backward of their sum gives
    each seed its own gradient), a seq2seq step pads the seeds' batches to one width, and
    data-dependent control (greedy decoding's early stop) runs outside vmap for all seeds
    at once. Dropout, which would need randomness="different", is 0 in these workloads."""
    combine, vmap, _ = api
    start = time.perf_counter()
    task = make_task(c, base_dir)
    models = [build_model(c, task, seed) for seed in seeds]
    counts = [parameter_count(m) for m in models]
    fmodel, params, buffers = combine(models)
    params = [p.detach().clone().requires_grad_() for p in params]
    S, tr, lm = len(seeds), c["train"], isinstance(task, LmTask)
    optimizer = torch.optim.Adam(params, lr=tr["lr"], betas=tr["betas"], eps=1e-8,
                                 foreach=True)
    rngs = [task.batch_stream(seed) for seed in seeds]
    # Seed-batched data: training in_dims 0 (each seed its own batch); evaluation data
    # is the same for every seed (in_dims None).
    if lm:
        train_fn = vmap(fmodel, in_dims=(0, 0, 0))
        eval_fn = vmap(fmodel, in_dims=(0, 0, None))
    else:
        train_fn = vmap(fmodel, in_dims=(0, 0, 0, 0))
        encode_fn = vmap(lambda p, b, src: fmodel(p, b, src, None, None, op="encode"),
                         in_dims=(0, 0, None))
        decode_fn = vmap(lambda p, b, src, tgt, mem: fmodel(p, b, src, tgt, mem, op="decode"),
                         in_dims=(0, 0, None, 0, 0))
        decode_shared = vmap(lambda p, b, src, tgt, mem: fmodel(p, b, src, tgt, mem,
                                                                op="decode"),
                             in_dims=(0, 0, None, None, 0))

    def per_seed_nll(logits, target):
        """Per seed: summed nats [S] and scored-token count [S] (target [S, ...] or shared)."""
        V = logits.shape[-1]
        target = target.expand(logits.shape[:-1])
        nats = F.cross_entropy(logits.reshape(-1, V), target.reshape(-1), ignore_index=PAD,
                               reduction="none").view(S, -1).sum(1)
        return nats, (target != PAD).reshape(S, -1).sum(1)

    def evaluate_all(split):
        nats = torch.zeros(S, dtype=torch.float64)
        tokens = torch.zeros(S, dtype=torch.float64)
        right, rows = torch.zeros(S), 0
        with torch.no_grad():
            for batch in task.evaluation_batches(split, tr["validation_batch"]):
                if lm:
                    n, k = per_seed_nll(eval_fn(params, buffers, batch[0]), batch[1])
                else:
                    src, tgt_in, tgt_out = batch
                    memory = encode_fn(params, buffers, src)
                    n, k = per_seed_nll(decode_shared(params, buffers, src, tgt_in, memory),
                                        tgt_out)
                    # One decoding loop for all seeds: it runs until every row of every
                    # seed has finished (vmap cannot stop one seed early).
                    decoded = greedy_decode(
                        lambda prefix: decode_fn(params, buffers, src, prefix, memory),
                        (S, src.shape[0]), task.decode_length(tgt_out))
                    right += sequence_correct(decoded, tgt_out).sum(-1)
                    rows += src.shape[0]
                nats, tokens = nats + n, tokens + k
        return nats / tokens, (right / rows if rows else None)

    first_loss, final_valid, test, accuracy = None, [None] * S, [None] * S, None
    all_diverged = False
    best_valid = torch.full((S,), math.inf, dtype=torch.float64)
    best_params = [p.detach().clone() for p in params]
    for step in range(1, tr["steps"] + 1):
        if lm:
            batches = [task.train_batch(rng, tr["batch"]) for rng in rngs]
            inputs, target = (torch.stack(parts) for parts in zip(*batches))
            logits = train_fn(params, buffers, inputs)
        else:
            # vmap needs one shape for all seeds: each seed's batch is padded to the widest
            # (the extra <pad> columns are masked keys and unscored targets, so each seed's
            # loss and gradients are those of its own batch).
            pairs = [task.train_pairs(rng, tr["batch"]) for rng in rngs]
            width = (max(len(p[0]) for ps in pairs for p in ps),
                     max(len(p[1]) for ps in pairs for p in ps) + 1)
            src, tgt_in, target = (torch.stack(parts) for parts in
                                   zip(*[task.make_batch(ps, width) for ps in pairs]))
            logits = train_fn(params, buffers, src, tgt_in)
        nats, count = per_seed_nll(logits, target)
        losses = nats / count
        values = losses.tolist()
        if first_loss is None:
            first_loss = values
        if not any(math.isfinite(v) for v in values):
            print(f"every seed diverged at step {step}", file=sys.stderr)
            all_diverged = True
            break
        # A diverged seed cannot leave the lockstep: its slices go on as NaN, which stays
        # in them (every op is per seed; its clipping factor is 1, its validation loss
        # NaN, so it never replaces the model validation selected).
        # The seeds' losses are independent, so the gradient of their sum is, in each
        # seed's slice, that seed's own gradient.
        losses.sum().backward()
        if tr["clip_grad_norm"] > 0:
            with torch.no_grad():
                # Each seed's global norm over its slices of every parameter.
                norm = torch.stack([p.grad.reshape(S, -1).pow(2).sum(1) for p in params]
                                   ).sum(0).sqrt()
                factor = torch.where(norm > tr["clip_grad_norm"],
                                     tr["clip_grad_norm"] / (norm + 1e-6), torch.ones_like(norm))
                for p in params:
                    p.grad.mul_(factor.view((S,) + (1,) * (p.dim() - 1)))
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(c, step)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if step % tr["eval_every"] == 0 or step == tr["steps"]:
            valid, _ = evaluate_all("validation")
            final_valid = valid.tolist()
            better = valid < best_valid  # per seed: validation selects what test measures
            best_valid = torch.where(better, valid, best_valid)
            with torch.no_grad():
                for p, kept in zip(params, best_params):
                    kept[better] = p[better]
    if all_diverged:
        samples = False  # as ablate, which neither tests nor samples a diverged trial
    else:
        with torch.no_grad():
            for p, kept in zip(params, best_params):
                p.copy_(kept)
        test, accuracy = evaluate_all("test")
        test = test.tolist()
    if samples and lm:
        generator = torch.Generator().manual_seed(seeds[0])
        with torch.no_grad():
            for prompt in task.prompts:
                ids = torch.tensor([prompt]).expand(S, 1, -1)
                for _ in range(SAMPLE_TOKENS):
                    logits = train_fn(params, buffers, ids[..., -task.context:])
                    probs = torch.softmax(logits[:, 0, -1, FIRST_TOKEN:], -1)
                    # A diverged seed's NaN row would stop torch.multinomial: uniform instead.
                    probs = torch.where(probs.isfinite().all(-1, keepdim=True), probs,
                                        torch.ones_like(probs))
                    token = torch.multinomial(probs, 1, generator=generator) + FIRST_TOKEN
                    ids = torch.cat([ids, token[:, None]], dim=-1)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "first_loss": first_loss, "final_valid": final_valid,
            "test": test, "params": counts,
            "accuracy": None if accuracy is None else accuracy.tolist()}


# ---- main ---------------------------------------------------------------------------------

def report(r):
    """One trial's (or point's) figures for stderr."""

    def text(x, digits=4):
        if isinstance(x, list):
            return "[" + ", ".join(text(v, digits) for v in x) + "]"
        return "n/a" if x is None else f"{x:.{digits}f}"

    accuracy = "" if r["accuracy"] is None else f" (sequence accuracy {text(r['accuracy'], 3)})"
    return (f"params {r['params']}, first loss {text(r['first_loss'])}, final valid "
            f"{text(r['final_valid'])}, test {text(r['test'])}{accuracy}, {r['seconds']:.2f} s")


def cost(c, seeds):
    """A unit's rough cost, to hand out the longest first: steps × batch × (d_model + d_ff)
    × layers × seeds. Only its order matters."""
    m, tr = c["model"], c["train"]
    return tr["steps"] * tr["batch"] * (m["d_model"] + m["d_ff"]) * (
        m["encoder_layers"] + m["decoder_layers"]) * seeds


def ensemble_units(points, workers):
    """What an ensemble worker trains at once. A whole point (all its seeds in one vmap)
    when the points can be shared out evenly; otherwise each point's seeds cut into one
    group per worker, so that no worker idles while another trains the last point alone
    (a file of one point and two seeds would leave one core idle the whole run)."""
    if len(points) % workers == 0:
        return points
    units = []
    for label, c, seeds in points:
        size = -(-len(seeds) // workers)
        units += [(label, c, seeds[i:i + size]) for i in range(0, len(seeds), size)]
    return units


def deal(units, unit_cost, k, n, queue):
    """This worker's units, in the order it trains them. With a queue (a directory shared
    by the workers), a generator that claims the next unclaimed unit, longest first, when
    this worker is free: the workers stay busy until the queue is empty whatever the
    units cost. Without one, the K-th of N round-robin slices."""
    if not queue:
        return units[k - 1::n]
    order = sorted(range(len(units)), key=lambda i: -unit_cost(units[i]))

    class Claimed(list):
        def __iter__(self):
            for i in order:
                try:  # O_EXCL: exactly one worker creates the claim file
                    os.close(os.open(os.path.join(queue, f"unit-{i}"), os.O_CREAT | os.O_EXCL))
                except FileExistsError:
                    continue
                self.append(units[i])
                yield units[i]
    return Claimed()


def parse_slice(text):
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--slice expects K/N, got '{text}'") from None
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"--slice {text}: need 1 <= K <= N")
    return k, n


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file", nargs="?", help="the workload (an ablate experiment file)")
    p.add_argument("--workload", help="the workload (same as the positional argument)")
    p.add_argument("--mode", choices=("sequential", "ensemble"), default="sequential")
    p.add_argument("--slice", type=parse_slice, default=(1, 1), metavar="K/N",
                   help="run the K-th of N slices (trials, or in ensemble mode points, dealt "
                        "round-robin)")
    p.add_argument("--queue", metavar="DIR",
                   help="take units from a queue shared with the other workers (an empty directory "
                        "all of them are given): each unit is claimed by the first free worker")
    p.add_argument("--workers", type=int, default=1,
                   help="with --queue: how many workers share it (decides how an ensemble's "
                        "points are cut into units)")
    p.add_argument("--threads", type=int, default=1,
                   help="threads of this process (default 1: the driver runs one process per core)")
    p.add_argument("--steps", type=int, help="override train.steps (a quick smoke check)")
    p.add_argument("--no-samples", action="store_true",
                   help="skip the language models' 3 × 200 sampled tokens after test "
                        "(ablate always generates them)")
    args = p.parse_args()
    path = args.workload or args.file
    if not path or (args.workload and args.file):
        p.error("give the workload once: FILE or --workload FILE")

    torch.set_num_threads(THREADS)  # and OpenBLAS's, above
    torch.set_num_interop_threads(1)

    api = None
    if args.mode == "ensemble":
        api = ensemble_api()
        if api is None:
            print(json.dumps({"mode": "ensemble", "available": False,
                              "why": f"neither functorch nor torch.func is importable in "
                                     f"torch {torch.__version__}"}))
            sys.exit(3)
        print(f"ensemble via {api[2]}", file=sys.stderr)

    try:
        with open(path, "rb") as f:
            points = expand(tomllib.load(f))
        if args.steps is not None:
            if args.steps < 1:
                raise WorkloadError("--steps must be at least 1")
            for _, c, _ in points:
                c["train"]["steps"] = args.steps
    except (WorkloadError, tomllib.TOMLDecodeError) as e:
        print(f"{path}: {e}", file=sys.stderr)
        sys.exit(2)
    base_dir = os.path.dirname(os.path.abspath(path))
    k, n = args.slice
    samples = not args.no_samples

    result = {"workload": os.path.basename(path), "mode": args.mode, "available": True,
              "trials": 0, "seconds": 0.0, "per_trial_seconds": [], "first_loss": [],
              "final_valid": [], "torch": torch.__version__, "threads": torch.get_num_threads()}
    start = time.perf_counter()
    if args.mode == "sequential":
        trials = [(label, c, seed) for label, c, seeds in points for seed in seeds]
        mine = deal(trials, lambda t: cost(t[1], 1), k, n, args.queue)
        for i, (label, c, seed) in enumerate(mine):
            r = run_trial(c, seed, base_dir, samples)
            result["per_trial_seconds"].append(round(r["seconds"], 4))
            result["first_loss"].append(r["first_loss"])
            result["final_valid"].append(r["final_valid"])
            print(f"[{i + 1}/{len(mine)}] {label} seed {seed}: {report(r)}", file=sys.stderr)
        result["trials"] = len(mine)
    else:
        units = ensemble_units(points, args.workers if args.queue else n)
        mine = deal(units, lambda u: cost(u[1], len(u[2])), k, n, args.queue)
        for i, (label, c, seeds) in enumerate(mine):
            r = run_ensemble(c, seeds, base_dir, samples, api)
            # One training run for the point: its time is shared equally by its trials.
            result["per_trial_seconds"] += [round(r["seconds"] / len(seeds), 4)] * len(seeds)
            result["first_loss"] += r["first_loss"]
            result["final_valid"] += r["final_valid"]
            result["trials"] += len(seeds)
            print(f"[{i + 1}/{len(mine)}] {label} seeds {seeds}: {report(r)}", file=sys.stderr)
    result["seconds"] = round(time.perf_counter() - start, 4)
    # A diverged trial's NaN as null: the line stays strict JSON.
    for key in ("first_loss", "final_valid"):
        result[key] = [x if x is not None and math.isfinite(x) else None for x in result[key]]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
