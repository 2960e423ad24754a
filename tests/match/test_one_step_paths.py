"""The paths that play an action give byte-identical rulings, on every rule case (issue 25).

Every rule case with an action (tests/rules/*/cases) is played as a match through the service
(SQLite, the umpire's seat, the case's dice entered as physical dice, the sequence of play
enforced unless the case says its position cannot be reached), and its ruling is compared
across the four paths that play an action -- all of them one call of
:func:`app.rules.play.step`:

1. the **dry run** (``actions.dry_run``) -- for a case without dice, its ruling must be the
   submission's, byte for byte (canonical JSON); with dice it is legality only;
2. the **submission** (``actions.submit_action``): its answer's ruling, and the ruling stored
   with its event, which must be the same bytes;
3. the **audit replay** (``audit.audit_game``): replays the stored log through ``step`` and
   compares each replayed ruling's JSON with the stored one -- no difference;
4. **export verification** (``export.verify_file`` of the umpire's export file) and the
   **what-if** replay (``whatif.replay_under`` with the game's own options): no difference,
   no ruling changed, nothing stopped.

A case refused before the judge (out of sequence: 409) has no ruling to compare; it still
goes through the dry run. One database for the module keeps this at one game per case.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.db.engine import make_engine, make_session_factory
from app.db.uow import AbstractUnitOfWork, SqlAlchemyUnitOfWork
from app.rules.base import UMPIRE
from app.service import actions, audit, export, flow, games
from app.service.boards import BoardCache
from app.service.errors import IllegalAction, OutOfSequence
from app.service.events import all_events
from app.service.pipeline import IfMatch, WriteRequest, load_game
from app.service.whatif import replay_under
from tests.rules.rule_cases import Case, all_cases, before_steps, scenario_of

CASES = [c for c in all_cases() if "action" in c.data and "invalid_scenario" not in c.data]

Uow = Callable[[], AbstractUnitOfWork]


@pytest.fixture(scope="module")
def service(
    sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Uow, BoardCache]]:
    path = tmp_path_factory.mktemp("one-step") / "referee.db"
    shutil.copyfile(sqlite_template, path)
    engine = make_engine(f"sqlite:///{path}")
    factory = make_session_factory(engine)
    try:
        yield (lambda: SqlAlchemyUnitOfWork(factory)), BoardCache()
    finally:
        engine.dispose()


def canonical(ruling: Any) -> str:
    """A ruling (model or JSON) as canonical JSON text: the bytes compared."""
    doc = ruling if isinstance(ruling, dict) else ruling.model_dump(mode="json")
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def test_every_rule_case_is_replayed() -> None:
    assert len(CASES) > 900  # the cases are found (a broken loader would pass vacuously)
    assert {c.ruleset for c in CASES} >= {"zoc", "zoi", "objective-zones", "terrain"}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_four_paths_give_one_ruling(case: Case, service: tuple[Uow, BoardCache]) -> None:
    uow, boards = service
    data = case.data
    created = games.create_game(
        uow(),
        ruleset_id=case.ruleset,
        scenario=scenario_of(case),
        options=data.get("options") or {},
        boards=boards,
        match={"physical_dice": True, "enforce_sequence": "out_of_sequence" not in data},
    )
    gid, umpire = created.id, created.seats[UMPIRE]
    version = 1

    def write() -> WriteRequest:
        return WriteRequest(uow(), gid, umpire, IfMatch(frozenset({version})), None, boards, None)

    for pre in before_steps(case):
        if pre == "advance":
            flow.end_phase(write(), umpire_advance=True)
        else:
            actions.submit_action(write(), actions.SubmitAction(pre))
        version += 1

    action, dice = data["action"], [int(d) for d in data.get("dice") or []]
    dry = actions.dry_run(uow(), gid, action, token=umpire, boards=boards)
    if dry.dice_needed and not dice:
        return  # the case judges the action before its dice are known: the dry run's answer

    entered = dice or None
    try:
        outcome = actions.submit_action(write(), actions.SubmitAction(action, None, entered))
    except OutOfSequence:
        return  # refused before the judge: no ruling to compare
    except IllegalAction as refused:
        submitted = canonical(refused.ruling)
        accepted = False
    else:
        submitted = canonical(json.loads(outcome.body)["ruling"])
        accepted = True
    if not dry.dice_needed:
        assert canonical(dry.ruling) == submitted, "the dry run and the submission differ"
    else:
        assert dry.ruling.legal or not accepted
    if not accepted:
        return

    u = uow()
    with u.begin():
        rows = all_events(u, gid)
        assert canonical(rows[-1].ruling) == submitted, "the stored ruling is not the answer's"
        game = load_game(u, gid, boards)
        what_if = replay_under(game, rows, game.options, {}, UMPIRE)
    assert not what_if.changed and what_if.stopped is None, what_if

    report = audit.audit_game(uow(), gid, boards=boards, token=umpire)
    assert report.ok and not report.differences, report.first_difference

    file = export.export_game(uow(), gid, token=umpire, boards=boards)
    verified = export.verify_file(file.model_dump(mode="json"))
    assert verified.ok and not verified.differences, verified.first_difference
