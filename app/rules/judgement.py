"""The judgement kit: the one way a ruleset builds a :class:`Ruling`.

A :class:`Judgement` is the per-ruling bookkeeping every ruleset needs: it **cites** the
sections that shaped the outcome, records the **interpretations** relied on (with the option
that selects each and its value in this game), collects **effects** and **rejections** (each
with a stable code, a message, its own citations and where it applies), and **finishes**
into the one :class:`Ruling`. Actions, queries, scenario validation and sealed orders all use
it, so every ruling and every refusal is cited the same way.

The policy (docs/ARCHITECTURE.md, "Rulings"): a refusal lists *every* rule of the source text
that forbids the action, not only the first check that tripped, each with its citation; a
ruling cites every section that shaped its outcome, refused or not; a query result names the
interpretations it relied on.

Pure: no I/O, clock or randomness.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from app.rules.catalog import Catalog, Interpretation
from app.rules.errors import InvalidScenario
from app.rules.ruling import (
    Citation,
    CiteKey,
    Effect,
    InterpretationRef,
    Ruling,
    Violation,
    citation_key,
    effect_of,
    ruling_of,
)

_LEGACY = frozenset({"loc", "msg", "section"})

BoardT = TypeVar("BoardT", bound=BaseModel)
StateT = TypeVar("StateT", bound=BaseModel)
OptionsT = TypeVar("OptionsT", bound=BaseModel)


class Citable(Protocol):
    """Anything that turns a section id into a :class:`Citation` (KeyError if unknown)."""

    def cite(self, section_id: str) -> Citation: ...


class Catalogs:
    """Several catalogs cited as one: a section is cited from the first catalog listing it,
    so a composed ruleset's citations keep their home ruleset."""

    def __init__(self, *catalogs: Catalog) -> None:
        self.catalogs = catalogs
        self.ruleset = catalogs[0].ruleset
        self.implements: dict[str, tuple[str, ...]] = {}
        """Project section -> the source clauses it implements (from the first catalog
        listing the section, as its citation)."""
        for catalog in reversed(catalogs):
            self.implements.update(catalog.implements)

    def __contains__(self, section_id: object) -> bool:
        return any(section_id in c for c in self.catalogs)

    def cite(self, section_id: str) -> Citation:
        return self.cite_keyed(section_id)[1]

    def cite_keyed(self, section_id: str) -> tuple[CiteKey, Citation]:
        """:meth:`cite` with the citation's key."""
        for catalog in self.catalogs:
            if section_id in catalog:
                return catalog.cite_keyed(section_id)
        raise KeyError(section_id)


def _keyed(source: Citable) -> Callable[[str], tuple[CiteKey, Citation]]:
    """A source's citations with their keys: its own ``cite_keyed`` (a catalog's, built once
    per section) or, for another :class:`Citable`, each citation's key computed."""
    keyed: Callable[[str], tuple[CiteKey, Citation]] | None = getattr(source, "cite_keyed", None)
    if keyed is not None:
        return keyed
    cite = source.cite

    def compute(section_id: str) -> tuple[CiteKey, Citation]:
        c = cite(section_id)
        return citation_key(c), c

    return compute


def count_of(n: int, noun: str) -> str:
    """``1 hex``, ``2 hexes``: a count with its noun in the right number (regular plurals;
    nouns ending in s, x, z, ch or sh take ``es``)."""
    if n == 1:
        return f"{n} {noun}"
    plural = noun + ("es" if noun.endswith(("s", "x", "z", "ch", "sh")) else "s")
    return f"{n} {plural}"


