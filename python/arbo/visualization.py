# SPDX-License-Identifier: MIT
"""Plots of an arbo study with matplotlib (Debian ``python3-matplotlib``).

    import arbo, arbo.visualization as av
    study = arbo.open_study("demo.study")
    av.plot_history(study, out="history.png")    # objective per observation and best so far
    av.plot_slices(study, out="slices.png")      # objective against each parameter

Each function takes an open ``arbo.Study`` and returns the matplotlib ``Figure``; with ``out=``
it also writes the figure to that file (the format from its extension). The figures are drawn
with the non-interactive Agg backend's canvas, so they work without a display.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_history", "plot_slices"]


def _finish(fig: Figure, out: Optional[str], dpi: int) -> Figure:
    if out is not None:
        fig.savefig(out, dpi=dpi)
    return fig


def _label(study) -> str:
    return "objective (maximize)" if study.maximize else "objective (minimize)"


def _log_parameters(study) -> set:
    # The resolved pipeline declares the parameters of an external-function study; a problem
    # plugin's own space is not in it (no log axes then).
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        return set()
    problem = tomllib.loads(study.pipeline).get("problem", {})
    return {p["name"] for p in problem.get("parameters", []) if p.get("log")}


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
                dpi: int = 100) -> Figure:
    """One panel per parameter (``params``: a subset, in order; default all): the objective of
    every complete observation against that parameter's value, coloured by observation id,
    infeasible ones as crosses. A parameter declared with ``log = true`` gets a log axis;
    categorical ones are placed at their choices' positions, labelled with the choices."""
    a = study.arrays()
    names = list(params) if params is not None else list(study.parameter_names)
    unknown = [n for n in names if n not in a["params"]]
    if unknown:
        raise ValueError(f"plot_slices: the study has no parameter {unknown[0]!r}")
    log_names = _log_parameters(study)
    complete = a["status"] == "complete"
    y, feas, ids = a["objective"], a["feasible"], a["id"]
    cols = min(3, max(1, len(names)))
    rows = math.ceil(len(names) / cols) if names else 1
    fig = Figure(figsize=(3.2 * cols, 2.8 * rows))
    axes = fig.subplots(rows, cols, squeeze=False)
    scatter = None
    for k, name in enumerate(names):
        ax = axes[k // cols][k % cols]
        v = a["params"][name]
        ticks = None
        if v.dtype == object:  # categorical: position = index of the choice
            choices = sorted({c for c in v[complete] if c is not None}, key=str)
            pos = {c: i for i, c in enumerate(choices)}
            v = np.array([pos.get(c, np.nan) if c is not None else np.nan for c in v])
            ticks = choices
        else:
            v = v.astype(float)
        use = complete & ~np.isnan(v)
        ok, bad = use & feas, use & ~feas
        scatter = ax.scatter(v[ok], y[ok], c=ids[ok], cmap="viridis", s=14,
                             vmin=ids.min() if len(ids) else 0,
                             vmax=ids.max() if len(ids) else 1)
        if bad.any():
            ax.scatter(v[bad], y[bad], marker="x", color="tab:red", s=16)
        if ticks is not None:
            ax.set_xticks(range(len(ticks)))
            ax.set_xticklabels([str(t) for t in ticks])
        if name in log_names:
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
