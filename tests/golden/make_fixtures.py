#!/usr/bin/python3
"""Writes the PyTorch parity fixtures of tests/nn/parity_test.cpp.

Run from anywhere with Debian's interpreter (it has torch and numpy):

    /usr/bin/python3 tests/golden/make_fixtures.py [CASE ...]

With case names (the <case> of the file names, e.g. t5_bias), only their files are
written.

Every case is seeded on its own (torch.manual_seed), so adding or changing one case
leaves the others' bytes unchanged. Each case is written once per dtype as
tests/golden/<case>_<f32|f64>.safetensors; the f32 file holds the f64 case's inputs
and weights rounded to f32, with outputs and gradients computed by PyTorch in f32.

Tensor names inside a file (see README.md):
    input.<name>             inputs (gradients are taken with respect to the float ones)
    param.<name>             weights, under OUR parameter names (torch's are mapped here)
    buffer.<name>            module buffers before the forward (BatchNorm running stats)
    upstream                 R: the gradient of sum(output * R) is what is recorded
    output                   the module's output
    grad.input.<name>        d sum(output * R) / d input
    grad.param.<name>        d sum(output * R) / d weight
    after.buffer.<name>      buffers after the forward (BatchNorm in training mode)
A file with several sub-cases prefixes the per-case names with "<sub-case>.".
"""
import json
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
DTYPES = {"f32": torch.float32, "f64": torch.float64}
SAFETENSORS_DTYPE = {
    torch.float32: ("F32", "<f4"),
    torch.float64: ("F64", "<f8"),
    torch.int32: ("I32", "<i4"),
    torch.bool: ("BOOL", "|u1"),
}

torch.set_num_threads(1)  # one reduction order: the f32 bytes do not depend on the machine


# ---- the format ---------------------------------------------------------------------

