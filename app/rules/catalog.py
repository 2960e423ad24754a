"""Rule catalogs: every section a ruleset may cite, with a summary in our own words.

The project cites the source texts and never quotes their paragraphs; summaries here are
written for this project.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from app.rules.ruling import Citation, CiteKey, citation_key


class RuleSection(BaseModel):
    """One citable section (or clause) of a source rule text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    title: str
    summary: str
    source: str = ""
    implements: tuple[str, ...] = ()
    """For a project section (a rule of this project, not of the source text): the source
    clauses it implements. Every citation of it is accompanied by theirs
    (:meth:`app.rules.judgement.Judgement.cite`)."""


class Interpretation(BaseModel):
    """A reading chosen where the source text is ambiguous, and the option that flips it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    question: str
    reading: str
    alternative: str
    option: str | None = None
    sections: tuple[str, ...] = ()


class Catalog:
    """An ordered, immutable set of rule sections for one ruleset."""

    def __init__(self, ruleset: str, sections: Iterable[RuleSection]) -> None:
        self.ruleset = ruleset
        self._sections: dict[str, RuleSection] = {}
        for section in sections:
            if section.id in self._sections:
                raise ValueError(f"duplicate catalog section {section.id!r}")
            self._sections[section.id] = section
        # Citations are immutable values: build each once, not once per cited step.
        self._citations = {
            s.id: Citation(ruleset=ruleset, section=s.id, title=s.title)
            for s in self._sections.values()
        }
        self._keyed = {sid: (citation_key(c), c) for sid, c in self._citations.items()}
        self.implements: dict[str, tuple[str, ...]] = {
            s.id: s.implements for s in self._sections.values() if s.implements
        }
        """Project section id -> the source clauses it implements (only those that name any)."""

    def __iter__(self) -> Iterator[RuleSection]:
        return iter(self._sections.values())

    def __len__(self) -> int:
        return len(self._sections)

    def __contains__(self, section_id: object) -> bool:
        return section_id in self._sections

    def get(self, section_id: str) -> RuleSection:
        """Return a section; raise KeyError for an id the catalog does not list."""
        return self._sections[section_id]

    def cite(self, section_id: str) -> Citation:
        """A citation to a listed section (KeyError if it is not listed: no dangling cites)."""
        return self._citations[section_id]

    def cite_keyed(self, section_id: str) -> tuple[CiteKey, Citation]:
        """:meth:`cite` with the citation's key (built once, with the citation)."""
        return self._keyed[section_id]

    def with_implemented(self, section_ids: Iterable[str]) -> list[str]:
        """``section_ids``, each project section followed by the clauses it implements (each
        id once, in first-named order)."""
        out: dict[str, None] = {}
        for sid in section_ids:
            out[sid] = None
            for more in self.implements.get(sid, ()):
                out[more] = None
        return list(out)

    def ids(self) -> list[str]:
        return list(self._sections)

    def in_order(self, section_ids: Iterable[str]) -> list[str]:
        """The listed sections among ``section_ids``, each once, in the catalog's order."""
        wanted = set(section_ids)
        return [s for s in self._sections if s in wanted]


@dataclass(frozen=True)
class RulesText:
    """What a ruleset rules from, declared once (``Ruleset.text``): the source it implements,
    the catalog of its sections and the interpretations it chose where the source is
    ambiguous."""

    source: str
    catalog: Catalog
    interpretations: tuple[Interpretation, ...] = ()
