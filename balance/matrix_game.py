"""Zero-sum matrix games: the value and optimal strategies, one game or a stack at once.

The row player (in pool's exchanges the attacker's side, which maximises) picks row ``a``,
the column player (the defender's side) column ``d``; ``M[a, d]`` is the row player's
payoff.  Pool's exact solver solves its exchanges here, and the analyses their small games
(the metagame's bootstrap replicates, the values of best play's payoff matrices).

Three solvers, fastest first, each checked by a certificate:

* a pure saddle point (``max_a min_d M == min_d max_a M``) -- most exchanges have one;
* a dense tableau simplex on the standard game LP (shift ``M`` positive, then maximise
  ``sum(y)`` subject to ``M y <= 1, y >= 0``; the optimal duals give the row strategy);
  small games (bids 0..pool, so at most 11 x 11 here) solve in a few pivots, about 20x
  faster than a call of :func:`scipy.optimize.linprog`;
* :func:`scipy.optimize.linprog` (HiGHS), used when the simplex result fails its check
  and whenever ``method="linprog"`` is asked for.

Every mixed solution is accepted only with a certificate: ``min_d (x^T M)_d`` and
``max_a (M y)_a`` must agree to :data:`CERT_TOL`, which proves both strategies optimal and
brackets the value.  Informed protocols (one side bids knowing the other's bid) are plain
max-min or min-max, see :func:`solve_informed`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["CERT_TOL", "BatchSolution", "GameSolution", "solve_batch", "solve_game",
           "solve_informed", "solve_sealed"]

CERT_TOL = 1e-11
"""Largest accepted gap between the two sides' guaranteed payoffs."""
TIE_TOL = 1e-12
"""Payoffs closer than this count as equal when choosing among optimal pure bids."""


@dataclass(frozen=True)
class GameSolution:
    """Value and strategies of one exchange.

    ``attack`` and ``defence`` are probability vectors over the bids (for an informed
    protocol the leader's is one-hot); ``attack_response[d]`` / ``defence_response[a]`` is
    the informed side's pure reply to the leader's bid, ``None`` when bids are sealed.
    ``method`` says which solver answered: ``"saddle"``, ``"simplex"``, ``"linprog"`` or
    ``"minimax"``.
    """

    value: float
    attack: np.ndarray
    defence: np.ndarray
    method: str
    attack_response: np.ndarray | None = None
    defence_response: np.ndarray | None = None


def _one_hot(n: int, i: int) -> np.ndarray:
    out = np.zeros(n)
    out[i] = 1.0
    return out


def _saddle(M: np.ndarray) -> GameSolution | None:
    row_min = M.min(axis=1)
    col_max = M.max(axis=0)
    a = int(np.argmax(row_min))
    d = int(np.argmin(col_max))
    if row_min[a] >= col_max[d] - TIE_TOL:
        # smallest optimal bids: the lowest row / column achieving the bounds
        a = int(np.flatnonzero(row_min >= row_min[a] - TIE_TOL)[0])
        d = int(np.flatnonzero(col_max <= col_max[d] + TIE_TOL)[0])
        return GameSolution(float(M[a, d]), _one_hot(M.shape[0], a), _one_hot(M.shape[1], d),
                            "saddle")
    return None


def _certify(M: np.ndarray, x: np.ndarray, y: np.ndarray, method: str) -> GameSolution | None:
    x = np.clip(x, 0.0, None)
    y = np.clip(y, 0.0, None)
    sx, sy = x.sum(), y.sum()
    if not (sx > 0 and sy > 0 and np.isfinite(sx) and np.isfinite(sy)):
        return None
    x, y = x / sx, y / sy
    low = float((x @ M).min())      # the row player guarantees at least this
    high = float((M @ y).max())     # the column player concedes at most this
    if high - low > CERT_TOL:
        return None
    return GameSolution(0.5 * (low + high), x, y, method)


