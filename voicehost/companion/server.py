"""The web server for the phone pages: Starlette on uvicorn, on its own thread.

The host's loop must never wait on the network, so the server runs its own
event loop on a daemon thread; :class:`~voicehost.companion.hub.Companion`
is the only state it shares with the host, behind a lock. Pushes to a phone
cross from the host's thread into this loop with ``call_soon_threadsafe``.

Every private route and the websocket require the seat's token (a bearer
header, or the websocket's first message): never in a URL, so no log or
browser history holds one. The pages are local files; no CDN, no other host.
"""

from __future__ import annotations

import asyncio
import errno
import json
import socket
import threading
from pathlib import Path
from typing import Any

from voicehost.companion.clock import ClockSample
from voicehost.companion.errors import CompanionError
from voicehost.companion.hub import Companion, JoinRefused

PAGES = Path(__file__).with_name("pages")
#: Wrong join codes one client may try before it is refused for the game.
MAX_WRONG_CODES = 30
HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": ("default-src 'self'; connect-src 'self'; img-src 'self' data:; "
                                "frame-ancestors 'none'"),
}


def _bearer(request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return None


def with_headers(app):
    """Add :data:`HEADERS` to every HTTP response, static files included."""
    extra = [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()]

    async def wrapped(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)

        async def send_with(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in extra if k not in present]
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, send_with)

    return wrapped


def build_app(companion: Companion):
    """The Starlette application serving ``companion``'s pages and API."""
    from starlette.applications import Starlette
    from starlette.responses import FileResponse, JSONResponse
    from starlette.routing import Mount, Route, WebSocketRoute
    from starlette.staticfiles import StaticFiles
    from starlette.websockets import WebSocket, WebSocketDisconnect

    wrong_codes: dict[str, int] = {}

    def reply(data: Any, status: int = 200) -> JSONResponse:
        return JSONResponse(data, status_code=status, headers=HEADERS)

    def denied() -> JSONResponse:
        return reply({"error": "This page is for another player, or your seat was freed."}, 403)

    def client_of(request) -> str:
        return request.client.host if request.client else "?"

    def code_checked(request, code: Any) -> JSONResponse | None:
        who = client_of(request)
        if wrong_codes.get(who, 0) >= MAX_WRONG_CODES:
            return reply({"error": "Too many wrong codes; ask the host."}, 429)
        if not companion._code_ok(code):
            wrong_codes[who] = wrong_codes.get(who, 0) + 1
            return reply({"error": "That is not this table's join code; listen to the "
                                   "host and try again."}, 403)
        return None

    async def index(request):
        return FileResponse(PAGES / "index.html", headers=HEADERS)

    async def info(request):
        return reply({"game": companion.game, "instance": companion.instance})

    async def lobby(request):
        bad = code_checked(request, request.query_params.get("code"))
        return bad or reply(companion._lobby())

    async def join(request):
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return reply({"error": "Send the code, your name and your colour."}, 400)
        if not isinstance(body, dict):
            return reply({"error": "Send the code, your name and your colour."}, 400)
        bad = code_checked(request, body.get("code"))
        if bad:
            return bad
        try:
            seat = companion._join(body.get("name"), body.get("colour"))
        except JoinRefused as exc:
            return reply({"error": exc.message}, exc.status)
        return reply({"token": seat.token, "name": seat.name, "colour": seat.colour,
                      "instance": companion.instance})

    async def me(request):
        seat = companion._seat_for(_bearer(request))
        return reply(companion._view(seat)) if seat else denied()

    async def seat_page(request):
        seat = companion._seat_for(_bearer(request))
        if seat is None or seat.name != request.path_params["name"]:
            return denied()
        return reply(companion._view(seat))

    async def ws(websocket: WebSocket):
        await websocket.accept()
        loop = asyncio.get_running_loop()
        outbox: asyncio.Queue = asyncio.Queue()
        send_lock = asyncio.Lock()

        async def send(message: dict) -> None:
            async with send_lock:
                await websocket.send_text(json.dumps(message))

        def sink(message: dict) -> None:
            try:
                loop.call_soon_threadsafe(outbox.put_nowait, message)
            except RuntimeError:  # the server is stopping: the page reconnects to nothing
                pass

        try:
            hello = json.loads(await asyncio.wait_for(websocket.receive_text(), 15))
        except WebSocketDisconnect:
            return
        except (asyncio.TimeoutError, json.JSONDecodeError, KeyError):
            await websocket.close(code=4400)
            return
        token = hello.get("token") if isinstance(hello, dict) else None
        origin = hello.get("origin") if isinstance(hello, dict) else None
        conn = companion._attach(token, sink, origin)
        if conn is None:
            await send({"type": "denied"})
            await websocket.close(code=4403)
            return

        async def pump() -> None:
            try:
                while True:
                    message = await outbox.get()
                    await send(message)
                    if message.get("type") == "released":
                        await websocket.close(code=4403)
                        return
            except (WebSocketDisconnect, RuntimeError, OSError):
                return  # the page went away; the receive loop ends the connection

        pumping = asyncio.create_task(pump())
        try:
            await send({"type": "welcome", **companion._view(conn.seat)})
            while True:
                try:
                    msg = json.loads(await websocket.receive_text())
                except (json.JSONDecodeError, KeyError):  # not JSON text: ignored
                    continue
                if not isinstance(msg, dict):
                    continue
                kind = msg.get("type")
                if not companion._live(conn):
                    break  # the seat was freed while the page was open
                if kind == "ping":
                    t1 = companion.clock()
                    if t1 is None:  # the host's clock is not running: alive, but no sample
                        await send({"type": "pong", "id": msg.get("id"), "t0": msg.get("t0"),
                                    "t1": None})
                    else:
                        await send(companion._pong(conn, msg, t1))
                elif kind == "sample":
                    try:
                        sample = ClockSample(*(float(msg[k]) for k in ("t0", "t1", "t2", "t3")))
                    except (KeyError, TypeError, ValueError):
                        continue
                    answer = companion._clock_sample(conn, sample, msg.get("epoch", 0))
                    if answer:
                        await send(answer)
                elif kind == "play":
                    await send(companion._declare(conn, msg))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            pumping.cancel()
            companion._detach(conn)

    routes = [
        Route("/", index),
        Route("/api/info", info),
        Route("/api/lobby", lobby),
        Route("/api/join", join, methods=["POST"]),
        Route("/api/me", me),
        Route("/api/seat/{name}", seat_page),
        WebSocketRoute("/ws", ws),
        Mount("/static", app=StaticFiles(directory=PAGES), name="static"),
    ]
    return with_headers(Starlette(routes=routes))


