#!/usr/bin/python3
"""SciPy's numbers for the statistics of reports (experiments/stats/comparison.h).

Writes stats_fixtures.json next to this file; tests/experiments/stats_test.cpp compares
ours with it. Run with Debian's interpreter, which has python3-scipy and numpy:
    /usr/bin/python3 tests/golden/make_stats_fixtures.py
Deterministic: the samples come from a seeded numpy generator.
"""
import json
import os

import numpy as np
import scipy
from scipy import optimize, stats

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
        case = {"a": a, "b": b, "margin": margin, "summary_a": summary(a), "welch": welch(a, b, margin)}
        if n_a == n_b:
            case["paired"] = paired(a, b, margin)
        cases.append(case)
    p_values = [c["welch"]["p_value"] for c in cases] + [0.001, 0.04, 0.04, 0.5, 1.0]
    fixture = {"generator": "tests/golden/make_stats_fixtures.py", "scipy_version": scipy.__version__,
               "numpy_version": np.__version__, "confidence": CONFIDENCE, "power": POWER, "cases": cases,
               "holm": {"p": p_values, "adjusted": holm(p_values)}}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stats_fixtures.json")
    with open(path, "w") as f:
        json.dump(fixture, f, indent=1, default=float)
        f.write("\n")


if __name__ == "__main__":
    main()
