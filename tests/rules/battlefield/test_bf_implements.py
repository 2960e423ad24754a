"""Every project section of ``battlefield`` (``BF.*``) names the seed clauses it implements,
and every ruling that cites one cites those clauses too (issue 27 item 2): a legal ruling a
clause shaped cites the clause, not only the project rule that carries it onto the table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from app.rules import registry
from app.rules.battlefield.catalog import CATALOG, OWN, OWN_IDS, PROJECT
from app.rules.battlefield.table import SOURCES
from app.rules.judgement import Judgement
from tests.rules.rule_cases import Case, _setup, load_cases

PROJECT_IDS = [sid for sid in OWN_IDS if OWN.get(sid).source == PROJECT]
CASES = [c for c in load_cases("battlefield") if "invalid_scenario" not in c.data]


def _is_seed(section_id: str) -> bool:
    section = CATALOG.get(section_id)
    return section.source != PROJECT and "project" not in section.source.lower()


def test_every_project_section_names_the_seed_clauses_it_implements() -> None:
    assert PROJECT_IDS and all(sid.startswith("BF.") for sid in PROJECT_IDS)
    for sid in PROJECT_IDS:
        implements = OWN.get(sid).implements
        assert implements, f"{sid} names no seed clause it implements"
        for clause in implements:
            assert clause in CATALOG, f"{sid} implements {clause}, which no catalog lists"
            assert _is_seed(clause), f"{sid} implements {clause}, a project section"
    # the seed's own sections implement nothing: only project rules stand in for clauses
    assert all(not s.implements for s in CATALOG if s.id not in PROJECT_IDS)


def test_citing_a_project_section_cites_its_clauses() -> None:
    j = Judgement(SOURCES)
    out = j.cite("BF.Enter")
    assert [c.section for c in out] == ["BF.Enter", *OWN.get("BF.Enter").implements]
    assert j.cited_ids() == ["BF.Enter", *OWN.get("BF.Enter").implements]
    assert OWN.with_implemented(["BF.Leave", "OZ.Trafficability"]) == [
        "BF.Leave",
        "OZ.Trafficability",
    ]


def _unaccompanied(cited: Iterable[str]) -> list[str]:
    ids = set(cited)
    return [
        f"{sid} without {sorted(set(OWN.get(sid).implements) - ids)}"
        for sid in sorted(ids & set(PROJECT_IDS))
        if not set(OWN.get(sid).implements) <= ids
    ]


def _sections(citations: Iterable[Any]) -> list[str]:
    return [c["section"] if isinstance(c, Mapping) else c for c in citations]


def _answers(case: Case) -> list[tuple[str, list[str]]]:
    """(what, section ids) for the ruling or query answer of a case and each of its parts."""
    rs, options, board, state = _setup(case)
    data = case.data
    if "query" in data:
        spec = rs.queries()[data["query"]["name"]]
        params = spec.params.model_validate(data["query"].get("params") or {})
        if case.expect.get("error"):
            return []
        result = spec.run(board, state, options, params)
        return [("answer", _sections(result.get("citations") or []))]
    if "sealed" in data:
        return []  # the zone part's own resolution: it cites no BF section
    action = rs.parse_action(data["action"])
    ruling = rs.adjudicate(board, state, action, options, list(data.get("dice") or []))
    doc = ruling.model_dump(mode="json")
    out = [("ruling", _sections(doc["citations"]))]
    out += [(f"violation {v['code']}", _sections(v["citations"])) for v in doc["violations"]]
    out += [(f"effect {e['kind']}", _sections(e["citations"])) for e in doc["effects"]]
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_bf_citation_in_a_ruling_comes_with_its_clauses(case: Case) -> None:
    assert registry.get("battlefield").catalog is CATALOG
    for what, cited in _answers(case):
        assert not _unaccompanied(cited), f"{what}: {_unaccompanied(cited)}"
