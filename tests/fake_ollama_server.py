"""The fake Ollama (tests/fake_ollama.py) served over real HTTP on a loopback address.

An ``httpx.MockTransport`` never opens a socket, so it cannot show what a real
deployment does: connection pools and keep-alive, a server that really stops
listening, a request that never answers until the client's read timeout fires,
requests from other processes (Dask or Ray workers), or what the official
``ollama`` client makes of the answers. This server can. Every answer comes from
the same :class:`~fake_ollama.FakeOllama` handler as the in-process tests, so both
kinds of test expect the same bytes.

How the handler's faults look on the wire:

* an HTTP status (``fail``, ``fail_every``): that status with Ollama's ``{"error": ...}`` body;
* a body that is not JSON (``answer_malformed``): HTTP 200 with an HTML page;
* a timeout (``time_out``, ``hang_after``): the request is read and never answered; the
  connection stays open until the client gives up (or the server stops);
* down (``go_down``): the listening socket is closed, so every new connection is
  refused, and the request that hit it is dropped unanswered; :meth:`FakeOllamaServer.come_up`
  listens again on the same port.

From Python (tests; always in a ``with`` block so the socket and threads go away)::

    with FakeOllamaServer(FakeOllama(delay=0.2)) as srv:
        run(hosts=srv.url)

From a shell (the port is printed, and written to ``--port-file`` if given)::

    python -m tests.fake_ollama_server --port 0 --delay 0.2 --parallel 4 --status-5xx-every 10
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import json
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import httpx

try:  # tests/ on sys.path (pytest, the benchmark)
    from fake_ollama import MODEL_PATHS, FakeOllama
except ImportError:  # python -m tests.fake_ollama_server from the repository root
    from tests.fake_ollama import MODEL_PATHS, FakeOllama

__all__ = ["FakeOllamaServer", "main", "server_process"]

ROOT = Path(__file__).resolve().parents[1]

#: How long a "timed out" request hangs at most if the client never gives up.
HANG_SECONDS = 600.0


def check_loopback(host: str) -> str:
    """Refuse anything but a loopback address: the fake must never be reachable from the network."""
    if host == "localhost":
        return "127.0.0.1"
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValueError(f"the fake Ollama server binds loopback addresses only (127.0.0.1, ::1), not {host!r}")
    return host


class _Handler(BaseHTTPRequestHandler):
    """Bridges one HTTP/1.1 connection (keep-alive, like Ollama's Go server) to the FakeOllama handler."""

    protocol_version = "HTTP/1.1"
    server: FakeOllamaServer  # type: ignore[assignment]  # our own accept loop, not a socketserver

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  (the base class's name)
        """Silent: hundreds of requests per run would drown the test output."""

    def do_GET(self) -> None:  # noqa: N802  (http.server's naming)
        self._bridge()

    def do_POST(self) -> None:  # noqa: N802
        self._bridge()

    def do_HEAD(self) -> None:  # noqa: N802
        self._bridge()

    def _bridge(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        host = self.headers.get("Host") or f"127.0.0.1:{self.server.port}"
        request = httpx.Request(self.command, f"http://{host}{self.path}", headers=dict(self.headers), content=body)
        try:
            response = self.server.fake(request)
        except httpx.ConnectError:  # the handler says the server is down from now on
            self.server.go_down_now()
            self.close_connection = True
            return
        except httpx.TimeoutException:  # a wedged server: read the request, never answer
            self.server.stopping.wait(self.server.hang_seconds)
            self.close_connection = True
            return
        except KeyboardInterrupt:
            response = httpx.Response(500, json={"error": "interrupt_on is an in-process fault only"})
        content = response.read()
        self.send_response(response.status_code)
        self.send_header("Content-Type", response.headers.get("Content-Type", "application/json; charset=utf-8"))
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(content)


class FakeOllamaServer:
    """A threaded HTTP server on ``127.0.0.1`` (or ``::1``) answering like Ollama through a :class:`FakeOllama`.

    Attribute access falls through to the handler, so fault injection reads the same as
    in-process (``srv.fail(500)``, ``srv.seen``, ``srv.counts()``). It runs its own accept
    loop rather than ``socketserver``'s because going down must refuse the very next
    connection: shutting the listening socket down wakes ``accept`` at once, whereas
    ``serve_forever`` only notices a shutdown request at its next poll.
    """

    def __init__(
        self,
        fake: FakeOllama | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        hang_seconds: float = HANG_SECONDS,
    ) -> None:
        self.fake = fake if fake is not None else FakeOllama()
        self.host = check_loopback(host)
        self.port = port
        self.hang_seconds = hang_seconds
        self.stopping = threading.Event()  # set by stop(): hanging requests return, threads end
        self.down = threading.Event()  # set while the listening socket is closed
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._connections: set[socket.socket] = set()
        self._threads: list[threading.Thread] = []

    def __getattr__(self, name: str) -> Any:
        if name == "fake":  # not set yet (during unpickling or a failed __init__)
            raise AttributeError(name)
        return getattr(self.fake, name)

    @property
    def url(self) -> str:
        """The base URL to give ``--hosts`` or ``OLLAMA_HOST``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    # -- lifecycle

    def start(self) -> Self:
        """Bind (port 0 picks a free port, kept by :meth:`come_up`) and start accepting."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        listener = socket.create_server((self.host, self.port), family=family, backlog=128)
        self.port = listener.getsockname()[1]
        with self._lock:
            self._listener = listener
        self.down.clear()
        thread = threading.Thread(target=self._accept_loop, args=(listener,), name="fake-ollama-accept", daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def go_down_now(self) -> None:
        """Close the listening socket and every open connection: from now on connections are refused."""
        with self._lock:
            listener, self._listener = self._listener, None
            connections = list(self._connections)
        if listener is not None:
            _close(listener)
        for conn in connections:
            _close(conn)
        self.down.set()

    def come_up(self) -> None:
        """Clear the handler's down state and listen again on the same port."""
        self.fake.come_up()
        with self._lock:
            listening = self._listener is not None
        if not listening:
            self.start()

    def stop(self) -> None:
        """Stop listening, release hanging requests, close connections and join the threads."""
        self.stopping.set()
        self.go_down_now()
        for thread in self._threads:
            thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- internals

    def _accept_loop(self, listener: socket.socket) -> None:
        while True:
            try:
                conn, address = listener.accept()
            except OSError:  # the listener was shut down: go_down_now or stop
                return
            # Go (Ollama's server) turns Nagle's algorithm off on every connection; without this the
            # body, sent after the headers, waits for the client's delayed ACK: ~40 ms per request.
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                if self._listener is not listener:  # went down while this connection was queued
                    _close(conn)
                    return
                self._connections.add(conn)
            thread = threading.Thread(target=self._serve, args=(conn, address), name="fake-ollama-conn", daemon=True)
            thread.start()
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]

    def _serve(self, conn: socket.socket, address: Any) -> None:
        try:
            _Handler(conn, address, self)  # type: ignore[arg-type]  # serves requests until the peer closes
        except OSError:
            pass  # the client gave up (timeout) or we went down: nothing to answer
        finally:
            with self._lock:
                self._connections.discard(conn)
            _close(conn)


def _close(sock: socket.socket) -> None:
    """Shut down, then close: ``shutdown`` is what wakes a thread blocked in ``accept`` or ``recv``."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


# ------------------------------------------------------------ as a separate process


@contextlib.contextmanager
def server_process(folder: Path, *options: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``python -m tests.fake_ollama_server --port 0 OPTIONS`` in its own process; yields (URL, process), then stops it.

    ``folder`` receives the port file. A test that needs a server in another process (a
    hung server the client must give up on, a command-line run) starts it this way.
    """
    port_file = folder / "port"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fake_ollama_server", "--port", "0", "--port-file", str(port_file), *options],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(300):  # wait for the port (at most ~30 s), or for the process to fail
            if port_file.exists() and port_file.read_text().strip() or proc.poll() is not None:
                break
            time.sleep(0.1)
        if proc.poll() is not None:
            raise AssertionError(f"fake server exited with {proc.returncode}: {proc.stderr.read()}")
        yield f"http://127.0.0.1:{int(port_file.read_text())}", proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        proc.stdout.close()
        proc.stderr.close()


# ---------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    """Serve until Ctrl-C / SIGTERM, or until ``--fail-after`` model requests have been answered."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.fake_ollama_server", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    parser.add_argument("--host", default="127.0.0.1", help="loopback address to bind (127.0.0.1 or ::1)")
    parser.add_argument("--port", type=int, default=11434, help="port; 0 picks a free one (see --port-file)")
    parser.add_argument("--port-file", type=Path, help="write the bound port here once listening")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds each /api/chat and /api/embed takes")
    parser.add_argument(
        "--parallel", type=int, metavar="N", help="serve at most N model requests at once, like OLLAMA_NUM_PARALLEL"
    )
    parser.add_argument(
        "--fail-after", type=int, metavar="N", help="answer N model requests, then go down (connections refused)"
    )
    parser.add_argument("--status-5xx-every", type=int, metavar="N", help="answer every N-th model request with 5xx")
    parser.add_argument("--status", type=int, default=500, help="the status --status-5xx-every sends (default 500)")
    parser.add_argument("--hang", action="store_true", help="never answer a model request (the client times out)")
    parser.add_argument("--hang-after", type=int, metavar="N", help="answer N model requests, then hang every one")
    parser.add_argument(
        "--malformed", action="store_true", help="answer every model request with HTTP 200 and a body that is not JSON"
    )
    args = parser.parse_args(argv)

    fake = FakeOllama(delay=args.delay, parallel=args.parallel)
    if args.status_5xx_every:
        fake.fail_every(args.status_5xx_every, args.status)
    if args.hang or args.hang_after is not None:
        fake.hang_after(0 if args.hang else args.hang_after)
    if args.malformed:
        fake.answer_malformed(0)
    if args.fail_after is not None:
        fake.go_down(after=args.fail_after)
    try:
        server = FakeOllamaServer(fake, host=args.host, port=args.port).start()
    except (ValueError, OSError) as exc:
        print(f"fake_ollama_server: {exc}", file=sys.stderr)
        return 2
    if args.port_file:
        args.port_file.write_text(f"{server.port}\n", encoding="utf-8")
    print(json.dumps({"listening": server.url, "delay": args.delay, "parallel": args.parallel}), flush=True)
    signal.signal(signal.SIGTERM, lambda *_: server.stopping.set())
    try:
        while not server.stopping.wait(0.2):
            if server.down.is_set():
                answered = fake.counts()
                print(json.dumps({"down": True, "answered": {p: answered[p] for p in MODEL_PATHS}}), flush=True)
                break
    except KeyboardInterrupt:
        pass
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