def write_safetensors(path, tensors, metadata):
    """8-byte little-endian header length, the JSON header, then the raw bytes in order."""
    header = {"__metadata__": metadata}
    chunks = []
    offset = 0
    for name, t in tensors.items():
        t = t.detach().contiguous().cpu()
        if t.dtype not in SAFETENSORS_DTYPE:
            raise TypeError(f"{name}: dtype {t.dtype} is not stored")
        if t.dim() > 4:
            raise ValueError(f"{name}: rank {t.dim()} > 4")
        st_name, np_type = SAFETENSORS_DTYPE[t.dtype]
        data = t.numpy().astype(np_type, copy=False).tobytes(order="C")
        header[name] = {"dtype": st_name, "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)  # data section 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for c in chunks:
            f.write(c)


class Fixture:
    """Collects one file's tensors; float tensors are converted to the file's dtype."""

    def __init__(self, case, dtype_name):
        self.case = case
        self.dtype_name = dtype_name
        self.dtype = DTYPES[dtype_name]
        self.tensors = {}

    def add(self, name, t):
        if name in self.tensors:
            raise KeyError(f"{self.case}: '{name}' stored twice")
        # A copy: the tensors given are often views (of a parameter, of a gradient that
        # zero_grad() or an optimizer step later overwrites in place).
        t = t.detach().clone()
        if t.is_floating_point():
            t = t.to(self.dtype)
        self.tensors[name] = t

    def write(self):
        path = os.path.join(HERE, f"{self.case}_{self.dtype_name}.safetensors")
        write_safetensors(path, self.tensors, {
            "case": self.case,
            "dtype": self.dtype_name,
            "torch_version": torch.__version__,
            "generator": "tests/golden/make_fixtures.py",
        })
        return path, os.path.getsize(path)


def perturb_(module, scale=0.1):
    """Adds noise to every parameter, so that no weight keeps a symmetric default (ones,
    zeros) under which a mix-up of names would go unnoticed."""
    with torch.no_grad():
        for p in module.parameters():
            p.add_(scale * torch.randn(p.shape, dtype=torch.float64).to(p.dtype))


def record_module(fx, prefix, module, name_map, out, upstream, inputs):
    """Backward of sum(out * upstream); stores output, upstream and every gradient.
    name_map: our parameter name -> a function of the torch module returning the tensor
    (a slice of a torch parameter's value or grad)."""
    (out * upstream).sum().backward()
    fx.add(prefix + "upstream", upstream)
    fx.add(prefix + "output", out)
    for name, x in inputs.items():
        fx.add(prefix + "grad.input." + name, x.grad)
    for ours, get in name_map.items():
        fx.add(prefix + "grad.param." + ours, get(module, "grad"))


def join(prefix, name):
    return f"{prefix}.{name}" if prefix else name


def getter(torch_name, rows=None):
    """A function (torch module, "value" | "grad") -> that parameter's value or gradient,
    optionally only some of its rows (a slice of a packed projection)."""
    def get(module, what):
        p = module.get_parameter(torch_name)
        t = p if what == "value" else p.grad
        return t if rows is None else t[rows]
    return get


def same_names(ours, theirs, names):
    """Parameters whose names agree below the two prefixes."""
    return {join(ours, n): getter(join(theirs, n)) for n in names}


def mha_map(ours, theirs, d):
    """torch MultiheadAttention (in_proj packed q;k;v rows, out_proj) -> our w_q, w_k, w_v
    (rows 0:d, d:2d, 2d:3d of in_proj_weight / in_proj_bias) and w_o (out_proj)."""
    out = {}
    for i, part in enumerate(("w_q", "w_k", "w_v")):
        for kind in ("weight", "bias"):
            out[join(ours, f"{part}.{kind}")] = getter(join(theirs, f"in_proj_{kind}"),
                                                      slice(i * d, (i + 1) * d))
    out.update(same_names(join(ours, "w_o"), join(theirs, "out_proj"), ["weight", "bias"]))
    return out


def store_params(fx, module, name_map):
    for ours, get in name_map.items():
        fx.add("param." + ours, get(module, "value"))
    # Every torch parameter must be covered by the map (a forgotten one would not be
    # compared at all): check by element count.
    total = sum(p.numel() for p in module.parameters())
    mapped = sum(get(module, "value").numel() for get in name_map.values())
    if total != mapped:
        raise AssertionError(f"{fx.case}: mapped {mapped} of {total} parameter elements")


def leaf(t, dtype):
    return t.detach().to(dtype).clone().requires_grad_(True)


# ---- cases --------------------------------------------------------------------------

def case_linear(dn):
    torch.manual_seed(1)
    dt = DTYPES[dn]
    m = nn.Linear(5, 3).double()
    x64 = torch.randn(2, 4, 5, dtype=torch.float64)
    r64 = torch.randn(2, 4, 3, dtype=torch.float64)
    m = m.to(dt)
    fx = Fixture("linear", dn)
    names = same_names("", "", ["weight", "bias"])
    store_params(fx, m, names)
    x = leaf(x64, dt)
    fx.add("input.x", x)
    record_module(fx, "", m, names, m(x), r64.to(dt), {"x": x})
    return fx


def case_layer_norm(dn):
    torch.manual_seed(2)
    dt = DTYPES[dn]
    m = nn.LayerNorm(6).double()
    with torch.no_grad():
        m.weight.copy_(1 + 0.5 * torch.randn(6, dtype=torch.float64))
        m.bias.copy_(0.5 * torch.randn(6, dtype=torch.float64))
    x64 = 2 * torch.randn(3, 2, 6, dtype=torch.float64) + 0.5
    r64 = torch.randn(3, 2, 6, dtype=torch.float64)
    m = m.to(dt)
    fx = Fixture("layer_norm", dn)
    names = same_names("", "", ["weight", "bias"])
    store_params(fx, m, names)
    x = leaf(x64, dt)
    fx.add("input.x", x)
    record_module(fx, "", m, names, m(x), r64.to(dt), {"x": x})
    return fx


def case_batch_norm(dn):
    """Sub-cases 'train' (batch statistics, running stats updated with momentum 0.1) and
    'eval' (stored running statistics). x is [2, 5, 4]: our BatchNorm normalises all
    B·T rows, i.e. BatchNorm1d on x.reshape(-1, 4)."""
    torch.manual_seed(3)
    dt = DTYPES[dn]
    m = nn.BatchNorm1d(4, momentum=0.1).double()
    with torch.no_grad():
        m.weight.copy_(1 + 0.5 * torch.randn(4, dtype=torch.float64))
        m.bias.copy_(0.5 * torch.randn(4, dtype=torch.float64))
        m.running_mean.copy_(torch.randn(4, dtype=torch.float64))
        m.running_var.copy_(0.5 + torch.rand(4, dtype=torch.float64))
    x64 = 1.5 * torch.randn(2, 5, 4, dtype=torch.float64) - 0.3
    r_train = torch.randn(2, 5, 4, dtype=torch.float64)
    r_eval = torch.randn(2, 5, 4, dtype=torch.float64)
    m = m.to(dt)
    fx = Fixture("batch_norm", dn)
    names = same_names("", "", ["weight", "bias"])
    store_params(fx, m, names)
    fx.add("buffer.running_mean", m.running_mean.clone())
    fx.add("buffer.running_var", m.running_var.clone())
    x = leaf(x64, dt)
    fx.add("input.x", x)
    for sub, r, training in (("train", r_train, True), ("eval", r_eval, False)):
        m.zero_grad()
        x.grad = None
        with torch.no_grad():
            m.running_mean.copy_(fx.tensors["buffer.running_mean"])
            m.running_var.copy_(fx.tensors["buffer.running_var"])
        m.train(training)
        y = m(x.reshape(-1, 4)).reshape(2, 5, 4)
        record_module(fx, sub + ".", m, names, y, r.to(dt), {"x": x})
        fx.add(sub + ".after.buffer.running_mean", m.running_mean.clone())
        fx.add(sub + ".after.buffer.running_var", m.running_var.clone())
    return fx


def case_mha(dn):
    """Sub-cases 'padding' (self-attention, key padding), 'causal' (self-attention with
    the causal mask) and 'cross' (queries [2, 3, 8] over keys/values [2, 5, 8] with key
    padding). Masks are stored in OUR convention: b8 [B, Tk], true = real token."""
    torch.manual_seed(4)
    dt = DTYPES[dn]
    d = 8
    m = nn.MultiheadAttention(embed_dim=d, num_heads=2, dropout=0.0, bias=True,
                              batch_first=True).double()
    perturb_(m, 0.2)
    m.train()  # not the fused inference fast path
    x64 = torch.randn(2, 5, d, dtype=torch.float64)
    q64 = torch.randn(2, 3, d, dtype=torch.float64)
    kv64 = torch.randn(2, 5, d, dtype=torch.float64)
    self_mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], dtype=torch.bool)
    cross_mask = torch.tensor([[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]], dtype=torch.bool)
    ups = {s: torch.randn(2, t, d, dtype=torch.float64)
           for s, t in (("padding", 5), ("causal", 5), ("cross", 3))}
    m = m.to(dt)
    fx = Fixture("mha", dn)
    names = mha_map("", "", d)
    store_params(fx, m, names)
    fx.add("input.self_mask", self_mask)
    fx.add("input.cross_mask", cross_mask)
    causal = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)  # True = not allowed

    x = leaf(x64, dt)
    fx.add("input.x", x)
    y, _ = m(x, x, x, key_padding_mask=~self_mask, need_weights=False)
    record_module(fx, "padding.", m, names, y, ups["padding"].to(dt), {"x": x})

    m.zero_grad()
    x.grad = None
    y, _ = m(x, x, x, attn_mask=causal, need_weights=False)
    record_module(fx, "causal.", m, names, y, ups["causal"].to(dt), {"x": x})

    m.zero_grad()
    q = leaf(q64, dt)
    kv = leaf(kv64, dt)
    fx.add("input.query", q)
    fx.add("input.kv", kv)
    y, _ = m(q, kv, kv, key_padding_mask=~cross_mask, need_weights=False)
    record_module(fx, "cross.", m, names, y, ups["cross"].to(dt), {"query": q, "kv": kv})
    return fx


