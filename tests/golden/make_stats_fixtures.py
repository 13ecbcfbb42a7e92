#!/usr/bin/python3
"""SciPy's and statsmodels' numbers for the statistics of reports
(experiments/stats/comparison.h, resampling.h).

Writes stats_fixtures.json next to this file; tests/experiments/stats_test.cpp compares
ours with it. Run with Debian's interpreter, which has python3-scipy, numpy and
python3-statsmodels:
    /usr/bin/python3 tests/golden/make_stats_fixtures.py
Deterministic: the samples come from a seeded numpy generator.

The bootstrap intervals are the one number no library computes for us: ablate draws
its resamples with splitmix64 from a fixed seed (so a report is the same on every
rerun), which this script draws again in Python, leaving NumPy's quantile to check the
rest.
"""
import json
import math
import os

import numpy as np
import scipy
import statsmodels
from scipy import optimize, stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestPower
from statsmodels.stats.weightstats import ttost_ind, ttost_paired

# experiments/stats/resampling.h
RESAMPLING_SEED = 20261203
BOOTSTRAP_RESAMPLES = 10000
EXACT_RELABEL_LIMIT = 200000
MASK64 = (1 << 64) - 1

CONFIDENCE, POWER = 0.95, 0.8
ALPHA = 1 - CONFIDENCE


def mde_noncentrality(df):
    """Noncentrality at which the two-sided level-ALPHA t-test rejects with POWER."""
    crit = stats.t.ppf(1 - ALPHA / 2, df)

    def power(ncp):
        # SciPy 1.10's nct.sf warns "invalid value" at integer df = 2 yet returns the
        # right value (it equals 1 - nct.cdf there); the warning is silenced.
        with np.errstate(invalid="ignore", divide="ignore"):
            return stats.nct.sf(crit, df, ncp) + stats.nct.cdf(-crit, df, ncp)

    hi = 1.0
    while power(hi) < POWER:
        hi *= 2
    return optimize.brentq(lambda ncp: power(ncp) - POWER, 1e-9, hi, xtol=1e-14, rtol=1e-14)


def summary(x):
    x = np.asarray(x)
    mean, sd = x.mean(), x.std(ddof=1)
    low, high = stats.t.interval(CONFIDENCE, len(x) - 1, loc=mean, scale=sd / np.sqrt(len(x)))
    return {"n": len(x), "mean": mean, "sd": sd, "ci_low": low, "ci_high": high}


def paired(a, b, margin):
    d = np.asarray(a) - np.asarray(b)
    n = len(d)
    res = stats.ttest_rel(a, b)
    se = d.std(ddof=1) / np.sqrt(n)
    low, high = stats.t.interval(CONFIDENCE, n - 1, loc=d.mean(), scale=se)
    # Two one-sided tests: H0 diff <= -margin and H0 diff >= +margin.
    p_lower = stats.ttest_1samp(d, -margin, alternative="greater").pvalue
    p_upper = stats.ttest_1samp(d, margin, alternative="less").pvalue
    return {"method": "paired_t", "diff": d.mean(), "diff_ci_low": low, "diff_ci_high": high,
            "t": res.statistic, "df": n - 1, "p_value": res.pvalue,
            "effect_size": d.mean() / d.std(ddof=1), "mde": mde_noncentrality(n - 1) * se,
            "equivalence_p": max(p_lower, p_upper)}


def welch(a, b, margin):
    a, b = np.asarray(a), np.asarray(b)
    res = stats.ttest_ind(a, b, equal_var=False)
    qa, qb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = np.sqrt(qa + qb)
    df = (qa + qb) ** 2 / (qa ** 2 / (len(a) - 1) + qb ** 2 / (len(b) - 1))
    diff = a.mean() - b.mean()
    low, high = stats.t.interval(CONFIDENCE, df, loc=diff, scale=se)
    p_lower = stats.ttest_ind(a + margin, b, equal_var=False, alternative="greater").pvalue
    p_upper = stats.ttest_ind(a - margin, b, equal_var=False, alternative="less").pvalue
    return {"method": "welch_t", "diff": diff, "diff_ci_low": low, "diff_ci_high": high,
            "t": res.statistic, "df": df, "p_value": res.pvalue,
            "effect_size": diff / np.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2),
            "mde": mde_noncentrality(df) * se, "equivalence_p": max(p_lower, p_upper)}


class SplitMix64:
    """splitmix64, as experiments/stats/resampling.h draws it."""

    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n


def bootstrap_interval(a, b, paired, tail):
    """The percentile interval of the mean difference from ablate's resamples: sums in
    index order as ablate adds them, NumPy's linear quantile."""
    rng = SplitMix64(RESAMPLING_SEED)
    means = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        if paired:
            s = 0.0
            for _ in range(len(a)):
                k = rng.below(len(a))
                s += a[k] - b[k]
            means.append(s / len(a))
        else:
            sa = 0.0
            for _ in range(len(a)):
                sa += a[rng.below(len(a))]
            sb = 0.0
            for _ in range(len(b)):
                sb += b[rng.below(len(b))]
            means.append(sa / len(a) - sb / len(b))
    low, high = np.quantile(np.sort(means), [tail, 1 - tail], method="linear")
    return [float(low), float(high)]


def permutation(a, b, paired, bound, alternative):
    """SciPy's exact permutation test of the mean difference shifted by `bound`: sign
    flips of the paired differences, or relabellings of the pooled scores."""
    a, b = np.asarray(a), np.asarray(b)
    if paired:
        data = (a - b - bound,)
        statistic = lambda d, axis: np.mean(d, axis=axis)
    else:
        data = (a - bound, b)
        statistic = lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis)
    res = stats.permutation_test(data, statistic, permutation_type="samples" if paired else "independent",
                                 vectorized=True, n_resamples=np.inf, alternative=alternative)
    return float(res.pvalue)


