"""The marginal value of a stat point: change in win rate per +1, with intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import stats

__all__ = ["marginal_value"]


def marginal_value(table: pd.DataFrame, x: str, *, rate: str = "a_win",
                   by: str | list[str] | None = None, confidence: float = 0.95) -> pd.DataFrame:
    """Change in a rate per unit of ``x`` between consecutive values of ``x``.

    Parameters
    ----------
    table
        A sweep's results: one row per cell with column ``x``, ``n`` and the rate.
    x
        The swept stat (e.g. ``"a.0.agility"``).
    rate
        ``"a_win"``, ``"b_win"`` or ``"draw"``.
    by
        Other columns to group by (one curve per group).

    Returns
    -------
    DataFrame
        One row per step ``x_from -> x_to``: ``per_point`` (rate difference divided by the
        step) with ``per_point_low``/``per_point_high`` from Newcombe's interval for a
        difference of proportions, plus the overall least-squares ``slope`` of the group and
        its standard error in ``attrs``-free columns ``slope``/``slope_se``.  The slope is
        ordinary least squares (every value of ``x`` counts alike, so cells stuck at 0% or
        100% do not flatten it); its standard error comes from each cell's binomial variance.
        For an exact run's table (``n = 0``: rates without sampling error) the steps are
        exact (``per_point_low = per_point_high = per_point``) and ``slope_se`` is 0.
    """
    groups = [((), table)] if by is None else table.groupby(by)
    rows = []
    for key, g in groups:
        g = g.sort_values(x)
        xs = g[x].to_numpy(float)
        n = g["n"].to_numpy(float)
        exact = bool((n == 0).all())
        if exact:
            p = g[rate].to_numpy(float)
            k = n
            var = np.zeros(len(p))
        else:
            k = np.round(g[rate].to_numpy(float) * n)
            p = k / n
            shrunk = (k + 0.5) / (n + 1)  # a variance that is not 0 at 0% or 100%
            var = shrunk * (1 - shrunk) / n
        if len(xs) >= 2 and np.ptp(xs) > 0:
            c = (xs - xs.mean()) / np.sum((xs - xs.mean()) ** 2)  # slope = sum(c * p)
            slope = float(np.sum(c * p))
            slope_se = float(np.sqrt(np.sum(c ** 2 * var)))
        else:
            slope = slope_se = np.nan
        for i in range(len(xs) - 1):
            step = xs[i + 1] - xs[i]
            if exact:
                low = high = p[i + 1] - p[i]
            else:
                low, high = stats.newcombe(k[i + 1], n[i + 1], k[i], n[i], confidence)
            row = {"x_from": xs[i], "x_to": xs[i + 1], "per_point": (p[i + 1] - p[i]) / step,
                   "per_point_low": float(low) / step, "per_point_high": float(high) / step,
                   "slope": slope, "slope_se": slope_se}
            if by is not None:
                names = [by] if isinstance(by, str) else by
                keys = key if isinstance(key, tuple) else (key,)
                row.update(dict(zip(names, keys, strict=True)))
            rows.append(row)
    return pd.DataFrame(rows)