def case_sinusoidal(dn):
    """"Attention Is All You Need" §3.5, straight from the formula, in f64:
    PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(pos / 10000^(2i/d))."""
    max_len, d = 16, 8
    pos = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    two_i = torch.arange(0, d, 2, dtype=torch.float64)
    angle = pos / torch.pow(torch.tensor(10000.0, dtype=torch.float64), two_i / d)
    table = torch.empty(max_len, d, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle)
    fx = Fixture("sinusoidal", dn)
    fx.add("output", table)  # the f32 file: the f64 table rounded to f32
    return fx


def case_transformer(dn, norm_first, autocast=False):
    """autocast: the same model, inputs and weights (the same seed), run forward and
    backward under PyTorch's CPU bf16 autocast, for our train.precision = "bf16"."""
    torch.manual_seed(6 if norm_first else 5)
    dt = DTYPES[dn]
    d = 8
    m = nn.Transformer(d_model=d, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                       dim_feedforward=16, dropout=0.0, batch_first=True,
                       norm_first=norm_first).double()
    perturb_(m, 0.1)
    m.train()  # not the nested-tensor / fused inference fast paths
    src64 = torch.randn(2, 5, d, dtype=torch.float64)
    tgt64 = torch.randn(2, 4, d, dtype=torch.float64)
    r64 = torch.randn(2, 4, d, dtype=torch.float64)
    src_mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], dtype=torch.bool)
    tgt_mask = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]], dtype=torch.bool)
    m = m.to(dt)
    case = ("transformer_pre" if norm_first else "transformer_post") + ("_autocast_bf16" if autocast else "")
    fx = Fixture(case, dn)

    names = {}
    for stack, n_layers, attns, norms in (("encoder", 2, ["self_attn"], ["norm1", "norm2"]),
                                          ("decoder", 2, ["self_attn", "multihead_attn"],
                                           ["norm1", "norm2", "norm3"])):
        for i in range(n_layers):
            p = f"{stack}.layers.{i}"
            for a in attns:
                names.update(mha_map(f"{p}.{a}", f"{p}.{a}", d))
            for lin in ("linear1", "linear2"):
                names.update(same_names(f"{p}.{lin}", f"{p}.{lin}", ["weight", "bias"]))
            for nrm in norms:
                names.update(same_names(f"{p}.{nrm}", f"{p}.{nrm}", ["weight", "bias"]))
        names.update(same_names(f"{stack}.norm", f"{stack}.norm", ["weight", "bias"]))
    store_params(fx, m, names)

    src = leaf(src64, dt)
    tgt = leaf(tgt64, dt)
    fx.add("input.src", src)
    fx.add("input.tgt", tgt)
    fx.add("input.src_mask", src_mask)
    fx.add("input.tgt_mask", tgt_mask)
    causal = nn.Transformer.generate_square_subsequent_mask(4).to(dt)  # 0 / -inf
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        y = m(src, tgt, tgt_mask=causal, src_key_padding_mask=~src_mask,
              tgt_key_padding_mask=~tgt_mask, memory_key_padding_mask=~src_mask)
    record_module(fx, "", m, names, y.float() if autocast else y, r64.to(dt), {"src": src, "tgt": tgt})
    return fx


