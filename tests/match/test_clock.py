"""Correspondence clocks with an injected time source: no test waits."""

from __future__ import annotations

from app.match import clock

CONTROL = clock.TimeControl(budget_seconds=100, increment_seconds=10, cap_seconds=105)


def test_running_side_loses_time_and_others_do_not() -> None:
    st = clock.start(CONTROL, ["a", "b"], "a", now=1000.0)
    assert clock.remaining(st, 1030.0) == {"a": 70.0, "b": 100.0}


def test_charge_adds_increment_capped_and_starts_next_side() -> None:
    st = clock.start(CONTROL, ["a", "b"], "a", now=0.0)
    st = clock.charge(CONTROL, st, "a", now=2.0, next_running="b")
    assert st.remaining["a"] == 105.0  # 98 + 10, capped at 105
    assert st.running == "b" and st.since == 2.0
    assert clock.remaining(st, 12.0) == {"a": 105.0, "b": 90.0}


def test_expiry_is_reported_and_no_increment_revives_a_flag() -> None:
    st = clock.start(CONTROL, ["a", "b"], "a", now=0.0)
    assert clock.expired_sides(st, 100.0) == ["a"]
    st = clock.charge(CONTROL, st, "a", now=150.0, next_running="b")
    assert st.remaining["a"] == 0.0 and st.expired == ["a"]


def test_switch_stops_one_clock_and_starts_another_without_increment() -> None:
    st = clock.start(CONTROL, ["a", "b"], "a", now=0.0)
    st = clock.switch(st, now=5.0, running=None)
    assert clock.remaining(st, 500.0) == {"a": 95.0, "b": 100.0}
