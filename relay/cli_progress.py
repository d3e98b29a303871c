"""The live display of ``relay fuzz``: a progress bar per pass and a summary table (``rich``).

On a terminal, stderr shows one bar per pass (examples against ``--max-examples``, or the
campaign's time against ``--time``), its example count, rate and failures, with the campaign's
events (footprint learnt, failure found, a pass's result) printed above the bars; stdout ends
with a table of the passes. When stderr (or stdout) is not a terminal, or ``rich`` is not
installed, the same information comes as plain lines (progress on stderr every 2 s per pass,
and the summary on stdout: ``relay fuzz: N passes, M examples in T s`` and a line per pass),
which scripts and the tests read."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .oracles.fuzz import PassResult


def _rich_available() -> bool:
    try:
        import rich  # noqa: F401
    except ImportError:
        return False
    return True


def live_wanted() -> bool:
    """Whether the live display is used: stderr is a terminal and ``rich`` is installed."""
    return sys.stderr.isatty() and _rich_available()


class Display:
    """The campaign's progress: ``line`` for events, ``tick`` for counts (live only: without
    a terminal the campaign prints its own periodic lines, and ``ticks`` is ``None``)."""

    def __init__(self, labels: Sequence[str], time_budget: float, max_examples: int | None):
        self.live = live_wanted()
        self.time_budget = time_budget
        self.max_examples = max_examples
        self.start = time.monotonic()
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}
        self._started: dict[str, float] = {}
        if self.live:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[examples]:>7} examples"),
                TextColumn("{task.fields[rate]:>7.1f}/s"),
                TextColumn("{task.fields[status]}"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
            )
            total = float(max_examples) if max_examples is not None else time_budget
            for label in labels:
                self._tasks[label] = self._progress.add_task(
                    label, total=total, start=False, examples=0, rate=0.0, status=""
                )

    def __enter__(self) -> Display:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

    @property
    def ticks(self) -> Any:
        """The ``ticks`` callback for ``run_campaign`` (``None`` without a live display)."""
        return self.tick if self.live else None

    def line(self, text: str) -> None:
        """An event of the campaign."""
        if self._progress is not None:
            self._progress.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=sys.stderr, flush=True)

    def tick(self, label: str, examples: int, failures: int) -> None:
        """``label``'s counts so far."""
        task = self._tasks.get(label)
        if self._progress is None or task is None:
            return
        now = time.monotonic()
        if label not in self._started:  # its clock starts with its first count
            self._started[label] = now
            self._progress.start_task(task)
        done = float(examples) if self.max_examples is not None else now - self.start
        self._progress.update(
            task,
            completed=done,
            examples=examples,
            rate=examples / max(now - self._started[label], 1e-9),
            status="[red]FAILED" if failures else "",
        )

    def finish(self, results: Sequence[PassResult]) -> None:
        """Mark every pass done (its bar full)."""
        if self._progress is None:
            return
        for r in results:
            task = self._tasks.get(r.label)
            if task is not None:
                failed = r.verdict is not None or r.error is not None
                self._progress.update(
                    task,
                    completed=self._progress.tasks[task].total,
                    examples=r.examples,
                    status="[red]FAILED" if failed else "[green]ok",
                )


def print_table(results: Sequence[PassResult]) -> bool:
    """Print the summary as a ``rich`` table when stdout is a terminal; whether it did."""
    if not (sys.stdout.isatty() and _rich_available()):
        return False
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="relay fuzz")
    for name, justify in [("pass", "left"), ("examples", "right"), ("per second", "right"),
                          ("unchanged", "right"), ("result", "left")]:  # fmt: skip
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for r in results:
        rate = r.examples / r.seconds if r.seconds > 0 else 0.0
        if r.verdict is not None:
            where = escape(", ".join(r.paths) or str(r.path))
            result = f"[red]FAILED[/red]: {escape(r.verdict.kind)} -> {where}"
        elif r.error is not None:
            result = f"[red]ERROR[/red]: {escape(r.error)}"
        else:
            result = "[green]ok[/green]"
        table.add_row(escape(r.label), str(r.examples), f"{rate:.1f}", str(r.unchanged), result)
    Console().print(table)
    return True


__all__ = ["Display", "live_wanted", "print_table"]