def sinusoidal_rows(T, d, dtype):
    """The first T rows of our sinusoidal table (nn/positions/sinusoidal_positions.cpp,
    base 10000), computed in f64 and rounded to dtype as ours is."""
    pos = torch.arange(T, dtype=torch.float64).unsqueeze(1)
    two_i = torch.arange(0, d, 2, dtype=torch.float64)
    angle = pos / torch.pow(torch.tensor(10000.0, dtype=torch.float64), two_i / d)
    table = torch.empty(T, d, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle)
    return table.to(dtype)


class TorchDecoderLM(nn.Module):
    """Our DecoderLanguageModel from torch.nn pieces, with our module names (embedding,
    decoder, output): ids -> embedding(ids) * sqrt(d) + sinusoidal positions -> a
    TransformerEncoder under the causal mask and key padding -> nn.Linear to the
    vocabulary, or the embedding table itself (tied, no bias). The encoder ends with a
    LayerNorm exactly when ours does with final_norm = "auto", i.e. for pre-norm."""

    def __init__(self, vocab, d, heads, layers, d_ff, pad, norm_first, tie_output):
        super().__init__()
        self.d = d
        self.pad = pad
        self.embedding = nn.Embedding(vocab, d, padding_idx=pad)
        layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=d_ff, dropout=0.0,
                                           batch_first=True, norm_first=norm_first)
        self.decoder = nn.TransformerEncoder(layer, layers,
                                             norm=nn.LayerNorm(d) if norm_first else None)
        self.output = None if tie_output else nn.Linear(d, vocab)

    def forward(self, ids):
        T = ids.shape[1]
        x = self.embedding(ids) * math.sqrt(self.d)
        x = x + sinusoidal_rows(T, self.d, x.dtype)
        causal = nn.Transformer.generate_square_subsequent_mask(T).to(x.dtype)  # 0 / -inf
        h = self.decoder(x, mask=causal, src_key_padding_mask=ids == self.pad)
        return self.output(h) if self.output is not None else F.linear(h, self.embedding.weight)