def _simplex(M: np.ndarray) -> GameSolution | None:
    """Dense tableau simplex on ``max 1'y  s.t.  (M + c) y <= 1, y >= 0``.

    Dantzig's rule, switching to Bland's (which cannot cycle) after ``2 (m + n)`` pivots.
    Returns ``None`` if the iteration limit is hit or the certificate fails.
    """
    m, n = M.shape
    shift = 1.0 - float(M.min())
    T = np.zeros((m + 1, n + m + 1))
    T[:m, :n] = M + shift
    T[:m, n:n + m] = np.eye(m)
    T[:m, -1] = 1.0
    T[m, :n] = -1.0
    basis = np.arange(n, n + m)
    bland_after = 2 * (m + n)
    for it in range(20 * (m + n)):
        obj = T[m, :-1]
        if it < bland_after:
            col = int(np.argmin(obj))
            if obj[col] >= -1e-12:
                break
        else:
            neg = np.flatnonzero(obj < -1e-12)
            if not len(neg):
                break
            col = int(neg[0])
        column = T[:m, col]
        pos = column > 1e-12
        if not pos.any():  # unbounded: impossible for a positive matrix
            return None
        ratios = np.full(m, np.inf)
        # right-hand sides are >= 0 in exact arithmetic; clip round-off below zero
        ratios[pos] = np.maximum(T[:m, -1][pos], 0.0) / column[pos]
        best = ratios.min()
        ties = np.flatnonzero(ratios <= best + 1e-12 * max(1.0, best))
        row = int(ties[np.argmin(basis[ties])]) if it >= bland_after else int(ties[0])
        T[row] /= T[row, col]
        factor = T[:, col].copy()
        factor[row] = 0.0
        T -= np.outer(factor, T[row])
        basis[row] = col
    else:
        return None
    y = np.zeros(n + m)
    y[basis] = T[:m, -1]
    x = T[m, n:n + m]
    return _certify(M, x.copy(), y[:n], "simplex")


def _linprog(M: np.ndarray) -> GameSolution:
    """Both players' optimal strategies by two HiGHS linear programs."""
    from scipy.optimize import linprog  # only here: the simplex answers most games

    m, n = M.shape
    # row player: maximise v subject to x^T M >= v, sum x = 1, x >= 0
    c = np.zeros(m + 1)
    c[-1] = -1.0
    res = linprog(c, A_ub=np.hstack([-M.T, np.ones((n, 1))]), b_ub=np.zeros(n),
                  A_eq=np.r_[np.ones(m), 0.0][None, :], b_eq=[1.0],
                  bounds=[(0, None)] * m + [(None, None)], method="highs")
    # column player: minimise u subject to M y <= u, sum y = 1, y >= 0
    c2 = np.zeros(n + 1)
    c2[-1] = 1.0
    res2 = linprog(c2, A_ub=np.hstack([M, -np.ones((m, 1))]), b_ub=np.zeros(m),
                   A_eq=np.r_[np.ones(n), 0.0][None, :], b_eq=[1.0],
                   bounds=[(0, None)] * n + [(None, None)], method="highs")
    if res.status != 0 or res2.status != 0:
        raise RuntimeError(f"linprog failed on a {m}x{n} game: {res.message} / {res2.message}")
    x, y = res.x[:m], res2.x[:n]
    solution = _certify(M, x, y, "linprog")
    if solution is None:  # HiGHS tolerances are ~1e-9: accept its own value
        x = np.clip(x, 0, None) / np.clip(x, 0, None).sum()
        y = np.clip(y, 0, None) / np.clip(y, 0, None).sum()
        solution = GameSolution(0.5 * float((x @ M).min() + (M @ y).max()), x, y, "linprog")
    return solution


def solve_sealed(M: np.ndarray, *, method: str = "auto") -> GameSolution:
    """Value and optimal mixed strategies of the matrix game ``M`` (row player maximises).

    ``method="auto"`` tries a saddle point, then the simplex, then ``linprog``;
    ``method="linprog"`` skips the simplex.
    """
    M = np.asarray(M, dtype=float)
    solution = _saddle(M)
    if solution is not None:
        return solution
    if method == "auto":
        solution = _simplex(M)
        if solution is not None:
            return solution
    return _linprog(M)


