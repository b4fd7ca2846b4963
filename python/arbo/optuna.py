# SPDX-License-Identifier: MIT
"""An Optuna sampler that proposes with an arbo pipeline.

Switching an Optuna script to arbo is one line::

    import optuna
    from arbo.optuna import ArboSampler

    sampler = ArboSampler(pipeline="configs/c-tpe.toml", constraints_func=cons, seed=1)
    study = optuna.create_study(sampler=sampler)   # was: sampler=TPESampler(...)
    study.optimize(objective, n_trials=30)

How Optuna's define-by-run maps onto an arbo study:

* The arbo study is created lazily, when the first trial *completes*: its distributions are the
  search space, and its ``constraints_func`` values give the number of black-box constraints.
  Until then, trials are sampled by the fallback sampler (``RandomSampler``). The trial that
  defined the space is then recorded in arbo as a point it did not propose
  (``Study.tell_point``, origin ``tell``), so n completed trials are n observations; trials
  that failed before it are not (their space is unknown to arbo).
* From then on the relative search space is that first trial's distributions (those arbo
  supports): ``sample_relative`` asks arbo for the whole point. A parameter outside it (a new
  one, a conditional one, or an unsupported distribution: a float or int with ``step`` other
  than 1, a single-valued one) is sampled independently by the fallback sampler, as Optuna's own
  TPE and CMA-ES samplers do; arbo does not see it.
* ``FloatDistribution`` becomes a ``real`` parameter (``log`` kept), ``IntDistribution`` with
  step 1 an ``integer`` one (``log`` kept), ``CategoricalDistribution`` a ``categorical`` one
  whose choices are the choices' ``str`` (prefixed by their index when two would coincide); the
  values handed back to Optuna are the original choice objects.
* ``constraints_func`` is called in ``after_trial`` exactly as Optuna's TPE sampler calls it
  (complete and pruned trials; the values stored in the trial's system attribute
  ``"constraints"``); its values become arbo's black-box constraints ``c0 .. c{k-1}`` with sense
  ``<=`` and threshold 0, Optuna's convention (feasible iff every value is <= 0).
* A complete trial is told to arbo with its value and constraints; a failed or pruned one is
  recorded as a failed observation with a reason. Trials with parameters fixed by
  ``study.enqueue_trial`` are not proposed by arbo; they are recorded with ``tell_point`` when
  every parameter of arbo's space has a value arbo accepts, and left out otherwise.
* The arbo study lives in ``study_dir`` (by default a temporary directory removed when the
  sampler is garbage-collected); give a path to keep it and inspect it with ``arbo show``. Its
  budget is set large: Optuna's ``n_trials``/``timeout`` decide when to stop.
* One process drives the arbo study (it holds the study's lock): threads of one process
  (``n_jobs > 1``) share it through a lock, but several processes sharing an Optuna storage
  would each need their own sampler and study directory.
* Multi-objective studies are refused (arbo optimizes one objective).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import threading
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence

import optuna
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)
from optuna.samplers import BaseSampler, RandomSampler
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

import arbo

__all__ = ["ArboSampler"]

# Optuna's system attribute for constraint values (optuna.samplers._base._CONSTRAINTS_KEY in
# 3.x); spelled here rather than imported from a private module.
_CONSTRAINTS_KEY = "constraints"
# The arbo observation id of a trial that arbo proposed.
_ID_KEY = "arbo:observation_id"
# Effectively unlimited: Optuna's n_trials/timeout end the study, not arbo's budget.
_BUDGET = 1_000_000_000
# Tables the sampler generates; a user pipeline must not contain them.
_GENERATED = re.compile(r"^\s*\[\[?\s*(problem|black_box_constraints)\b", re.MULTILINE)


def _toml_str(s: str) -> str:
    # A JSON string is a valid TOML basic string for the characters it escapes.
    return json.dumps(s, ensure_ascii=False)


def _toml_num(v: float) -> str:
    return repr(float(v))


class _Param:
    """One Optuna distribution as an arbo parameter, with the mapping of values back."""

    def __init__(self, name: str, dist: BaseDistribution):
        self.name = name
        self.dist = dist
        self.labels: List[str] = []
        if isinstance(dist, CategoricalDistribution):
            labels = [str(c) for c in dist.choices]
            if len(set(labels)) != len(labels):
                labels = [f"{i}:{c}" for i, c in enumerate(dist.choices)]
            self.labels = labels

    @staticmethod
    def supported(dist: BaseDistribution) -> bool:
        if isinstance(dist, FloatDistribution):
            return dist.step is None and dist.low < dist.high
        if isinstance(dist, IntDistribution):
            return dist.step == 1 and dist.low < dist.high
        if isinstance(dist, CategoricalDistribution):
            return len(dist.choices) >= 2
        return False

    def toml(self) -> str:
        d = self.dist
        lines = ["[[problem.parameters]]", f"name = {_toml_str(self.name)}"]
        if isinstance(d, FloatDistribution):
            lines += ['type = "real"', f"low = {_toml_num(d.low)}", f"high = {_toml_num(d.high)}"]
            if d.log:
                lines.append("log = true")
        elif isinstance(d, IntDistribution):
            lines += ['type = "integer"', f"low = {int(d.low)}", f"high = {int(d.high)}"]
            if d.log:
                lines.append("log = true")
        else:
            choices = ", ".join(_toml_str(c) for c in self.labels)
            lines += ['type = "categorical"', f"choices = [{choices}]"]
        return "\n".join(lines) + "\n"

    def to_arbo(self, value: Any) -> Any:
        """An Optuna value of this distribution as arbo's user value; None if it is not one."""
        d = self.dist
        try:
            if isinstance(d, FloatDistribution):
                v = float(value)
                return v if d.low <= v <= d.high else None
            if isinstance(d, IntDistribution):
                v = int(value)
                return v if d.low <= v <= d.high else None
            return self.labels[list(d.choices).index(value)]
        except (TypeError, ValueError):
            return None

    def to_optuna(self, value: Any) -> Any:
        d = self.dist
        if isinstance(d, FloatDistribution):
            return min(max(float(value), d.low), d.high)
        if isinstance(d, IntDistribution):
            return min(max(int(round(value)), d.low), d.high)
        return d.choices[self.labels.index(value)]