def exact_permutation_possible(a, b, paired):
    return len(a) <= 20 if paired else math.comb(len(a) + len(b), len(a)) <= EXACT_RELABEL_LIMIT


def one_sided(a, b, paired, bound, above):
    """The one-sided t-test of H1 "true difference above (below) bound"."""
    alternative = "greater" if above else "less"
    if paired:
        return float(stats.ttest_1samp(np.asarray(a) - np.asarray(b), bound, alternative=alternative).pvalue)
    return float(stats.ttest_ind(np.asarray(a) - bound, b, equal_var=False, alternative=alternative).pvalue)


def resampling_and_margins(a, b, paired, margin):
    """The numbers resampling.h and the margin tests give, for one comparison."""
    out = {"one_sided": [], "permutation": [], "bootstrap": []}
    for bound in (0.0, margin, -margin):
        for above in (True, False):
            out["one_sided"].append({"bound": bound, "above": above, "p": one_sided(a, b, paired, bound, above)})
            if exact_permutation_possible(a, b, paired):
                out["permutation"].append({"bound": bound, "above": above,
                                           "p": permutation(a, b, paired, bound, "greater" if above else "less")})
    if exact_permutation_possible(a, b, paired):
        out["permutation_two_sided"] = permutation(a, b, paired, 0.0, "two-sided")
    for tail in (0.025, 0.0125):
        out["bootstrap"].append({"tail": tail, "interval": bootstrap_interval(a, b, paired, tail)})
    # statsmodels' two one-sided tests (its own code, not SciPy's t).
    if paired:
        out["statsmodels_tost"] = float(ttost_paired(np.asarray(a), np.asarray(b), -margin, margin)[0])
        # The one-sided MDE at alpha / 4 (a family of four claims), 80% power: the
        # noncentrality solved to full precision with brentq, times the standard error;
        # statsmodels' power solver (its own code, coarser: about 1e-6) must agree.
        d = np.asarray(a) - np.asarray(b)
        n, se = len(d), d.std(ddof=1) / np.sqrt(len(d))
        crit = stats.t.ppf(1 - ALPHA / 4, n - 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            ncp = optimize.brentq(lambda nc: stats.nct.sf(crit, n - 1, nc) - POWER, 1e-9, 64, xtol=1e-14, rtol=1e-14)
        mde = ncp * se
        effect = TTestPower().solve_power(effect_size=None, nobs=n, alpha=ALPHA / 4, power=POWER,
                                          alternative="larger")
        assert abs(effect * d.std(ddof=1) - mde) <= 1e-5 * mde, (effect * d.std(ddof=1), mde)
        out["one_sided_mde_alpha_over_4"] = float(mde)
        out["statsmodels_one_sided_mde_alpha_over_4"] = float(effect * d.std(ddof=1))
    else:
        out["statsmodels_tost"] = float(ttost_ind(np.asarray(a), np.asarray(b), -margin, margin,
                                                  usevar="unequal")[0])
    return out


def holm(p):
    """Holm's step-down adjustment (SciPy has none; this is its textbook definition)."""
    p = np.asarray(p)
    order = np.argsort(p, kind="stable")
    m, running, out = len(p), 0.0, np.empty(len(p))
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * p[i]))
        out[i] = running
    return out.tolist()


def main():
    rng = np.random.default_rng(20261201)
    cases = []
    # (n_a, n_b, shift, sd_a, sd_b, margin): seeds per arm as the studies use them.
    for n_a, n_b, shift, sd_a, sd_b, margin in [(3, 3, 0.05, 0.02, 0.02, 0.05), (5, 5, 0.0, 0.03, 0.05, 0.02),
                                                (10, 10, 0.01, 0.02, 0.02, 0.03), (20, 20, -0.02, 0.05, 0.03, 0.01),
                                                (10, 7, 0.1, 0.04, 0.09, 0.05), (4, 12, 0.003, 0.01, 0.02, 0.02)]:
        common = rng.normal(0.8, 0.05, max(n_a, n_b))  # per-seed effects the arms share
        a = (common[:n_a] + shift + rng.normal(0, sd_a, n_a)).tolist()
        b = (common[:n_b] + rng.normal(0, sd_b, n_b)).tolist()
        case = {"a": a, "b": b, "margin": margin, "summary_a": summary(a), "welch": welch(a, b, margin),
                "welch_resampling": resampling_and_margins(a, b, False, margin)}
        if n_a == n_b:
            case["paired"] = paired(a, b, margin)
            case["paired_resampling"] = resampling_and_margins(a, b, True, margin)
        cases.append(case)
    p_values = [c["welch"]["p_value"] for c in cases] + [0.001, 0.04, 0.04, 0.5, 1.0]
    fixture = {"generator": "tests/golden/make_stats_fixtures.py", "scipy_version": scipy.__version__,
               "numpy_version": np.__version__, "confidence": CONFIDENCE, "power": POWER, "cases": cases,
               "statsmodels_version": statsmodels.__version__,
               "holm": {"p": p_values, "adjusted": holm(p_values),
                        "statsmodels_adjusted": multipletests(p_values, method="holm")[1].tolist()}}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stats_fixtures.json")
    with open(path, "w") as f:
        json.dump(fixture, f, indent=1, default=float)
        f.write("\n")


if __name__ == "__main__":
    main()
