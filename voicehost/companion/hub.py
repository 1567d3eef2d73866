"""The host's side of the phones: seats, private payloads, declarations.

:class:`Companion` is the only object a host touches. Its methods are safe to
call from any thread: the game loop publishes and polls from its thread, the
web server (:mod:`voicehost.companion.server`) runs on its own thread and
event loop and reaches the same state through the ``_`` methods under one lock.
Callbacks run on the server's thread, outside the lock; a host that is not
thread-safe should use :meth:`Companion.take_declarations` instead.

Privacy rests on one rule, kept here and not in the pages: whatever a request
asks for, a token only ever gets its own seat's payload.
"""

from __future__ import annotations

import math
import secrets
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from voicehost.companion.clock import ClockEstimate, ClockEstimator, ClockSample
from voicehost.companion.tokens import (new_join_code, new_token, normalise_code, same_secret,
                                        spoken_code)

#: Sunken Sailor's pencil colours (design.md 2); Drakkar uses them for the pages too.
PENCIL_COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow", "black", "white",
                                   "orange", "purple")
MAX_NAME = 24
MAX_CARD = 40
#: Added to the bound of a tap made before a reload: the page's two clocks are
#: tied only through the browser's wall-clock time origin.
REBASE_ERROR = 0.005

Sink = Callable[[dict], None]


@dataclass(frozen=True)
class PhoneDeclaration:
    """A "play" tap, on the host's clock.

    ``t`` is the tap's phone time plus the phone's estimated offset, true
    within ``± error`` seconds (``error`` is None when the phone had not yet
    synced its clock: ``t`` is then the arrival time, an upper bound).
    """

    player: str
    card: str
    slot: int | None
    t: float
    error: float | None
    received: float
    id: str
    kind: str = "play"  # or "discard" (a card let go above the hand limit; no slot)

    def __iter__(self):
        """Unpacks as ``(player, card, slot, t)``."""
        return iter((self.player, self.card, self.slot, self.t))


@dataclass(frozen=True)
class SeatInfo:
    name: str
    colour: str | None
    joined: bool
    connected: bool


class JoinRefused(Exception):
    """A join the server answers with ``status`` and a sentence for the page."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class _Conn:
    """One open page. Its clock estimate is its own: a reloaded page's clock starts anew."""

    seat: "_Seat"
    sink: Sink
    clock: ClockEstimator = field(default_factory=ClockEstimator)
    origin: float | None = None  # the page's performance.timeOrigin, in ms
    epoch: int = 0  # bumped by reset_clocks: a pong from before it is not a sample


@dataclass
class _Seat:
    name: str
    colour: str | None
    token: str | None = None
    conns: list = field(default_factory=list)
    declared: set = field(default_factory=set)
    private: Any = None
    version: int = 0
    last_estimate: ClockEstimate | None = None  # kept for the report after a page closes

    @property
    def connections(self) -> int:
        return len(self.conns)

    def latest_clock(self) -> ClockEstimator | None:
        synced = [c.clock for c in self.conns if c.clock.count]
        return synced[-1] if synced else None


