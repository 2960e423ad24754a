"""Which phase allows which action kind: one declaration, read by the step, the judges and
the offer of what a seat may do now.

A ruleset declares the kinds each phase allows in its :class:`~app.rules.base.PhaseSpec`
(``kinds``; a kind allowed in every phase, e.g. the umpire's, is listed in every phase).
Nothing else in a ruleset says which phase a kind belongs to:

* :func:`allowed_phases` -- the phases that allow a kind, in the order of play;
* :func:`open_kinds` / :func:`allows` -- the kinds a phase allows (``available_actions``
  offers only those);
* :func:`out_of_phase` -- the cited refusal of a kind submitted in a phase that does not
  allow it, worded by the ruleset's :class:`PhaseRule` (its code, sections, message and
  details);
* :func:`refused_before_judge` -- the kit's one check before a kind's judge, in one order:
  the names the action gets wrong (``Kind.names``), then the phase (:func:`out_of_phase`),
  with the reasons that forbid the action whatever the phase (``Kind.despite_phase``)
  placed as the kind declares. :meth:`app.rules.base.Ruleset.adjudicate` runs it, so no
  judge checks the phase (``tests/rules/test_phase_kit.py``).

A ruleset that declares no :class:`PhaseRule` (``Ruleset.phase_rule``) has a kind outside
its phase refused by :func:`app.rules.play.step` before the judge (``out_of_sequence``); so
has a kind its rule lists in ``sequence_only`` (its judge accepts it in any phase).

Pure: no I/O, clock or randomness.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.rules.judgement import Problem

if TYPE_CHECKING:
    from app.rules.base import PhaseSpec
    from app.rules.dispatch import Kind


@dataclass(frozen=True)
class PhaseRule:
    """How a ruleset words the refusal of an action kind outside the phases that allow it.

    ``message`` (or the kind's entry of ``messages``) is a :meth:`str.format` template with
    the fields ``kind`` (the action kind), ``allowed`` (the phases that allow it, joined by
    " or ") and ``phase`` (the phase the game is in). ``details`` names the facts the
    violation's details carry, in order: ``phase`` (the current phase) and ``allowed`` (the
    list of phases that allow the kind)."""

    code: str
    sections: tuple[str, ...]
    message: str = "A {kind} belongs to the {allowed} phase, not {phase}."
    messages: Mapping[str, str] = field(default_factory=dict)
    details: tuple[str, ...] = ("phase", "allowed")
    unit: bool = False
    """Whether the refusal names the action's unit (``Kind.owning_unit``)."""
    sequence_only: tuple[str, ...] = ()
    """Kinds whose phase the rules do not rule on (the judge accepts one in any phase) but
    which the sequence of play still confines to the phases that allow them: in a match
    :func:`app.rules.play.step` refuses one out of its phases as out of sequence (409),
    as for a ruleset without a phase rule."""

    def rules_on(self, kind: str) -> bool:
        """Whether the ruleset's judges rule on this kind's phase (a cited violation)."""
        return kind not in self.sequence_only


def allows(phase: PhaseSpec, kind: str) -> bool:
    """Whether ``phase`` allows the action kind (a phase listing no kinds restricts none)."""
    return not phase.kinds or kind in phase.kinds


def allowed_phases(phases: Iterable[PhaseSpec], kind: str) -> tuple[str, ...]:
    """The ids of the phases that allow ``kind``, in the order of play."""
    return tuple(p.id for p in phases if allows(p, kind))


def open_kinds(phases: Iterable[PhaseSpec], phase_id: str) -> frozenset[str] | None:
    """The kinds the phase ``phase_id`` allows; None when it restricts none."""
    for p in phases:
        if p.id == phase_id:
            return frozenset(p.kinds) if p.kinds else None
    raise KeyError(phase_id)


def is_open(phases: Iterable[PhaseSpec], phase_id: str, kind: str) -> bool:
    """Whether ``kind`` may be played in the phase ``phase_id``."""
    kinds = open_kinds(phases, phase_id)
    return kinds is None or kind in kinds


def out_of_phase(
    rule: PhaseRule,
    phases: Iterable[PhaseSpec],
    phase_id: str,
    kind: str,
    *,
    unit: str | None = None,
) -> Problem | None:
    """The refusal of ``kind`` in the phase ``phase_id`` (None when the phase allows it),
    worded by ``rule``."""
    phases = tuple(phases)
    for p in phases:
        if p.id == phase_id and allows(p, kind):
            return None
    allowed = allowed_phases(phases, kind)
    facts: dict[str, Any] = {"phase": phase_id, "allowed": list(allowed)}
    template = rule.messages.get(kind, rule.message)
    message = template.format(kind=kind, allowed=" or ".join(allowed), phase=phase_id)
    details = {name: facts[name] for name in rule.details}
    return Problem(rule.code, message, list(rule.sections), unit=unit, details=details)


def refused_before_judge(
    rule: PhaseRule,
    phases: Iterable[PhaseSpec],
    phase_id: str,
    kind: Kind[Any, Any, Any, Any, Any],
    ctx: Any,
    action: Any,
) -> tuple[Problem, ...]:
    """What refuses ``action`` before its judge, in the one order (empty: the judge rules).

    In a phase that allows the kind nothing does: the judge rules, its own first checks
    included. Out of it, the first name the action gets wrong (``kind.names``) alone, as the
    rules check those first; else the phase's refusal with every reason that forbids the
    action whatever the phase (``kind.despite_phase``), after it or, with
    ``kind.despite_first``, before it."""
    unit = kind.owning_unit(action) if rule.unit else None
    refusal = out_of_phase(rule, phases, phase_id, str(action.kind), unit=unit)
    if refusal is None:
        return ()
    named = None if kind.names is None else kind.names(ctx, action)
    if named is not None:
        return (named,)
    despite = () if kind.despite_phase is None else tuple(kind.despite_phase(ctx, action))
    if kind.despite_first:
        return (*despite, refusal)
    return (refusal, *despite)