class ArboSampler(BaseSampler):
    """An Optuna sampler whose proposals come from an arbo pipeline (see the module's doc).

    Args:
        pipeline: a pipeline file or a TOML string with arbo's method tables
            ([initial_design], [surrogate], [acquisition], [inner_solver], ...) and optionally
            [study] name/time_limit; no [problem] or [[black_box_constraints]], which the
            sampler generates from Optuna's distributions and ``constraints_func``. ``None``:
            arbo's defaults.
        constraints_func: as Optuna's TPESampler: maps a FrozenTrial to a sequence of floats,
            feasible iff all are <= 0. Called after each complete or pruned trial.
        seed: ``[study] seed`` of the arbo study, and the fallback sampler's seed.
        study_dir: where the arbo study is created (must not hold a study). ``None``: a
            temporary directory, removed with the sampler.
        overrides: extra ``arbo run --set`` style overrides (``"surrogate.gamma_scale=0.5"``).
    """

    def __init__(
        self,
        pipeline: Optional[str] = None,
        *,
        constraints_func: Optional[Callable[[FrozenTrial], Sequence[float]]] = None,
        seed: Optional[int] = None,
        study_dir: Optional[str] = None,
        overrides: Sequence[str] = (),
    ):
        self._pipeline_text = self._read_pipeline(pipeline)
        self._constraints_func = constraints_func
        self._seed = seed
        self._overrides = list(overrides)
        self._tmpdir: Optional[str] = None
        if study_dir is None:
            self._tmpdir = tempfile.mkdtemp(prefix="arbo-optuna-")
            study_dir = os.path.join(self._tmpdir, "study")
        self._study_dir = str(study_dir)
        self._fallback = RandomSampler(seed=seed)
        self._study: Optional[arbo.Study] = None
        self._params: Dict[str, _Param] = {}
        self._space: Dict[str, BaseDistribution] = {}
        self._n_constraints = 0
        self._lock = threading.RLock()
        self._closed = False

    @staticmethod
    def _read_pipeline(pipeline: Optional[str]) -> str:
        if pipeline is None:
            return ""
        if "\n" not in pipeline and "=" not in pipeline and os.path.exists(pipeline):
            with open(pipeline, encoding="utf-8") as f:
                text = f.read()
        else:
            text = pipeline
        m = _GENERATED.search(text)
        if m:
            raise ValueError(
                f"ArboSampler: the pipeline must not contain a [{m.group(1)}] table: the sampler "
                "generates it from Optuna's distributions and constraints_func"
            )
        return text

    @property
    def arbo_study(self) -> Optional[arbo.Study]:
        """The arbo study, once the first trial has completed (None before)."""
        return self._study

    @property
    def study_dir(self) -> str:
        return self._study_dir

    def close(self) -> None:
        """Closes the arbo study (releasing its lock, so that ``arbo.open_study`` or the CLI
        can open it) and removes the temporary study directory, if the sampler made one. The
        sampler cannot propose with arbo afterwards."""
        with self._lock:
            if self._study is not None:
                self._study.close()
                self._study = None
                self._space = {}
            if self._tmpdir is not None:
                shutil.rmtree(self._tmpdir, ignore_errors=True)
                self._tmpdir = None
            self._closed = True

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    # --- the arbo study -------------------------------------------------------------------

    def _build_study(self, study: optuna.Study, trial: FrozenTrial, n_constraints: int) -> None:
        params = {
            name: _Param(name, d)
            for name, d in trial.distributions.items()
            if _Param.supported(d)
        }
        if not params:
            return  # nothing for arbo to propose; stay on the fallback sampler
        parts = [self._pipeline_text.rstrip() + "\n\n" if self._pipeline_text else ""]
        parts.append('[problem]\ncommand = ["false"]\n\n')
        parts += [p.toml() + "\n" for p in params.values()]
        for k in range(n_constraints):
            parts.append(
                f'[[black_box_constraints]]\nname = "c{k}"\nsense = "<="\nthreshold = 0.0\n\n'
            )
        direction = "maximize" if study.direction == StudyDirection.MAXIMIZE else "minimize"
        overrides = [f"study.direction={_toml_str(direction)}", f"study.budget={_BUDGET}"]
        if self._seed is not None:
            overrides.append(f"study.seed={int(self._seed)}")
        if not re.search(r"^\s*name\s*=", self._study_section(), re.MULTILINE):
            overrides.append(f"study.name={_toml_str(study.study_name)}")
        self._study = arbo.create_study(
            self._study_dir, toml="".join(parts), overrides=overrides + self._overrides
        )
        self._params = params
        self._space = {name: p.dist for name, p in params.items()}
        self._n_constraints = n_constraints

    def _study_section(self) -> str:
        m = re.search(r"^\s*\[study\]\s*$(.*?)(?=^\s*\[|\Z)", self._pipeline_text,
                      re.MULTILINE | re.DOTALL)
        return m.group(1) if m else ""

    # --- BaseSampler ----------------------------------------------------------------------

    def reseed_rng(self) -> None:
        self._fallback.reseed_rng()

    def infer_relative_search_space(
        self, study: optuna.Study, trial: FrozenTrial
    ) -> Dict[str, BaseDistribution]:
        if len(study.directions) > 1:
            raise ValueError(
                "ArboSampler cannot be used for multi-objective optimization: arbo optimizes one "
                "objective; create the Optuna study with a single direction"
            )
        if "fixed_params" in trial.system_attrs:
            return {}  # enqueued: Optuna uses the given values, arbo proposes nothing
        return dict(self._space)

    def sample_relative(
        self, study: optuna.Study, trial: FrozenTrial, search_space: Dict[str, BaseDistribution]
    ) -> Dict[str, Any]:
        if not search_space or self._study is None:
            return {}
        with self._lock:
            id, values = self._study.ask()
        study._storage.set_trial_system_attr(trial._trial_id, _ID_KEY, int(id))
        return {
            name: self._params[name].to_optuna(values[name])
            for name in search_space
            if name in values
        }

    def sample_independent(
        self,
        study: optuna.Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        return self._fallback.sample_independent(study, trial, param_name, param_distribution)

    def after_trial(
        self,
        study: optuna.Study,
        trial: FrozenTrial,
        state: TrialState,
        values: Optional[Sequence[float]],
    ) -> None:
        constraints = None
        if self._constraints_func is not None and state in (
            TrialState.COMPLETE,
            TrialState.PRUNED,
        ):
            constraints = self._call_constraints_func(study, trial)
        with self._lock:
            if self._study is None:
                if state == TrialState.COMPLETE and not self._closed:
                    self._build_study(study, trial, len(constraints or ()))
                    if self._study is not None:
                        self._tell(study, trial, None, state, values, constraints)
                return
            id = study._storage.get_trial_system_attrs(trial._trial_id).get(_ID_KEY)
            # A trial arbo did not propose (enqueued) is recorded as a told point.
            self._tell(study, trial, None if id is None else int(id), state, values, constraints)

    def _call_constraints_func(self, study: optuna.Study, trial: FrozenTrial):
        # As optuna.samplers._base._process_constraints_after_trial (Optuna 3.1): the values,
        # or None if constraints_func raised (which propagates), stored on the trial.
        constraints = None
        try:
            con = self._constraints_func(trial)
            if any(v != v for v in con):
                raise ValueError("Constraint values cannot be NaN.")
            if not isinstance(con, (tuple, list)):
                warnings.warn(
                    f"Constraints should be a sequence of floats but got {type(con).__name__}."
                )
            constraints = tuple(float(v) for v in con)
        finally:
            study._storage.set_trial_system_attr(trial._trial_id, _CONSTRAINTS_KEY, constraints)
        return constraints

    def _told_params(self, trial: FrozenTrial) -> Optional[Dict[str, Any]]:
        """The trial's values of arbo's space as arbo values, or None if one is missing or
        outside it (a trial enqueued with other values)."""
        out = {}
        for name, param in self._params.items():
            if name not in trial.params or trial.distributions.get(name) != param.dist:
                return None
            value = param.to_arbo(trial.params[name])
            if value is None:
                return None
            out[name] = value
        return out

    def _tell(self, study, trial, id, state, values, constraints) -> None:
        if id is None:
            # Not proposed by arbo: recorded as a point of its own, when arbo's space holds it.
            params = self._told_params(trial)
            if params is None:
                return
            study_ = self._study

            class _Point:
                """tell/tell_failed of a told point, with the signatures of a pending one's."""

                def tell(self, _id, objective, constraints=None):
                    study_.tell_point(params, objective, constraints=constraints)

                def tell_failed(self, _id, reason):
                    study_.tell_point_failed(params, reason)

            target = _Point()
        else:
            target = self._study
        if state == TrialState.COMPLETE:
            cons = {}
            if self._n_constraints:
                if constraints is None or len(constraints) != self._n_constraints:
                    got = "no" if constraints is None else str(len(constraints))
                    target.tell_failed(
                        id,
                        f"Optuna trial {trial.number}: constraints_func returned {got} values, "
                        f"the study has {self._n_constraints}",
                    )
                    return
                cons = {f"c{k}": v for k, v in enumerate(constraints)}
            try:
                target.tell(id, float(values[0]), constraints=cons)
            except arbo.ConfigError as e:  # e.g. an infinite value: arbo records nothing
                target.tell_failed(id, f"Optuna trial {trial.number}: {e}")
        elif state == TrialState.PRUNED:
            target.tell_failed(id, f"Optuna trial {trial.number} was pruned")
        else:
            # Optuna does not hand the exception to samplers; its log names it.
            target.tell_failed(
                id,
                f"Optuna trial {trial.number} failed (the objective raised or returned an "
                "invalid value)",
            )