class CompanionServer:
    """uvicorn serving :func:`build_app` on a background thread, started and stopped by the host."""

    def __init__(self, companion: Companion, bind: str | None = None, port: int = 0):
        self.companion = companion
        self.bind = bind
        self.port = port
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.bind}]" if self.bind and ":" in self.bind else self.bind
        return f"http://{host}:{self.port}"

    def _socket(self) -> socket.socket:
        family = socket.AF_INET6 if ":" in (self.bind or "") else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.bind, self.port))
        except OSError as exc:
            sock.close()
            if exc.errno == errno.EADDRINUSE:
                raise CompanionError(f"port {self.port} is already in use on {self.bind}; "
                                     "choose another with --port (or 0 for any free port).") from None
            if exc.errno in (errno.EADDRNOTAVAIL, errno.EINVAL):
                raise CompanionError(f"{self.bind} is not an address of this machine; "
                                     "check --bind.") from None
            raise CompanionError(f"cannot serve the phone pages on {self.bind}:{self.port} "
                                 f"({exc.strerror}).") from None
        except (socket.gaierror, OverflowError, TypeError) as exc:
            sock.close()
            raise CompanionError(f"cannot serve the phone pages on {self.bind!r} port "
                                 f"{self.port} ({exc}); check --bind and --port.") from None
        sock.listen(64)
        sock.set_inheritable(True)
        self.port = sock.getsockname()[1]
        return sock

    def start(self, timeout: float = 10.0) -> None:
        import uvicorn

        from voicehost.companion.network import lan_address

        if self.bind is None:
            self.bind = lan_address()
        sock = self._socket()
        config = uvicorn.Config(build_app(self.companion), log_level="warning",
                                access_log=False, lifespan="off", ws="websockets-sansio",
                                timeout_graceful_shutdown=1, ws_ping_interval=10,
                                ws_ping_timeout=20)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]},
                                        name="voicehost-companion", daemon=True)
        self._thread.start()
        waited = 0.0
        while not self._server.started:
            if not self._thread.is_alive():
                sock.close()
                raise CompanionError("the phone pages' server stopped as it started; run "
                                     "with --debug to see why.")
            if waited > timeout:
                raise CompanionError("the phone pages' server did not start in time.")
            threading.Event().wait(0.02)
            waited += 0.02
        self._sock = sock

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
            if self._thread.is_alive():
                self._server.force_exit = True
                self._thread.join(timeout=2)
        self._sock.close()
        self._server = None
