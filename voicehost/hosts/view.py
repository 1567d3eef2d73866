"""The ``--large`` terminal view: big, plain status for low-vision players.

Generic on purpose (any host can use it): the host gives a list of
``(label, value)`` rows and the lines it announces; the view shows the rows
in a large bold table and the last few lines underneath. Nothing is shown
only in colour (design.md 4.3): every value is text, and everything shown
is also spoken by the host. ``rich`` is imported lazily so ``voicehost
--help`` stays light.
"""

from __future__ import annotations

from typing import Any, Sequence


class LargeView:
    """A live full-width panel, refreshed by :meth:`update` and :meth:`add_line`."""

    def __init__(self, title: str, lines: int = 4, console: Any = None):
        from rich.console import Console
        from rich.live import Live

        self.title = title
        self.max_lines = lines
        self.rows: list[tuple[str, str]] = []
        self.lines: list[str] = []
        self.console = console or Console()
        self._live = Live(self._render(), console=self.console, auto_refresh=False,
                          transient=False)
        self._started = False

    def __enter__(self) -> "LargeView":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        if not self._started:
            self._live.start()
            self._started = True

    def stop(self) -> None:
        if self._started:
            self._live.update(self._render(), refresh=True)
            self._live.stop()
            self._started = False

    def update(self, rows: Sequence[tuple[str, str]]) -> None:
        rows = [(str(a), str(b)) for a, b in rows]
        if rows != self.rows:
            self.rows = rows
            self._refresh()

    def add_line(self, line: Any) -> None:
        """Show an announced line (a :class:`~voicehost.hosts.announce.Line` or text)."""
        self.lines.append(getattr(line, "text", str(line)))
        self.lines = self.lines[-self.max_lines:]
        self._refresh()

    def _refresh(self) -> None:
        if self._started:
            self._live.update(self._render(), refresh=True)

    def _render(self):
        from rich.console import Group
        from rich.panel import Panel
        from rich.table import Table
        from rich.text import Text

        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", style="bold")
        table.add_column(style="bold")
        for label, value in self.rows:
            table.add_row(Text(label.upper() + ":"), Text(value))
        said = Text("\n".join(f"> {line}" for line in self.lines), style="bold")
        return Panel(Group(table, Text(""), said), title=Text(self.title, style="bold"),
                     expand=True)

    def render_text(self) -> str:
        """The view as plain text (tests, screen readers)."""
        out = [self.title]
        out += [f"{label.upper()}: {value}" for label, value in self.rows]
        out += [f"> {line}" for line in self.lines]
        return "\n".join(out)