def case_decoder_lm(dn, norm_first, tie_output):
    """Our DecoderLanguageModel (vocab 7, pad 0, d_model 8, 2 heads, 2 layers, d_ff 16,
    sinusoidal positions, embeddings x sqrt(d_model)) on ids [2, 5], the second row
    padded at its last two positions. The embedding is drawn as ours is, N(0, 1/d) with
    the padding row zero (torch's padding_idx row starts at zero too; it is kept so),
    every other weight is perturbed."""
    torch.manual_seed({(False, False): 10, (True, False): 11, (True, True): 12}[
        (norm_first, tie_output)])
    dt = DTYPES[dn]
    vocab, d, pad, layers = 7, 8, 0, 2
    m = TorchDecoderLM(vocab, d, heads=2, layers=layers, d_ff=16, pad=pad,
                       norm_first=norm_first, tie_output=tie_output).double()
    perturb_(m.decoder, 0.1)
    if m.output is not None:
        perturb_(m.output, 0.1)
    with torch.no_grad():
        m.embedding.weight.copy_(torch.randn(vocab, d, dtype=torch.float64) / math.sqrt(d))
        m.embedding.weight[pad].zero_()
    m.train()  # not the nested-tensor / fused inference fast paths
    ids = torch.tensor([[3, 1, 4, 1, 5], [2, 6, 5, 0, 0]], dtype=torch.int32)
    r64 = torch.randn(2, 5, vocab, dtype=torch.float64)
    m = m.to(dt)
    case = "decoder_lm_" + ("pre" if norm_first else "post") + ("_tied" if tie_output else "")
    fx = Fixture(case, dn)

    names = same_names("embedding", "embedding", ["weight"])
    for i in range(layers):
        p = f"decoder.layers.{i}"
        names.update(mha_map(f"{p}.self_attn", f"{p}.self_attn", d))
        for sub in ("linear1", "linear2", "norm1", "norm2"):
            names.update(same_names(f"{p}.{sub}", f"{p}.{sub}", ["weight", "bias"]))
    if norm_first:
        names.update(same_names("decoder.norm", "decoder.norm", ["weight", "bias"]))
    if not tie_output:
        names.update(same_names("output", "output", ["weight", "bias"]))
    store_params(fx, m, names)

    fx.add("input.ids", ids)
    y = m(ids.long())
    record_module(fx, "", m, names, y, r64.to(dt), {})
    return fx


def case_cross_entropy(dn):
    torch.manual_seed(7)
    dt = DTYPES[dn]
    logits64 = 2 * torch.randn(6, 5, dtype=torch.float64)
    targets = torch.tensor([3, 0, 1, 4, 0, 2], dtype=torch.int32)  # 0 = ignore_index
    fx = Fixture("cross_entropy", dn)
    x = leaf(logits64, dt)
    fx.add("input.logits", x)
    fx.add("input.targets", targets)
    loss = F.cross_entropy(x, targets.long(), ignore_index=0, label_smoothing=0.1)
    loss.backward()
    fx.add("output", loss.reshape(1))
    fx.add("grad.input.logits", x.grad)
    return fx