def solve_informed(M: np.ndarray, leader: str) -> GameSolution:
    """The exchange when one side bids first and the other replies knowing the bid.

    ``leader="attacker"``: the attacker maximises ``min_d M[a, d]``, the defender replies
    with ``argmin_d M[a, d]`` to each ``a``; ``leader="defender"``: the defender minimises
    ``max_a M[a, d]`` and the attacker replies with ``argmax_a``.  Among equally good bids
    the smallest is chosen (a point left in the pool can only help later).
    """
    M = np.asarray(M, dtype=float)
    if leader == "attacker":
        reply_value = M.min(axis=1)
        reply = np.argmax(M - reply_value[:, None] <= TIE_TOL, axis=1)
        best = reply_value.max()
        a = int(np.flatnonzero(reply_value >= best - TIE_TOL)[0])
        return GameSolution(float(reply_value[a]), _one_hot(M.shape[0], a),
                            _one_hot(M.shape[1], int(reply[a])), "minimax",
                            defence_response=reply.astype(np.int16))
    reply_value = M.max(axis=0)
    reply = np.argmax(reply_value[None, :] - M <= TIE_TOL, axis=0)
    best = reply_value.min()
    d = int(np.flatnonzero(reply_value <= best + TIE_TOL)[0])
    return GameSolution(float(reply_value[d]), _one_hot(M.shape[0], int(reply[d])),
                        _one_hot(M.shape[1], d), "minimax",
                        attack_response=reply.astype(np.int16))


def solve_game(M: np.ndarray, protocol: str, *, method: str = "auto") -> GameSolution:
    """One exchange under a bid protocol (``sealed``, ``attacker_first``, ``defender_first``)."""
    if protocol == "sealed":
        return solve_sealed(M, method=method)
    return solve_informed(M, "attacker" if protocol == "attacker_first" else "defender")


# --- many games at once ----------------------------------------------------------------------


@dataclass
class BatchSolution:
    """Values and strategies of ``b`` games (axis 0), as :class:`GameSolution` per game.

    ``attack_response`` / ``defence_response`` are ``None`` unless that side replies.
    ``methods`` counts the solver that answered each game.
    """

    value: np.ndarray
    attack: np.ndarray
    defence: np.ndarray
    attack_response: np.ndarray | None
    defence_response: np.ndarray | None
    methods: dict[str, int]


def _first(mask: np.ndarray, axis: int) -> np.ndarray:
    """Index of the first True along ``axis``."""
    return np.argmax(mask, axis=axis)


