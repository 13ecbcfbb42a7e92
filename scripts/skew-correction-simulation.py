#!/usr/bin/python3
"""Would a skewness-corrected statistic control the group-sequential design's error under
skew? A simulation behind docs/reference/adaptive.md ("Calibration", skewed gains).

One-sided tests at the design's looks (5, 10, ..., 40 seeds; Kim-DeMets alpha t^2
spending, alpha = 0.05), boundaries simulated under normal gains for each statistic,
then applied to skewed gains (Exp(1) - 1) and heavy-tailed gains (t, 3 df, unit sd):
  t     the t statistic the design uses;
  hall  Hall's (1992) transformation of it, T = sqrt(n)(W + g W^2/3 + g^2 W^3/27 + g/(6n)),
        W = mean/sd, g the sample skewness (Zhou and Dinh 2005's form).
Prints each statistic's false-decision rate per tail. 400,000 paths per scenario, seed 2.
Needs Debian's numpy: /usr/bin/python3 scripts/skew-correction-simulation.py (~1 min).
"""
import numpy as np

LOOKS = np.arange(5, 41, 5)
ALPHA = 0.05
PATHS = 400_000


def statistic(gains, hall):
    columns = []
    for n in LOOKS:
        y = gains[:, :n]
        mean, sd = y.mean(1), y.std(1, ddof=1)
        w = mean / sd
        if hall:
            centred = y - mean[:, None]
            g = (centred**3).mean(1) / (centred**2).mean(1) ** 1.5
            w = w + g * w**2 / 3 + g**2 * w**3 / 27 + g / (6 * n)
        columns.append(np.sqrt(n) * w)
    return np.stack(columns, 1)


def lower_boundaries(null_paths):
    """Each look's boundary spends alpha (n/40)^2 in total by then, among paths still going."""
    spent = ALPHA * (LOOKS / LOOKS[-1]) ** 2
    going = np.ones(len(null_paths), bool)
    boundaries, before = [], 0.0
    for k in range(len(LOOKS)):
        needed = int(round((spent[k] - before) * len(null_paths)))
        before = spent[k]
        values = np.sort(null_paths[going, k])
        boundary = values[min(needed, len(values) - 1)]
        boundaries.append(boundary)
        going &= ~(null_paths[:, k] < boundary)
    return np.array(boundaries)


def main():
    rng = np.random.default_rng(2)
    skewed = lambda: rng.exponential(size=(PATHS, 40)) - 1
    heavy = lambda: rng.standard_t(3, size=(PATHS, 40)) / np.sqrt(3)
    for hall in (False, True):
        b = lower_boundaries(statistic(rng.standard_normal((PATHS, 40)), hall))
        s, h = statistic(skewed(), hall), statistic(heavy(), hall)
        print(f"{'hall' if hall else 't':4}  skewed: lower {(s < b).any(1).mean():.3f} "
              f"upper {(s > -b).any(1).mean():.3f}   t(3): lower {(h < b).any(1).mean():.3f} "
              f"upper {(h > -b).any(1).mean():.3f}")


if __name__ == "__main__":
    main()