def case_optimizer(dn, name):
    torch.manual_seed(8 if name == "adam" else 9)
    dt = DTYPES[dn]
    init = {"a": torch.randn(3, 4, dtype=torch.float64), "b": torch.randn(5, dtype=torch.float64)}
    steps = 5
    grads = [{k: torch.randn(v.shape, dtype=torch.float64) for k, v in init.items()}
             for _ in range(steps)]
    params = {k: torch.nn.Parameter(v.to(dt).clone()) for k, v in init.items()}
    if name == "adam":
        opt = torch.optim.Adam(params.values(), lr=1e-2, betas=(0.9, 0.999), eps=1e-8,
                               weight_decay=0.01)
    else:
        opt = torch.optim.AdamW(params.values(), lr=1e-2, weight_decay=0.01)
    fx = Fixture(name, dn)
    for k, v in params.items():
        fx.add("param." + k, v)
    for s in range(steps):
        for k, p in params.items():
            p.grad = grads[s][k].to(dt).clone()
            fx.add(f"step{s + 1}.grad.{k}", p.grad)
        opt.step()
        for k, p in params.items():
            fx.add(f"step{s + 1}.after.param.{k}", p.detach().clone())
    return fx


class DynamicTanh(nn.Module):
    """DyT as in the paper's reference code (github:jiachenzhu/DyT, dynamic_tanh.py,
    channels-last): tanh(alpha * x) * weight + bias, alpha one scalar."""

    def __init__(self, d, alpha_init=0.5):
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(1) * alpha_init)
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = nn.Parameter(torch.zeros(d))

    def forward(self, x):
        return torch.tanh(self.alpha * x) * self.weight + self.bias


def case_dyt(dn):
    """x spread wide enough (std 2) that tanh saturates for some elements."""
    torch.manual_seed(12)
    dt = DTYPES[dn]
    m = DynamicTanh(6).double()
    perturb_(m, 0.3)  # alpha 0.5 + noise; weight, bias off their ones / zeros
    x64 = 2 * torch.randn(3, 2, 6, dtype=torch.float64)
    r64 = torch.randn(3, 2, 6, dtype=torch.float64)
    m = m.to(dt)
    fx = Fixture("dyt", dn)
    names = same_names("", "", ["alpha", "weight", "bias"])
    store_params(fx, m, names)
    x = leaf(x64, dt)
    fx.add("input.x", x)
    record_module(fx, "", m, names, m(x), r64.to(dt), {"x": x})
    return fx


class QkNormAttention(nn.Module):
    """Multi-head attention with QK-layernorm (Dehghani et al. 2023; Wortsman et al.
    2023): nn.LayerNorm(d_k) on each head's queries and keys before the 1/sqrt(d_k)
    scaled dot product. Written out here (torch has no such module); the attribute
    names are ours, so the parameter names map one to one."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.d_k = heads, d // heads
        self.w_q, self.w_k = nn.Linear(d, d), nn.Linear(d, d)
        self.w_v, self.w_o = nn.Linear(d, d), nn.Linear(d, d)
        self.q_norm, self.k_norm = nn.LayerNorm(self.d_k), nn.LayerNorm(self.d_k)

    def split(self, t):  # [B, T, H*d_k] -> [B, H, T, d_k]
        return t.reshape(t.shape[0], t.shape[1], self.heads, self.d_k).transpose(1, 2)

    def forward(self, x_q, x_kv, key_mask):
        q = self.split(self.q_norm(self.w_q(x_q).reshape(*x_q.shape[:2], self.heads, self.d_k)
                                   ).reshape(*x_q.shape[:2], -1))
        k = self.split(self.k_norm(self.w_k(x_kv).reshape(*x_kv.shape[:2], self.heads, self.d_k)
                                   ).reshape(*x_kv.shape[:2], -1))
        v = self.split(self.w_v(x_kv))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        scores = scores.masked_fill(~key_mask[:, None, None, :], float("-inf"))
        y = torch.softmax(scores, dim=-1) @ v
        return self.w_o(y.transpose(1, 2).reshape(x_q.shape[0], x_q.shape[1], -1))


def case_qk_norm(dn):
    """Sub-cases 'padding' (self-attention on x [2, 5, 8] with key padding) and 'cross'
    (queries [2, 3, 8] over keys/values [2, 5, 8], key padding); masks in OUR convention."""
    torch.manual_seed(13)
    dt = DTYPES[dn]
    d = 8
    m = QkNormAttention(d, 2).double()
    perturb_(m, 0.2)  # the LayerNorms' ones / zeros too, so q_norm and k_norm differ
    x64 = torch.randn(2, 5, d, dtype=torch.float64)
    q64 = torch.randn(2, 3, d, dtype=torch.float64)
    kv64 = torch.randn(2, 5, d, dtype=torch.float64)
    self_mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], dtype=torch.bool)
    cross_mask = torch.tensor([[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]], dtype=torch.bool)
    ups = {s: torch.randn(2, t, d, dtype=torch.float64) for s, t in (("padding", 5), ("cross", 3))}
    m = m.to(dt)
    fx = Fixture("qk_norm", dn)
    names = {}
    for part in ("w_q", "w_k", "w_v", "w_o", "q_norm", "k_norm"):
        names.update(same_names(part, part, ["weight", "bias"]))
    store_params(fx, m, names)
    fx.add("input.self_mask", self_mask)
    fx.add("input.cross_mask", cross_mask)

    x = leaf(x64, dt)
    fx.add("input.x", x)
    record_module(fx, "padding.", m, names, m(x, x, self_mask), ups["padding"].to(dt), {"x": x})

    m.zero_grad()
    q = leaf(q64, dt)
    kv = leaf(kv64, dt)
    fx.add("input.query", q)
    fx.add("input.kv", kv)
    record_module(fx, "cross.", m, names, m(q, kv, cross_mask), ups["cross"].to(dt),
                  {"query": q, "kv": kv})
    return fx


def t5_relative_position_bucket(relative_position, bidirectional=True, num_buckets=32,
                                max_distance=128):
    """T5's bucket of a relative position (memory position - query position): a copy of
    HuggingFace transformers' T5Attention._relative_position_bucket
    (src/transformers/models/t5/modeling_t5.py, adapted there from Mesh TensorFlow's
    transformer_layers.py), unchanged but for the names."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    # now relative_position is in the range [0, inf)

    # half of the buckets are for exact increments in positions
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact

    # The other half of the buckets are for logarithmically bigger bins in positions up
    # to max_distance
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
    )

    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


