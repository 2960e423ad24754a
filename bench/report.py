"""Result rows of the benchmarks and their table (printed and written to bench/results.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Row:
    section: str
    name: str
    measured: str
    baseline: str
    ratio: str
    target: str = ""
    met: bool | None = None
    note: str = ""

    def cells(self) -> list[str]:
        verdict = "" if self.met is None else ("met" if self.met else "MISSED")
        return [
            self.name,
            self.measured,
            self.baseline,
            self.ratio,
            self.target,
            verdict,
            self.note,
        ]


HEADER = ["benchmark", "measured", "baseline", "ratio", "target", "", "note"]


def markdown(rows: list[Row]) -> str:
    out: list[str] = []
    section = None
    for row in rows:
        if row.section != section:
            section = row.section
            out += [
                "",
                f"### {section}",
                "",
                "| " + " | ".join(HEADER) + " |",
                "|" + "---|" * len(HEADER),
            ]
        out.append("| " + " | ".join(row.cells()) + " |")
    return "\n".join(out) + "\n"


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms" if seconds < 1 else f"{seconds:.2f} s"