def pointer(parts: Iterable[Any]) -> str:
    """``("units", 1, "side")`` -> ``/units/1/side``: an RFC 6901 JSON pointer."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def interpretation_ref(interp: Interpretation, options: BaseModel | None) -> InterpretationRef:
    """The reference a ruling carries: the reading and the option value in force (an
    immutable value, built once per reading and option value)."""
    value = getattr(options, interp.option, None) if interp.option and options else None
    key = (interp.id, interp.reading, interp.option, type(value), value)
    try:
        found = _REFS.get(key)
    except TypeError:  # an unhashable option value: built each time
        found = None
        key = None  # type: ignore[assignment]
    if found is None:
        found = InterpretationRef(
            id=interp.id, text=interp.reading, option=interp.option, value=value
        )
        if key is not None and len(_REFS) < 4096:
            _REFS[key] = found
    return found


_RefKey = tuple[str, str, str | None, type, Any]
_REFS: dict[_RefKey, InterpretationRef] = {}
"""Interpretation references by reading and option value (a pure memo: the same key always
builds the same reference)."""


@dataclass
class Problem:
    """One rule that forbids an action, before a judgement turns it into a cited
    :class:`Violation` (:meth:`Judgement.refuse`): checks return it, judges collect them."""

    code: str
    message: str
    sections: Sequence[str]
    step: int | None = None
    hex: str | None = None
    unit: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


Mark = tuple[dict[CiteKey, Citation], dict[str, InterpretationRef]]
"""What a judgement had cited and relied on at a :meth:`Judgement.checkpoint`."""


class Judgement:
    """One ruling being built: citations, interpretations, effects and rejections.

    ``source`` resolves section ids (a :class:`Catalog` or :class:`Catalogs`); an unknown id
    raises KeyError, so nothing cites a section its catalog does not list.
    ``interpretations`` maps interpretation ids to the catalog's readings; ``options`` are
    the per-game options whose values an interpretation reference reports.
    """

    def __init__(
        self,
        source: Citable,
        interpretations: Mapping[str, Interpretation] | Iterable[Interpretation] = (),
        options: BaseModel | None = None,
    ) -> None:
        self.source = source
        self._cite_keyed = _keyed(source)
        self._implements: Mapping[str, tuple[str, ...]] = getattr(source, "implements", None) or {}
        """A project section's source clauses, cited with it (``RuleSection.implements``)."""
        self.interpretation_by_id: Mapping[str, Interpretation] = (
            interpretations
            if type(interpretations) is dict or isinstance(interpretations, Mapping)
            else {i.id: i for i in interpretations}
        )
        self.options = options
        self._cited: dict[CiteKey, Citation] = {}
        """The citations in first-cited order, by key (equal citations, one entry: the first)."""
        self._relied: dict[str, InterpretationRef] = {}
        self.violations: list[Violation] = []
        self.effects: list[Effect] = []
        self.details: dict[str, Any] = {}
        self._paths: dict[str, list[str | int]] = {}

    # -- citations and readings -----------------------------------------------------------

    def cite(self, *sections: str) -> tuple[Citation, ...]:
        """Cite sections (in first-cited order); returns their citations. A project section
        that implements source clauses brings their citations right after its own."""
        keyed = self._cite_keyed
        cited = self._cited
        implements = self._implements
        out = []
        for s in sections:
            key, c = keyed(s)
            cited.setdefault(key, c)  # one already there keeps its place (and its object)
            out.append(c)
            if implements and s in implements:
                for more in implements[s]:
                    if more not in sections:
                        key, c = keyed(more)
                        cited.setdefault(key, c)
                        out.append(c)
        return tuple(out)

    def cite_all(self, citations: Iterable[Citation]) -> None:
        """Record citations already built (e.g. those of a part's ruling)."""
        cited = self._cited
        for c in citations:
            cited.setdefault(citation_key(c), c)

    def cite_all_keyed(self, keyed: Iterable[tuple[CiteKey, Citation]]) -> None:
        """:meth:`cite_all` for citations with their keys already made (a catalog's
        ``cite_keyed``, kept by a ruleset for a group of sections it cites often)."""
        cited = self._cited
        for key, c in keyed:
            cited.setdefault(key, c)

    def rely(self, *interpretation_ids: str) -> None:
        """Record that the outcome depends on these readings (KeyError if unknown)."""
        for iid in interpretation_ids:
            if iid not in self._relied:
                interp = self.interpretation_by_id[iid]
                self._relied[iid] = interpretation_ref(interp, self.options)

    def checkpoint(self) -> Mark:
        """What is cited and relied on so far (to judge a layer tentatively)."""
        return dict(self._cited), dict(self._relied)

    def restore(self, mark: Mark) -> None:
        """Forget what was cited or relied on since :meth:`checkpoint`."""
        self._cited, self._relied = dict(mark[0]), dict(mark[1])

    def relied_on(self, ref: InterpretationRef) -> None:
        """Record an interpretation reference already built (e.g. from a part's ruling)."""
        self._relied.setdefault(ref.id, ref)

    def citations(self) -> tuple[Citation, ...]:
        return tuple(self._cited.values())

    def cited_ids(self) -> list[str]:
        return [key[1] for key in self._cited]

    def interpretations(self) -> tuple[InterpretationRef, ...]:
        return tuple(self._relied.values())

    def relied_ids(self) -> list[str]:
        return list(self._relied)

    # -- outcomes -------------------------------------------------------------------------

    def effect(
        self,
        kind: str,
        message: str,
        sections: Sequence[str],
        *,
        unit: str | None = None,
        hex: str | None = None,
        step: int | None = None,
        by: Iterable[str] = (),
        details: Mapping[str, Any] | None = None,
        record: bool = True,
    ) -> Effect:
        """Record a consequence (cited) and return it; with ``record=False`` only cite its
        sections (a judge that lists its effects itself at the end)."""
        e = effect_of(
            kind,
            message,
            unit,
            hex,
            step,
            tuple(by),
            self.cite(*sections),
            dict(details) if details else {},
        )
        if record:
            self.effects.append(e)
        return e

    def reject(
        self,
        code: str,
        message: str,
        sections: Sequence[str],
        *,
        unit: str | None = None,
        hex: str | None = None,
        step: int | None = None,
        location: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> Violation:
        """Record one rule that forbids the action: a stable ``code``, a message in our own
        words, the ``sections`` that forbid it (at least one) and where it applies (unit,
        hex, step, or an RFC 6901 ``location`` inside the judged document)."""
        if not sections:
            raise ValueError(f"rejection {code!r} cites no section")
        v = Violation(
            code=code,
            message=message,
            step=step,
            hex=hex,
            unit=unit,
            location=location,
            citations=self.cite(*sections),
            details=dict(details or {}),
        )
        self.violations.append(v)
        return v

    def reject_problem(self, p: Problem) -> Violation:
        """Record a :class:`Problem` as a rejection (:meth:`reject`)."""
        return self.reject(
            p.code, p.message, p.sections, unit=p.unit, hex=p.hex, step=p.step, details=p.details
        )

    def refuse(self, *problems: Problem) -> Ruling:
        """Reject every problem and finish: a refusal whose summary is the first problem's
        message (for checks that return a :class:`Problem` instead of rejecting)."""
        for p in problems:
            self.reject_problem(p)
        return self.finish("", refused_summary=problems[0].message)

    def problem(
        self,
        code: str,
        location: Sequence[str | int],
        message: str,
        sections: Sequence[str],
        **details: Any,
    ) -> Violation:
        """A rejection of a document (scenario, order) at ``location`` (its path parts)."""
        at = pointer(location)
        self._paths[at] = list(location)
        return self.reject(code, message, sections, location=at, details=details)

    def adopt(self, problem: Mapping[str, Any], location: Sequence[str | int]) -> None:
        """Take over a problem another judgement reported (as :meth:`problems` writes it),
        placed at ``location`` in this judgement's document."""
        fields = {k: v for k, v in problem.items() if k not in _LEGACY}
        v = Violation.model_validate({**fields, "location": pointer(location)})
        self._paths[pointer(location)] = list(location)
        self.cite_all(v.citations)
        self.violations.append(v)

    def invalid(
        self,
        location: Sequence[str | int],
        message: str,
        *sections: str,
        code: str | None = None,
    ) -> Violation:
        """A scenario problem at ``location``; the code defaults to
        ``<ruleset>.scenario.invalid_<field>`` (the last named field of the location)."""
        if code is None:
            field = next((p for p in reversed(location) if isinstance(p, str)), "scenario")
            ruleset = getattr(self.source, "ruleset", "")
            code = f"{ruleset}.scenario.invalid_{field}"
        return self.problem(code, location, message, sections)

    def problems(self) -> list[dict[str, Any]]:
        """The rejections as JSON (``code``, ``message``, ``location``, ``citations``…), as
        :class:`~app.rules.base.InvalidScenario` carries them; plus ``loc`` (the location's
        parts), ``msg`` and ``section`` (the first citation), which the rule-case harnesses
        read."""
        out = []
        for v in self.violations:
            d = v.model_dump(mode="json", exclude_none=True)
            d["loc"] = self._paths.get(v.location or "", [])
            d["msg"] = v.message
            d["section"] = v.citations[0].section if v.citations else None
            out.append(d)
        return out

    def invalid_scenario(self, summary: str) -> InvalidScenario:
        """The :class:`~app.rules.errors.InvalidScenario` carrying every problem."""
        first = self.violations[0].message if self.violations else "none"
        return InvalidScenario(
            f"{summary}: {len(self.violations)} problem(s), first: {first}", self.problems()
        )

    def raise_if_refused(self, summary: str) -> None:
        """Raise :meth:`invalid_scenario` if any problem was found."""
        if self.violations:
            raise self.invalid_scenario(summary)

    @property
    def refused(self) -> bool:
        return bool(self.violations)

    def take(self, ruling: Ruling, part: str | None = None) -> Ruling:
        """Fold a part's ruling into this one (its details under ``part`` when given)."""
        self.cite_all(ruling.citations)
        self.violations.extend(ruling.violations)
        self.effects.extend(ruling.effects)
        for ref in ruling.interpretations:
            self.relied_on(ref)
        if part is not None:
            self.details[part] = ruling.details
        return ruling

    def finish(
        self,
        summary: str,
        details: Mapping[str, Any] | None = None,
        *,
        refused_summary: str | None = None,
    ) -> Ruling:
        """The one :class:`Ruling`: legal iff nothing was rejected. A refused ruling's
        summary is ``refused_summary`` or every rejection's message joined."""
        legal = not self.violations
        if not legal:
            summary = refused_summary or "; ".join(v.message for v in self.violations)
        merged = dict(self.details)
        if details:
            merged.update(details)
        return ruling_of(
            legal,
            summary,
            tuple(self.violations),
            tuple(self.effects),
            self.citations(),
            self.interpretations(),
            merged,
        )


class GameJudgement(Judgement, Generic[BoardT, StateT, OptionsT]):
    """A judgement of one position of a game: the kit's bookkeeping plus the board, state,
    per-game options and dice it judges. Every ruleset's rule families take one."""

    options: OptionsT

    def __init__(
        self,
        source: Citable,
        interpretations: Mapping[str, Interpretation] | Iterable[Interpretation],
        board: BoardT,
        state: StateT,
        options: OptionsT,
        dice: Sequence[int] = (),
    ) -> None:
        super().__init__(source, interpretations, options)
        self.board = board
        self.state = state
        self.dice = tuple(dice)