class T5BiasAttention(nn.Module):
    """Multi-head attention (nn.Linear w_q, w_k, w_v, w_o with biases; softmax(q·kᵀ/√d_k
    + position_bias, masked)·v) with T5's relative position bias as transformers'
    T5Attention.compute_bias builds it: relative_attention_bias = nn.Embedding(num_buckets,
    heads) read at the bucket of (key position - query position), permuted to [1, H, Tq,
    Tk], added to the scores unscaled. bidirectional = not causal (T5: not is_decoder)."""

    def __init__(self, d, heads, num_buckets, max_distance):
        super().__init__()
        self.heads, self.d_k = heads, d // heads
        self.num_buckets, self.max_distance = num_buckets, max_distance
        self.w_q, self.w_k = nn.Linear(d, d), nn.Linear(d, d)
        self.w_v, self.w_o = nn.Linear(d, d), nn.Linear(d, d)
        self.relative_attention_bias = nn.Embedding(num_buckets, heads)

    def compute_bias(self, query_length, key_length, causal):
        context_position = torch.arange(query_length, dtype=torch.long)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long)[None, :]
        relative_position = memory_position - context_position  # (query_length, key_length)
        bucket = t5_relative_position_bucket(relative_position, bidirectional=not causal,
                                             num_buckets=self.num_buckets,
                                             max_distance=self.max_distance)
        values = self.relative_attention_bias(bucket)  # (query_length, key_length, heads)
        return values.permute([2, 0, 1]).unsqueeze(0)  # (1, heads, query_length, key_length)

    def split(self, t):  # [B, T, H*d_k] -> [B, H, T, d_k]
        return t.reshape(t.shape[0], t.shape[1], self.heads, self.d_k).transpose(1, 2)

    def forward(self, x, allowed, causal):
        """allowed: BOOL broadcastable to [B, H, T, T], true = may attend."""
        q, k, v = self.split(self.w_q(x)), self.split(self.w_k(x)), self.split(self.w_v(x))
        bias = self.compute_bias(x.shape[1], x.shape[1], causal)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k) + bias
        probs = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        y = probs @ v
        return self.w_o(y.transpose(1, 2).reshape(x.shape[0], x.shape[1], -1)), bias, probs


