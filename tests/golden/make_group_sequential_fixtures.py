#!/usr/bin/python3
"""SciPy's group-sequential boundaries (experiments/stats/group_sequential.h), computed
independently of ablate's numerical integration.

ablate integrates the sub-density of Z_k on the continuation region look by look
(Jennison and Turnbull's grid). Here each boundary comes from SciPy's multivariate normal
distribution function instead (Genz's method): Z_1, ..., Z_k are jointly normal with
corr(Z_j, Z_k) = sqrt(I_j / I_k), and c_k is the root (brentq) of

    P(no exit at looks 1..k-1) - P(no exit at looks 1..k) = f(t_k) - f(t_{k-1})

for the spending function f. Looks at 5, 10, ..., 40 pairs of a 40-pair budget (the
adaptive sweeps' default), one-sided at alpha = 0.025 and two-sided at alpha = 0.05, for
the three spending functions ablate offers.

SciPy integrates by randomised quasi-Monte Carlo (Genz's method): at these settings
(absolute error 1e-7, up to 10^5 points a dimension) a boundary after 7 or 8 correlated
looks is good to about +-0.002, which the test allows; ablate's own integration matches
Jennison and Turnbull's published tables to three decimals. About 3 minutes.

Writes group_sequential_fixtures.json next to this file; tests/experiments/
group_sequential_test.cpp compares ablate's boundaries with it. Run with Debian's
interpreter (python3-scipy):
    /usr/bin/python3 tests/golden/make_group_sequential_fixtures.py
"""
import json
import math
import os

import numpy as np
import scipy
from scipy import optimize, stats


def spent(kind, alpha, t):
    t = min(max(t, 0.0), 1.0)
    if t == 0:
        return 0.0
    if kind == "power":
        return alpha * t * t
    if kind == "pocock":
        return alpha * math.log(1 + (math.e - 1) * t)
    return 2 - 2 * stats.norm.cdf(stats.norm.ppf(1 - alpha / 2) / math.sqrt(t))


def stay_probability(info, bounds, two_sided):
    """P(|Z_j| < c_j (two-sided) or Z_j < c_j, for every look j given)."""
    k = len(bounds)
    if k == 0:
        return 1.0
    cov = np.array([[math.sqrt(min(info[i], info[j]) / max(info[i], info[j]))
                     for j in range(k)] for i in range(k)])
    upper = np.array(bounds, dtype=float)
    lower = -upper if two_sided else np.full(k, -np.inf)
    return float(stats.multivariate_normal.cdf(upper, mean=np.zeros(k), cov=cov,
                                               lower_limit=lower, maxpts=100_000 * k,
                                               abseps=1e-7, releps=1e-7))


def boundaries(kind, alpha, two_sided, info):
    bounds = []
    budget = info[-1]
    for k, i_k in enumerate(info):
        increment = spent(kind, alpha, i_k / budget) - spent(kind, alpha, info[k - 1] / budget
                                                              if k else 0.0)
        if k == 0:  # one normal: its quantile, exact where the increment is tiny
            bounds.append(float(stats.norm.isf(increment / 2 if two_sided else increment)))
            continue
        before = stay_probability(info[:k], bounds, two_sided)

        def gap(c):
            return before - stay_probability(info[:k + 1], bounds + [c], two_sided) - increment

        bounds.append(optimize.brentq(gap, 0.5, 12.0, xtol=1e-7))
    return bounds


def main():
    info = [5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0]
    cases = []
    for kind in ("power", "obrien_fleming", "pocock"):
        for alpha, two_sided in ((0.025, False), (0.05, True)):
            cases.append({"spending": kind, "alpha": alpha, "two_sided": two_sided,
                          "information": info,
                          "boundaries": boundaries(kind, alpha, two_sided, info)})
    out = {"generator": f"tests/golden/make_group_sequential_fixtures.py, SciPy {scipy.__version__}",
           "cases": cases}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "group_sequential_fixtures.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