def _batch_simplex(M: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The tableau simplex of :func:`_simplex` run on ``b`` games in lockstep (Dantzig's
    rule; a game that cycles or stalls is reported as failed and solved one by one).

    Returns ``ok`` (certificate passed), ``value``, row and column strategies.
    """
    b, m, n = M.shape
    shift = 1.0 - M.min(axis=(1, 2))
    T = np.zeros((b, m + 1, n + m + 1))
    T[:, :m, :n] = M + shift[:, None, None]
    T[:, :m, n:n + m] = np.eye(m)
    T[:, :m, -1] = 1.0
    T[:, m, :n] = -1.0
    basis = np.tile(np.arange(n, n + m), (b, 1))
    failed = np.zeros(b, bool)
    rows = np.arange(m)
    for _ in range(4 * (m + n)):
        obj = T[:, m, :-1]
        col = obj.argmin(axis=1)
        active = (obj[np.arange(b), col] < -1e-12) & ~failed
        if not active.any():
            break
        ia = np.flatnonzero(active)
        c = col[ia]
        column = T[ia[:, None], rows[None, :], c[:, None]]
        rhs = np.maximum(T[ia, :m, -1], 0.0)
        pos = column > 1e-12
        ratios = np.where(pos, rhs / np.where(pos, column, 1.0), np.inf)
        r = ratios.argmin(axis=1)
        bounded = pos.any(axis=1)
        failed[ia[~bounded]] = True
        ia, c, r = ia[bounded], c[bounded], r[bounded]
        prow = T[ia, r, :] / T[ia, r, c][:, None]
        colv = T[ia, :, c]
        T[ia] -= colv[:, :, None] * prow[:, None, :]
        T[ia, r, :] = prow
        basis[ia, r] = c
    else:
        obj = T[:, m, :-1]
        failed |= obj.min(axis=1) < -1e-12
    y = np.zeros((b, n + m))
    np.put_along_axis(y, basis, T[:, :m, -1], axis=1)
    x = np.clip(T[:, m, n:n + m], 0.0, None)
    y = np.clip(y[:, :n], 0.0, None)
    sx, sy = x.sum(axis=1), y.sum(axis=1)
    good = (sx > 0) & (sy > 0) & np.isfinite(sx) & np.isfinite(sy) & ~failed
    x = x / np.where(good, sx, 1.0)[:, None]
    y = y / np.where(good, sy, 1.0)[:, None]
    low = np.einsum("ba,bad->bd", x, M).min(axis=1)
    high = np.einsum("bad,bd->ba", M, y).max(axis=1)
    ok = good & (high - low <= CERT_TOL)
    return ok, 0.5 * (low + high), x, y


def solve_batch(M: np.ndarray, protocol: str, *, method: str = "auto") -> BatchSolution:
    """Solve ``b`` exchanges ``M[b]`` (rows: the maximising attacker) at once.

    Sealed bids: pure saddle points by array operations, the rest by the lockstep simplex,
    any game failing its certificate by :func:`solve_sealed` one at a time (``method=
    "linprog"``: every non-saddle game by ``linprog``).  Informed protocols: max-min or
    min-max by array operations.  Among equally good bids the smallest is chosen.
    """
    b, m, n = M.shape
    counts = {"saddle": 0, "simplex": 0, "linprog": 0, "minimax": 0}
    if protocol == "attacker_first":
        reply_value = M.min(axis=2)
        reply = _first(M - reply_value[:, :, None] <= TIE_TOL, axis=2)
        best = reply_value.max(axis=1)
        a = _first(reply_value >= best[:, None] - TIE_TOL, axis=1)
        counts["minimax"] = b
        return BatchSolution(reply_value[np.arange(b), a], np.eye(m)[a],
                             np.eye(n)[reply[np.arange(b), a]], None, reply.astype(np.int16),
                             counts)
    if protocol == "defender_first":
        reply_value = M.max(axis=1)
        reply = _first(reply_value[:, None, :] - M <= TIE_TOL, axis=1)
        best = reply_value.min(axis=1)
        d = _first(reply_value <= best[:, None] + TIE_TOL, axis=1)
        counts["minimax"] = b
        return BatchSolution(reply_value[np.arange(b), d], np.eye(m)[reply[np.arange(b), d]],
                             np.eye(n)[d], reply.astype(np.int16), None, counts)
    row_min = M.min(axis=2)
    col_max = M.max(axis=1)
    maximin = row_min.max(axis=1)
    minimax = col_max.min(axis=1)
    saddle = maximin >= minimax - TIE_TOL
    a = _first(row_min >= maximin[:, None] - TIE_TOL, axis=1)
    d = _first(col_max <= minimax[:, None] + TIE_TOL, axis=1)
    value = M[np.arange(b), a, d]
    attack = np.eye(m)[a]
    defence = np.eye(n)[d]
    counts["saddle"] = int(saddle.sum())
    rest = np.flatnonzero(~saddle)
    if len(rest):
        if method == "auto":
            ok, v, x, y = _batch_simplex(M[rest])
            good = rest[ok]
            value[good], attack[good], defence[good] = v[ok], x[ok], y[ok]
            counts["simplex"] += int(ok.sum())
            rest = rest[~ok]
        for g in rest:
            sol = solve_sealed(M[g], method=method)
            value[g], attack[g], defence[g] = sol.value, sol.attack, sol.defence
            counts[sol.method] += 1
    return BatchSolution(value, attack, defence, None, None, counts)
