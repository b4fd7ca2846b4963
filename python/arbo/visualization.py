# SPDX-License-Identifier: MIT
"""Plots of an arbo study with matplotlib (Debian ``python3-matplotlib``).

    import arbo, arbo.visualization as av
    study = arbo.open_study("demo.study")
    av.plot_history(study, out="history.png")    # objective per observation and best so far
    av.plot_slices(study, out="slices.png")      # objective against each parameter
    av.plot_parallel_coordinates(study, out="parallel.png")
    av.plot_surrogate(study, ["x1"], out="surrogate.png")        # mean +- 2 sd along x1
    av.plot_surrogate(study, ["x1", "x2"], out="surrogate2.png")  # contours of mean and sd

Each function takes an open ``arbo.Study`` and returns the matplotlib ``Figure``; with ``out=``
it also writes the figure to that file (the format from its extension). ``size`` is in inches
and ``dpi`` in dots per inch, as matplotlib's. The figures are drawn with the non-interactive
Agg backend's canvas, so they work without a display.

``python3 -m arbo.visualization DIR --out FILE [--kind KIND] [--params a,b] [--size WxH]``
draws one of them from the command line; ``arbo plot`` runs it (its exit codes are the CLI's).
"""

from __future__ import annotations

import math
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

try:
    from matplotlib.figure import Figure
except ImportError as _error:
    _MISSING = ("arbo's plots need matplotlib: install the Debian package python3-matplotlib "
                f"({_error})")
    if __name__ == "__main__":  # `arbo plot`: its documented exit code for a missing tool
        sys.stderr.write(f"arbo: error: {_MISSING}\n")
        sys.exit(7)
    raise ImportError(_MISSING) from _error

__all__ = ["plot_history", "plot_slices", "plot_parallel_coordinates", "plot_surrogate"]

# The exit codes of `python3 -m arbo.visualization`, as the arbo CLI's (README).
_EXIT_USAGE = 2
_EXIT_OUTPUT = 7


def _finish(fig: Figure, out: Optional[str], dpi: int) -> Figure:
    if out is not None:
        fig.savefig(out, dpi=dpi)
    return fig


def _label(study) -> str:
    return "objective (maximize)" if study.maximize else "objective (minimize)"


def _space(study) -> Dict[str, Dict[str, Any]]:
    return {p["name"]: p for p in study.parameters}


def _names(study, params: Optional[Sequence[str]], who: str) -> List[str]:
    names = list(params) if params is not None else list(study.parameter_names)
    space = _space(study)
    unknown = [n for n in names if n not in space]
    if unknown:
        raise ValueError(f"{who}: the study has no parameter {unknown[0]!r} (it has "
                         f"{', '.join(study.parameter_names)})")
    return names


def _positions(values: np.ndarray, p: Dict[str, Any]) -> np.ndarray:
    """A parameter's column as floats: numbers as they are, a categorical's choices at their
    index in the declared order, binary as 0/1; NaN where inactive."""
    if p["type"] == "categorical":
        index = {c: i for i, c in enumerate(p["choices"])}
        return np.array([index.get(v, np.nan) if v is not None else np.nan for v in values],
                        dtype=float)
    return np.asarray(values, dtype=float)


def _ticks(p: Dict[str, Any]) -> Optional[List[str]]:
    """Tick labels of a categorical or binary parameter's positions 0, 1, ..."""
    if p["type"] == "categorical":
        return [str(c) for c in p["choices"]]
    if p["type"] == "binary":
        return ["false", "true"]
    return None


def plot_history(study, out: Optional[str] = None, *, size=(6.4, 4.0), dpi: int = 100) -> Figure:
    """The objective of every complete observation against its id, feasible ones as filled
    dots and infeasible ones as crosses, failed ones as ticks on the lower edge, and the best
    feasible objective so far as a step line (the study's direction)."""
    a = study.arrays()
    ids, status, y, feas = a["id"], a["status"], a["objective"], a["feasible"]
    complete = status == "complete"
    fig = Figure(figsize=size)
    ax = fig.add_subplot()
    ok = complete & feas
    bad = complete & ~feas
    ax.scatter(ids[ok], y[ok], s=16, color="tab:blue", label="feasible")
    if bad.any():
        ax.scatter(ids[bad], y[bad], s=20, marker="x", color="tab:red", label="infeasible")
    failed = status == "failed"
    if failed.any():
        ax.plot(ids[failed], np.zeros(failed.sum()), "|", color="gray", markersize=12,
                transform=ax.get_xaxis_transform(), label="failed")
    best = np.full(len(ids), np.nan)
    current = math.nan
    for k in range(len(ids)):
        if ok[k] and (math.isnan(current) or
                      (y[k] > current if study.maximize else y[k] < current)):
            current = y[k]
        best[k] = current
    if ok.any():
        ax.step(ids, best, where="post", color="black", label="best feasible so far")
    ax.set_xlabel("observation")
    ax.set_ylabel(_label(study))
    ax.set_title(f"{study.name}: history")
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    return _finish(fig, out, dpi)