def case_t5_bias(dn):
    """T5's buckets for relative positions -300..300 under several (num_buckets,
    max_distance), both directions; and self-attention with the bias (num_buckets 8,
    max_distance 20, so that T = 7 reaches the logarithmic buckets), sub-cases 'causal'
    (unidirectional buckets, causal mask) and 'padding' (bidirectional, key padding)."""
    torch.manual_seed(14)
    dt = DTYPES[dn]
    fx = Fixture("t5_bias", dn)
    relative = torch.arange(-300, 301, dtype=torch.long)
    fx.add("input.relative_position", relative.to(torch.int32))
    for nb, md in ((32, 128), (8, 20), (16, 64), (64, 256), (5, 7)):
        for bidirectional in (False, True):
            b = t5_relative_position_bucket(relative, bidirectional, nb, md)
            fx.add(f"buckets.{nb}_{md}_{'bi' if bidirectional else 'uni'}", b.to(torch.int32))
    d, T = 8, 7
    m = T5BiasAttention(d, 2, num_buckets=8, max_distance=20).double()
    perturb_(m, 0.2)
    x64 = torch.randn(2, T, d, dtype=torch.float64)
    keep = torch.ones(2, T, dtype=torch.bool)
    keep[1, 5:] = False  # the second sequence ends in two pads
    ups = {s: torch.randn(2, T, d, dtype=torch.float64) for s in ("causal", "padding")}
    m = m.to(dt)
    names = {}
    for part in ("w_q", "w_k", "w_v", "w_o"):
        names.update(same_names(join("attention", part), part, ["weight", "bias"]))
    names["positions.weight"] = getter("relative_attention_bias.weight")
    store_params(fx, m, names)
    fx.add("input.self_mask", keep)
    x = leaf(x64, dt)
    fx.add("input.x", x)
    for sub in ("causal", "padding"):
        m.zero_grad()
        x.grad = None
        causal = sub == "causal"
        if causal:
            allowed = torch.ones(T, T, dtype=torch.bool).tril()[None, None]
        else:
            allowed = keep[:, None, None, :]
        y, bias, probs = m(x, allowed, causal)
        fx.add(sub + ".score_bias", bias[0])
        fx.add(sub + ".attention", probs)
        record_module(fx, sub + ".", m, names, y, ups[sub].to(dt), {"x": x})
    return fx


CASES = [
    case_linear,
    case_layer_norm,
    case_batch_norm,
    case_mha,
    case_sinusoidal,
    lambda dn: case_transformer(dn, norm_first=False),
    lambda dn: case_transformer(dn, norm_first=True),
    case_cross_entropy,
    lambda dn: case_optimizer(dn, "adam"),
    lambda dn: case_optimizer(dn, "adamw"),
    lambda dn: case_decoder_lm(dn, norm_first=False, tie_output=False),
    lambda dn: case_decoder_lm(dn, norm_first=True, tie_output=False),
    lambda dn: case_decoder_lm(dn, norm_first=True, tie_output=True),
    case_dyt,
    case_qk_norm,
    case_t5_bias,
]


# Cases only meaningful in f32 (bf16 autocast computes from f32 weights).
F32_CASES = [
    lambda dn: case_transformer(dn, norm_first=False, autocast=True),
    lambda dn: case_transformer(dn, norm_first=True, autocast=True),
]


def main():
    # Arguments name cases: only their files are written (e.g. `make_fixtures.py t5_bias`;
    # other torch builds write other f32 bytes, so regenerate only what changed).
    only = set(sys.argv[1:])
    written = set()
    for make, dtypes in [(m, ("f64", "f32")) for m in CASES] + [(m, ("f32",)) for m in F32_CASES]:
        for dn in dtypes:
            fx = make(dn)
            if only and fx.case not in only:
                continue
            written.add(fx.case)
            path, size = fx.write()
            print(f"{os.path.relpath(path, os.path.dirname(os.path.dirname(HERE)))}: {size} bytes")
    if only - written:
        sys.exit(f"no such case: {' '.join(sorted(only - written))}")


if __name__ == "__main__":
    main()