class Companion:
    """Phones as private channels for one game at one table.

    Parameters
    ----------
    game
        ``"sailor"`` or ``"drakkar"``: which page the phones show.
    players
        Names of the seats (a player picks one), or a mapping name -> colour
        when colours are already dealt; None lets players type their names.
    clock
        The host's clock in seconds (its audio sample clock), or None while
        that clock is not running (no sample yet): then phones cannot sync
        and taps are refused. The companion reads no other clock.
    colours
        Colours players choose from when ``players`` does not fix them.
    code
        The join code (default: four fresh letters).
    """

    def __init__(self, game: str, players: Sequence[str] | Mapping[str, str] | None = None,
                 clock: Callable[[], float | None] | None = None,
                 colours: Sequence[str] = PENCIL_COLOURS, code: str | None = None,
                 max_players: int = 8):
        if game not in ("sailor", "drakkar"):
            raise ValueError(f"unknown game {game!r}")
        if clock is None:
            raise ValueError("the companion needs the host's clock")
        self.game = game
        self.clock = clock
        self.code = normalise_code(code) if code else new_join_code()
        self.instance = secrets.token_hex(6)
        self.colours = tuple(colours)
        self.max_players = max_players
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._seats: dict[str, _Seat] = {}
        self._fixed_names = players is not None
        if isinstance(players, Mapping):
            for name, colour in players.items():
                self._seats[str(name)] = _Seat(str(name), str(colour))
        elif players is not None:
            for name in players:
                self._seats[str(name)] = _Seat(str(name), None)
        self._fixed_colours = isinstance(players, Mapping)
        self._table: Any = None
        self._decl_callbacks: list[Callable[[PhoneDeclaration], None]] = []
        self._presence_callbacks: list[Callable[[str, bool], None]] = []
        self._declarations: deque[PhoneDeclaration] = deque()
        self._server: Any = None

    # == the host's API ========================================================
    def start(self, bind: str | None = None, port: int = 0) -> str:
        """Serve the pages (``bind`` default: this machine's LAN address); returns the URL."""
        from voicehost.companion.server import CompanionServer

        if self._server is not None:
            return self.url
        server = CompanionServer(self, bind=bind, port=port)
        server.start()
        self._server = server
        return self.url

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.stop()

    def __enter__(self) -> "Companion":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the companion is not started")
        return self._server.url

    @property
    def join_url(self) -> str:
        """The URL with the code, for the QR code (the fragment never reaches a server log)."""
        return f"{self.url}/#code={self.code}"

    def announcement(self) -> str:
        """What the voice says (no secret in it: the code only lets people sit down)."""
        return ("Phones: scan the square code on the screen, or open the address shown "
                f"there, and enter the join code {spoken_code(self.code)}.")

    def reset_clocks(self) -> None:
        """Forget every phone's clock estimate and have the pages measure again.

        Call it when the host's clock starts (or restarts): samples taken
        against a clock that was not running yet would map taps wrongly.
        """
        with self._lock:
            sinks = []
            for seat in self._seats.values():
                for conn in seat.conns:
                    conn.clock = ClockEstimator()
                    conn.epoch += 1
                    sinks.append(conn.sink)
        for sink in sinks:
            sink({"type": "resync"})

    def publish_private(self, player: str, payload: Any) -> None:
        """Send ``payload`` (JSON) to ``player``'s phone only; kept for reconnects."""
        with self._lock:
            seat = self._seat(player)
            seat.private = payload
            seat.version += 1
            message = {"type": "private", "version": seat.version, "payload": payload}
            sinks = [c.sink for c in seat.conns]
        for sink in sinks:
            sink(message)

    def publish_table(self, payload: Any) -> None:
        """Send ``payload`` to every seated phone (what the whole table may know)."""
        with self._lock:
            self._table = payload
            sinks = [c.sink for seat in self._seats.values() for c in seat.conns]
        message = {"type": "table", "payload": payload}
        for sink in sinks:
            sink(message)

    def on_declaration(self, callback: Callable[[PhoneDeclaration], None]) -> None:
        """Call ``callback(declaration)`` (on the server's thread) for each tap."""
        with self._lock:
            self._decl_callbacks.append(callback)

    def on_presence(self, callback: Callable[[str, bool], None]) -> None:
        """Call ``callback(player, connected)`` when a phone comes or goes."""
        with self._lock:
            self._presence_callbacks.append(callback)

    def take_declarations(self) -> list[PhoneDeclaration]:
        """Declarations received since the last call, oldest first."""
        with self._lock:
            out = list(self._declarations)
            self._declarations.clear()
        return out

    def seats(self) -> list[SeatInfo]:
        with self._lock:
            return [SeatInfo(s.name, s.colour, s.token is not None, s.connections > 0)
                    for s in self._seats.values()]

    def connected(self) -> list[str]:
        """Players whose page is open now."""
        with self._lock:
            return [s.name for s in self._seats.values() if s.connections > 0]

    def missing(self, names: Sequence[str]) -> list[str]:
        with self._lock:
            return [n for n in names
                    if n not in self._seats or self._seats[n].connections == 0]

    def wait_for_players(self, names: Sequence[str], timeout: float | None = None) -> list[str]:
        """Block until every named phone is connected, or ``timeout`` seconds; the missing."""
        with self._changed:
            self._changed.wait_for(lambda: not self.missing(names), timeout)
            return self.missing(names)

    def clock_report(self) -> dict[str, ClockEstimate | None]:
        """Each seated phone's clock estimate now (offset, delay, error bound)."""
        now = self.clock()
        with self._lock:
            report = {}
            for seat in self._seats.values():
                if seat.token is not None:
                    clock = seat.latest_clock()
                    report[seat.name] = clock.estimate(now) if clock else seat.last_estimate
            return report

    def clock_summary(self) -> str:
        """One line for the terminal: how well each phone's taps are timed."""
        parts = []
        for name, est in self.clock_report().items():
            parts.append(f"{name} ±{est.error * 1000:.1f} ms" if est else f"{name} not synced")
        return "Phone clocks (error bound of a tap): " + (", ".join(parts) or "no phone") + "."

    def release(self, player: str) -> None:
        """Free a seat whose phone is lost: its token stops working, anyone may sit there."""
        with self._lock:
            seat = self._seat(player)
            seat.token = None
            sinks = [c.sink for c in seat.conns]
            seat.conns = []
            seat.declared = set()
            if not self._fixed_names:
                del self._seats[seat.name]
            self._changed.notify_all()
        for sink in sinks:
            sink({"type": "released"})

    # == the server's side =====================================================
    def _seat(self, player: str) -> _Seat:
        seat = self._seats.get(player)
        if seat is None:
            raise KeyError(f"no seat {player!r} (seats: {', '.join(self._seats)})")
        return seat

    def _code_ok(self, code: Any) -> bool:
        return isinstance(code, str) and same_secret(normalise_code(code), self.code)

    def _lobby(self) -> dict:
        """Free names and colours, for a player holding the join code."""
        with self._lock:
            taken_colours = {s.colour for s in self._seats.values() if s.token is not None}
            free = [{"name": s.name, "colour": s.colour}
                    for s in self._seats.values() if s.token is None]
            return {"game": self.game, "fixed_names": self._fixed_names,
                    "fixed_colours": self._fixed_colours, "free_seats": free,
                    "colours": [c for c in self.colours if c not in taken_colours]}

    def _join(self, name: Any, colour: Any) -> _Seat:
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME:
            raise JoinRefused(422, f"Choose a name of 1 to {MAX_NAME} characters.")
        name = " ".join(name.split())
        with self._lock:
            seat = self._seats.get(name)
            if self._fixed_names and seat is None:
                raise JoinRefused(422, f"{name} is not at this table; choose your name "
                                       "from the list.")
            if seat is not None and seat.token is not None:
                raise JoinRefused(409, f"{name}'s seat is taken; if it is yours, ask the "
                                       "host to free it.")
            if not self._fixed_colours:
                if colour not in self.colours:
                    raise JoinRefused(422, "Choose one of the colours in the list.")
                if any(s.colour == colour and s.token is not None
                       for s in self._seats.values()):
                    raise JoinRefused(409, f"{colour.capitalize()} is taken; choose "
                                           "another colour.")
            if seat is None:
                if len(self._seats) >= self.max_players:
                    raise JoinRefused(409, "The table is full.")
                seat = self._seats[name] = _Seat(name, None)
            if not self._fixed_colours:
                seat.colour = colour
            seat.token = new_token()
            self._changed.notify_all()
            return seat

    def _seat_for(self, token: Any) -> _Seat | None:
        """The seat holding ``token``: every seat is compared, in constant time each."""
        if not isinstance(token, str):
            return None
        found = None
        with self._lock:
            for seat in self._seats.values():
                if same_secret(token, seat.token):
                    found = seat
        return found

    def _view(self, seat: _Seat) -> dict:
        """Everything ``seat``'s page may show: its own payload and the table's."""
        with self._lock:
            return {"name": seat.name, "colour": seat.colour, "game": self.game,
                    "private": seat.private, "version": seat.version, "table": self._table}

    def _attach(self, token: Any, sink: Sink, origin: Any = None) -> _Conn | None:
        with self._lock:
            seat = self._seat_for(token)
            if seat is None:
                return None
            conn = _Conn(seat, sink, origin=_finite(origin))
            seat.conns.append(conn)
            first = seat.connections == 1
            callbacks = list(self._presence_callbacks) if first else []
            self._changed.notify_all()
        for cb in callbacks:
            cb(seat.name, True)
        return conn

    def _live(self, conn: _Conn) -> bool:
        """Whether ``conn``'s seat still holds it (a freed seat cuts its pages off)."""
        with self._lock:
            return conn in conn.seat.conns

    def _detach(self, conn: _Conn) -> None:
        seat = conn.seat
        with self._lock:
            if conn not in seat.conns:
                return
            seat.conns.remove(conn)
            gone = seat.connections == 0
            callbacks = list(self._presence_callbacks) if gone else []
            self._changed.notify_all()
        for cb in callbacks:
            cb(seat.name, False)

    def _pong(self, conn: _Conn, ping: dict, t1: float) -> dict:
        """The answer to a ping received at host time ``t1``; ``t2`` is stamped last."""
        with self._lock:
            epoch = conn.epoch
        return {"type": "pong", "id": ping.get("id"), "t0": ping.get("t0"), "t1": t1,
                "epoch": epoch, "t2": self.clock()}

    def _clock_sample(self, conn: _Conn, sample: ClockSample, epoch: Any = 0) -> dict | None:
        now = self.clock()
        with self._lock:
            if epoch != conn.epoch or not conn.clock.add(sample):
                return None
            est = conn.clock.estimate(now)
            conn.seat.last_estimate = est
        return None if est is None else {"type": "clock", **est.to_dict()}

    def _declare(self, conn: _Conn, message: dict) -> dict:
        """A tap from ``conn``'s page: stamp it, queue it, answer the page."""
        received = self.clock()
        seat = conn.seat
        if received is None:
            return {"type": "refused", "id": str(message.get("id", ""))[:64],
                    "message": "The host is not listening yet: tap again once the song "
                               "has started."}
        did = str(message.get("id", ""))[:64]
        card = message.get("card")
        slot = message.get("slot")
        phone_t = message.get("t")
        if not isinstance(card, str) or not card or len(card) > MAX_CARD:
            return {"type": "refused", "id": did, "message": "Choose a card first."}
        kind = message.get("kind", "play")
        if kind not in ("play", "discard"):
            return {"type": "refused", "id": did, "message": "Play or discard a card."}
        if kind == "discard":
            slot = None
        if slot is not None and (isinstance(slot, bool) or slot not in (1, 2, 3)):
            return {"type": "refused", "id": did, "message": "A section is 1, 2 or 3."}
        with self._lock:
            if not did or did in seat.declared:
                return {"type": "ack", "id": did, "duplicate": True}
            seat.declared.add(did)
            mapped = None
            rebase = 0.0
            tap_origin = _finite(message.get("origin"))
            if tap_origin is not None and conn.origin is not None \
                    and abs(tap_origin - conn.origin) > 0.5:
                # A tap queued before a reload, on the previous page's clock.
                rebase = (tap_origin - conn.origin) / 1000.0
            if _finite(phone_t) is not None:
                mapped = conn.clock.to_host(float(phone_t) + rebase, received)
            if mapped is None:
                t, error = received, None
            else:
                t, error = mapped
                if rebase:
                    error += REBASE_ERROR
                # Nothing is heard before it happens: a late-synced clock cannot
                # put a tap after its own arrival.
                t = min(t, received)
            decl = PhoneDeclaration(seat.name, card, slot, t, error, received, did, kind)
            self._declarations.append(decl)
            callbacks = list(self._decl_callbacks)
        for cb in callbacks:
            cb(decl)
        return {"type": "ack", "id": did, "t": t, "error": error}


def _finite(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        return None
    return float(x)