def plot_slices(study, out: Optional[str] = None, *, params: Optional[Sequence[str]] = None,
                size=None, dpi: int = 100) -> Figure:
    """One panel per parameter (``params``: a subset, in order; default all): the objective of
    every complete observation against that parameter's value, coloured by observation id,
    infeasible ones as crosses. A parameter declared with ``log = true`` gets a log axis;
    categorical ones are placed at their choices' positions, labelled with the choices.
    ``size`` defaults to 3.2 x 2.8 inches per panel, three panels a row."""
    a = study.arrays()
    names = _names(study, params, "plot_slices")
    space = _space(study)
    complete = a["status"] == "complete"
    y, feas, ids = a["objective"], a["feasible"], a["id"]
    cols = min(3, max(1, len(names)))
    rows = math.ceil(len(names) / cols) if names else 1
    fig = Figure(figsize=size if size is not None else (3.2 * cols, 2.8 * rows))
    axes = fig.subplots(rows, cols, squeeze=False)
    scatter = None
    for k, name in enumerate(names):
        ax = axes[k // cols][k % cols]
        p = space[name]
        v = _positions(a["params"][name], p)
        use = complete & ~np.isnan(v)
        ok, bad = use & feas, use & ~feas
        scatter = ax.scatter(v[ok], y[ok], c=ids[ok], cmap="viridis", s=14,
                             vmin=ids.min() if len(ids) else 0,
                             vmax=ids.max() if len(ids) else 1)
        if bad.any():
            ax.scatter(v[bad], y[bad], marker="x", color="tab:red", s=16)
        ticks = _ticks(p)
        if ticks is not None:
            ax.set_xticks(range(len(ticks)))
            ax.set_xticklabels(ticks)
        if p.get("log"):
            ax.set_xscale("log")
        ax.set_xlabel(name)
        if k % cols == 0:
            ax.set_ylabel(_label(study))
    for k in range(len(names), rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    if scatter is not None:
        fig.colorbar(scatter, ax=axes.ravel().tolist(), label="observation")
    fig.suptitle(f"{study.name}: slices")
    return _finish(fig, out, dpi)


def _unit(values: np.ndarray, p: Dict[str, Any]) -> Tuple[np.ndarray, List[Tuple[float, str]]]:
    """A parameter's positions mapped onto [0, 1] of its axis (log for log parameters), and the
    (height, label) ticks of that axis."""
    if p["type"] in ("categorical", "binary"):
        labels = _ticks(p)
        span = max(1, len(labels) - 1)
        return values / span, [(i / span, t) for i, t in enumerate(labels)]
    lo, hi = float(p["low"]), float(p["high"])
    fmt = (lambda v: str(int(v))) if p["type"] == "integer" else (lambda v: f"{v:.3g}")
    ticks = [(0.0, fmt(lo)), (1.0, fmt(hi))]
    if hi <= lo:
        return np.full_like(values, 0.5), [(0.5, fmt(lo))]
    if p.get("log"):
        return (np.log(values) - math.log(lo)) / (math.log(hi) - math.log(lo)), ticks
    return (values - lo) / (hi - lo), ticks


def plot_parallel_coordinates(study, out: Optional[str] = None, *,
                              params: Optional[Sequence[str]] = None, size=(8.0, 4.5),
                              dpi: int = 100) -> Figure:
    """Parallel coordinates of the complete observations: one vertical axis per parameter
    (``params``: a subset, in order; default all) and a last one for the objective, each
    spanning its parameter's range (log-scaled for ``log`` parameters; categorical and binary
    ones at their choices, labelled). Every complete observation is a line through its values,
    coloured by its objective (the colour bar); infeasible ones are dashed and red, the best
    feasible one is drawn thick and black. An inactive parameter leaves a gap in its line.
    The x tick labels are the parameter names and the objective's label."""
    a = study.arrays()
    names = _names(study, params, "plot_parallel_coordinates")
    space = _space(study)
    complete = a["status"] == "complete"
    y, feas, ids = a["objective"][complete], a["feasible"][complete], a["id"][complete]
    columns, axis_ticks = [], []
    for name in names:
        u, t = _unit(_positions(a["params"][name][complete], space[name]), space[name])
        columns.append(u)
        axis_ticks.append(t)
    ylo, yhi = (float(np.min(y)), float(np.max(y))) if len(y) else (0.0, 1.0)
    yu = (y - ylo) / (yhi - ylo) if yhi > ylo else np.full_like(y, 0.5)
    columns.append(yu)
    axis_ticks.append([(0.0, f"{ylo:.4g}"), (1.0, f"{yhi:.4g}")])
    data = np.column_stack(columns) if len(y) else np.zeros((0, len(columns)))
    xs = np.arange(len(columns))

    fig = Figure(figsize=size)
    ax = fig.add_subplot()
    import matplotlib
    from matplotlib import cm, colors

    norm = colors.Normalize(vmin=ylo, vmax=yhi if yhi > ylo else ylo + 1.0)
    cmap = matplotlib.colormaps["viridis_r" if not study.maximize else "viridis"]
    # Worst first, so that the good lines are drawn on top.
    order = np.argsort(-y if not study.maximize else y, kind="stable")
    for i in order:
        if feas[i]:
            ax.plot(xs, data[i], color=cmap(norm(y[i])), linewidth=1.0, alpha=0.8)
        else:
            ax.plot(xs, data[i], color="tab:red", linewidth=0.8, linestyle="--", alpha=0.5)
    best = study.best
    notes = []
    if best is not None and best["id"] in ids:
        i = int(np.nonzero(ids == best["id"])[0][0])
        ax.plot(xs, data[i], color="black", linewidth=2.5, label=f"best feasible (#{best['id']})")
        notes.append(f"black: best feasible, #{best['id']}")
    if (~feas).any():
        notes.append("dashed red: infeasible")
    for x, ticks in zip(xs, axis_ticks):
        ax.axvline(x, color="gray", linewidth=0.8)
        for h, text in ticks:
            ax.annotate(text, (x, h), xytext=(3, 0), textcoords="offset points",
                        fontsize="x-small", va="center", color="dimgray",
                        bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=0.5))
    ax.set_xticks(xs)
    ax.set_xticklabels(names + [_label(study)])
    ax.set_yticks([])
    ax.set_xlim(-0.2, len(columns) - 1 + 0.6)
    ax.set_ylim(-0.05, 1.05)
    fig.colorbar(cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, label=_label(study))
    ax.set_title(f"{study.name}: parallel coordinates, {len(y)} complete observations"
                 + (f"\n({'; '.join(notes)})" if notes else ""), fontsize="medium")
    return _finish(fig, out, dpi)


def _grid(p: Dict[str, Any], n: int) -> List[Any]:
    """Values of a parameter to predict at: n points across a real range (geometric for log),
    every integer of a small range (else n rounded ones), every choice, false and true."""
    t = p["type"]
    if t == "categorical":
        return list(p["choices"])
    if t == "binary":
        return [False, True]
    lo, hi = p["low"], p["high"]
    v = np.geomspace(lo, hi, n) if p.get("log") else np.linspace(lo, hi, n)
    if t == "integer":
        if hi - lo + 1 <= n:
            return list(range(int(lo), int(hi) + 1))
        return sorted({int(round(x)) for x in v})
    return [float(x) for x in v]


def _middle(p: Dict[str, Any]) -> Any:
    t = p["type"]
    if t == "categorical":
        return p["choices"][0]
    if t == "binary":
        return False
    lo, hi = p["low"], p["high"]
    mid = math.sqrt(lo * hi) if p.get("log") else (lo + hi) / 2
    return int(round(mid)) if t == "integer" else mid


def _incumbent(study) -> Optional[Dict[str, Any]]:
    """The best feasible observation's parameters, else those of the best complete one."""
    best = study.best
    if best is not None:
        return dict(best["params"])
    complete = [o for o in study.observations() if o["status"] == "complete"]
    if not complete:
        return None
    pick = (max if study.maximize else min)(complete, key=lambda o: o["objective"])
    return dict(pick["params"])


def plot_surrogate(study, params: Optional[Sequence[str]] = None, out: Optional[str] = None, *,
                   size=None, dpi: int = 100, resolution: Optional[int] = None) -> Figure:
    """The objective surrogate's prediction (``Study.predict``: fitted to the complete
    observations, in the objective's units and direction) along one or two parameters
    (``params``; default the first parameter), the others fixed at the incumbent (the best
    feasible observation, else the best complete one; a parameter it leaves inactive at its
    middle value).

    One parameter: the mean as a line and mean +- 2 standard deviations as a band, the complete
    observations as dots (their other parameters differ, so they need not lie on the line) and
    the incumbent's value as a vertical line; a categorical or binary parameter gets a point
    with an error bar per choice. Two parameters: filled contours of the mean (left) and the
    standard deviation (right) over a grid, with the observations and the incumbent (a star).
    ``resolution``: grid points per axis (default 200 for one parameter, 40 for two).
    Raises arbo.ConfigError for a pipeline without a surrogate, or with a density model (TPE).
    """
    names = list(params) if params is not None else list(study.parameter_names[:1])
    if not 1 <= len(names) <= 2:
        raise ValueError(f"plot_surrogate: give one or two parameters, not {len(names)}")
    names = _names(study, names, "plot_surrogate")
    if len(set(names)) != len(names):
        raise ValueError("plot_surrogate: give two different parameters")
    space = _space(study)
    base = _incumbent(study)
    if base is None:
        study.predict([])  # raises the kernel's error: no surrogate, or nothing to fit
        raise ValueError("plot_surrogate: the study has no complete observation")
    for name, p in space.items():
        base.setdefault(name, _middle(p))
    a = study.arrays()
    complete = a["status"] == "complete"
    y, feas = a["objective"][complete], a["feasible"][complete]
    ylabel = _label(study)
    if len(names) == 1:
        return _surrogate_1d(study, names[0], space[names[0]], base, a, complete, y, feas,
                             ylabel, out, size, dpi, resolution or 200)
    return _surrogate_2d(study, names, space, base, a, complete, y, feas, out, size, dpi,
                         resolution or 40)


def _surrogate_1d(study, name, p, base, a, complete, y, feas, ylabel, out, size, dpi, n):
    grid = _grid(p, n)
    mean, std = study.predict([{**base, name: v} for v in grid])
    fig = Figure(figsize=size if size is not None else (6.4, 4.0))
    ax = fig.add_subplot()
    obs = _positions(a["params"][name][complete], p)
    ticks = _ticks(p)
    if ticks is None:
        x = np.asarray(grid, dtype=float)
        ax.fill_between(x, mean - 2 * std, mean + 2 * std, color="tab:blue", alpha=0.2,
                        label="mean ± 2 sd")
        ax.plot(x, mean, color="tab:blue", label="surrogate mean")
        ax.axvline(float(base[name]), color="black", linestyle=":", label="incumbent")
        if p.get("log"):
            ax.set_xscale("log")
    else:
        x = np.arange(len(grid), dtype=float)
        ax.errorbar(x, mean, yerr=2 * std, fmt="o", color="tab:blue", capsize=4,
                    label="surrogate mean ± 2 sd")
        ax.set_xticks(x)
        ax.set_xticklabels(ticks)
        ax.set_xlim(-0.5, len(grid) - 0.5)
        inc = _positions(np.array([base[name]], dtype=object), p)[0]
        ax.axvline(inc, color="black", linestyle=":", label="incumbent")
    ok = feas & ~np.isnan(obs)
    bad = ~feas & ~np.isnan(obs)
    ax.scatter(obs[ok], y[ok], s=12, color="tab:orange", zorder=3,
               label="observations (other parameters differ)")
    if bad.any():
        ax.scatter(obs[bad], y[bad], s=14, marker="x", color="tab:red", zorder=3,
                   label="infeasible")
    ax.set_xlabel(name)
    ax.set_ylabel(ylabel)
    ax.set_title(f"{study.name}: surrogate along {name}, others at the incumbent",
                 fontsize="medium")
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    return _finish(fig, out, dpi)


def _surrogate_2d(study, names, space, base, a, complete, y, feas, out, size, dpi, n):
    px, py = space[names[0]], space[names[1]]
    gx, gy = _grid(px, n), _grid(py, n)
    points = [{**base, names[0]: u, names[1]: v} for v in gy for u in gx]
    mean, std = study.predict(points)
    shape = (len(gy), len(gx))
    coords = []
    for g, p in ((gx, px), (gy, py)):
        coords.append(np.arange(len(g), dtype=float) if _ticks(p) is not None
                      else np.asarray(g, dtype=float))
    X, Y = np.meshgrid(coords[0], coords[1])
    fig = Figure(figsize=size if size is not None else (11.0, 4.5))
    axes = fig.subplots(1, 2)
    ox = _positions(a["params"][names[0]][complete], px)
    oy = _positions(a["params"][names[1]][complete], py)
    ix = _positions(np.array([base[names[0]]], dtype=object), px)[0]
    iy = _positions(np.array([base[names[1]]], dtype=object), py)[0]
    for ax, values, title in ((axes[0], mean, f"surrogate mean, {_label(study)}"),
                              (axes[1], std, "surrogate standard deviation")):
        filled = ax.contourf(X, Y, values.reshape(shape), levels=20, cmap="viridis")
        fig.colorbar(filled, ax=ax)
        ax.scatter(ox[feas], oy[feas], s=10, color="white", edgecolors="black",
                   linewidths=0.5, label="observations")
        if (~feas).any():
            ax.scatter(ox[~feas], oy[~feas], s=12, marker="x", color="tab:red",
                       label="infeasible")
        ax.scatter([ix], [iy], s=120, marker="*", color="tab:red", edgecolors="black",
                   label="incumbent")
        for axis, p, setter, scale in ((ax.xaxis, px, ax.set_xticks, ax.set_xscale),
                                       (ax.yaxis, py, ax.set_yticks, ax.set_yscale)):
            ticks = _ticks(p)
            if ticks is not None:
                setter(range(len(ticks)), ticks)
            elif p.get("log"):
                scale("log")
        ax.set_xlabel(names[0])
        ax.set_ylabel(names[1])
        ax.set_title(title, fontsize="medium")
    axes[0].legend(loc="best", fontsize="x-small")
    fig.suptitle(f"{study.name}: surrogate over {names[0]} and {names[1]}, others at the "
                 "incumbent")
    return _finish(fig, out, dpi)


_KINDS = ("history", "slices", "parallel", "surrogate")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python3 -m arbo.visualization DIR --out FILE ...`` (what ``arbo plot`` runs). Exit
    codes as the arbo CLI's: 0, 2 usage, 3 configuration (e.g. a surrogate plot of a pipeline
    without a surrogate), 5 study (missing, in use), 7 output not written (or matplotlib
    missing)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="arbo plot", description="Draws a plot of an arbo study into an image file.")
    parser.add_argument("dir", help="study directory")
    parser.add_argument("--out", "-o", required=True,
                        help="image file to write; the format from its extension (png, svg, pdf)")
    parser.add_argument("--kind", choices=_KINDS, default="history",
                        help="history (default), slices, parallel or surrogate")
    parser.add_argument("--params", default=None,
                        help="comma-separated parameter names: those shown (slices, parallel), "
                             "or the one or two the surrogate is drawn along")
    parser.add_argument("--size", default="960x600", help="WIDTHxHEIGHT in pixels")
    parser.add_argument("--dpi", type=int, default=100, help="dots per inch")
    args = parser.parse_args(argv)
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
        if width <= 0 or height <= 0 or args.dpi <= 0:
            raise ValueError
    except ValueError:
        parser.error(f"--size {args.size!r} / --dpi {args.dpi}: expected WIDTHxHEIGHT in "
                     "pixels and dots per inch, all positive (960x600, 100)")
    params = [p.strip() for p in args.params.split(",")] if args.params else None
    if params is not None and args.kind == "history":
        parser.error("--params applies to --kind slices, parallel and surrogate")
    # Agg truncates width x dpi to whole pixels: half a pixel more gives exactly the size asked.
    size = ((width + 0.5) / args.dpi, (height + 0.5) / args.dpi)

    import arbo

    def fail(message: str, code: int) -> int:
        sys.stderr.write(f"arbo: error: {message}\n")
        return code

    try:
        # Read only: a study that `arbo run` is driving can be drawn.
        with arbo.open_study(args.dir, read_only=True) as study:
            if args.kind == "history":
                fig = plot_history(study, size=size, dpi=args.dpi)
            elif args.kind == "slices":
                fig = plot_slices(study, params=params, size=size, dpi=args.dpi)
            elif args.kind == "parallel":
                fig = plot_parallel_coordinates(study, params=params, size=size, dpi=args.dpi)
            else:
                fig = plot_surrogate(study, params, size=size, dpi=args.dpi)
    except arbo.Error as e:
        return fail(str(e), e.exit_code)
    except ValueError as e:
        return fail(str(e), _EXIT_USAGE)
    try:
        fig.savefig(args.out, dpi=args.dpi)
    except ValueError as e:  # an unknown format
        return fail(f"{args.out}: {e}", _EXIT_USAGE)
    except OSError as e:
        return fail(f"cannot write {args.out}: {e.strerror or e}", _EXIT_OUTPUT)
    print(f"wrote {args.out} ({args.kind}, {width}x{height} pixels)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
