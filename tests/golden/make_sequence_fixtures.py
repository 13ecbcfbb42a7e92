#!/usr/bin/python3
"""SciPy's numbers for the anytime-valid t confidence sequence
(experiments/stats/confidence_sequence.h), computed independently of its closed form.

The e-value is the Bayes factor of the t statistic with a normal prior N(0, g) on the
standardised effect delta. Here it is computed as a ratio of SciPy's t densities (the
t statistic under the mixture is a scaled central t), not by the closed form the C++
uses. The radius factor is the |t| at which it equals 1/alpha (brentq). Also a simulation
of the reason the method exists: over eight looks (5, 10, ..., 40 values of N(0, 1)),
a fixed-n t-test at alpha = 0.05 checked at every look rejects far more often than
alpha, the sequence rarely.

Writes sequence_fixtures.json next to this file; tests/experiments/
confidence_sequence_test.cpp compares ours with it. Run with Debian's interpreter:
    /usr/bin/python3 tests/golden/make_sequence_fixtures.py
"""
import json
import math
import os

import numpy as np
import scipy
from scipy import optimize, stats


def e_value(t, n, g):
    # Under the mixture, Z + sqrt(n) delta ~ N(0, 1 + n g) with Z ~ N(0, 1), so the
    # t statistic is sqrt(1 + n g) times a central t with nu degrees of freedom: its
    # density is the scaled t density, and the Bayes factor is the ratio of the two.
    nu = n - 1
    scale = math.sqrt(1 + n * g)
    return stats.t.pdf(t, nu, scale=scale) / stats.t.pdf(t, nu)


def radius_factor(n, alpha, g):
    target = 1 / alpha
    hi = 1.0
    while e_value(hi, n, g) < target:
        hi *= 2
        if hi > 1e4:
            return math.inf
    return optimize.brentq(lambda t: e_value(t, n, g) - target, 0, hi, xtol=1e-12, rtol=1e-12)


def peeking(reps, seed):
    """False rejections of mu = 0 over looks at 5, 10, ..., 40 N(0, 1) values."""
    rng = np.random.default_rng(seed)
    looks = range(5, 41, 5)
    factors = {n: radius_factor(n, 0.05, 1.0) for n in looks}
    naive = sequence = 0
    for _ in range(reps):
        x = rng.normal(0, 1, 40)
        n_hit = s_hit = False
        for n in looks:
            m, s = x[:n].mean(), x[:n].std(ddof=1)
            t = m / (s / math.sqrt(n))
            n_hit |= stats.ttest_1samp(x[:n], 0).pvalue < 0.05
            s_hit |= abs(t) > factors[n]
        naive += n_hit
        sequence += s_hit
    return {"reps": reps, "seed": seed, "naive_rate": naive / reps, "sequence_rate": sequence / reps}


def main():
    e_cases = [{"t": t, "n": n, "g": g, "e": e_value(t, n, g)}
               for t in (0.0, 0.7, 2.0, 4.5) for n in (2, 3, 5, 12, 40) for g in (0.25, 1.0)]
    # An unbounded radius is written as null (JSON has no infinity).
    radius_cases = [{"n": n, "alpha": a, "g": g,
                     "factor": None if math.isinf(f := radius_factor(n, a, g)) else f}
                    for n in (3, 5, 10, 20, 40) for a in (0.05, 0.0125) for g in (0.25, 1.0)]
    fixture = {"scipy_version": scipy.__version__, "e_values": e_cases, "radius_factors": radius_cases,
               "peeking": peeking(4000, 20261203)}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sequence_fixtures.json"), "w") as f:
        json.dump(fixture, f, indent=1, default=float)


if __name__ == "__main__":
    main()
