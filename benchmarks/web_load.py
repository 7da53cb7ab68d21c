"""Load benchmark of the web table: concurrent bot games, one WebSocket client per seat.

For each level of N concurrent games, a fresh server (``python -m fieldcraft.server`` on
127.0.0.1, its own SQLite file, every action committed before it is broadcast) is started, N
tables are created with every seat taken by a client of this script, and the clients play: each
one, when it has choices, "thinks" for a random time around ``--think`` seconds and then sends a
random legal action. The script measures the **action-to-broadcast latency**: from the moment a
client sends an action until the update carrying it has reached *every* seat of that table
(the slowest seat counts). A level passes when its p99 stays under ``--target-ms``.

Levels rise until one fails (or the list ends); each level runs ``--duration`` seconds after a
warm-up, and the whole run stops by itself after ``--max-seconds``. The clients share the
machine with the server, so the figures are a lower bound for a server on its own machine.

    .venv/bin/python benchmarks/web_load.py                       # 50 100 200 300 400 500 games
    .venv/bin/python benchmarks/web_load.py --levels 10 --duration 5  # a quick check
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parents[1]
HEAD = re.compile(r'\{"type":"update","since":(\d+),"version":(\d+),')
# the view's "current_player" comes before the observation's (log lines never contain the key)
CURRENT = re.compile(r'"view":\{"version":\d+,"current_player":(\d+|null)')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> tuple[float, float]:
    """(user, system) CPU time of a process (Linux /proc), to report how busy the server was
    (the system part is mostly the kernel's loopback TCP work for each message sent)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return int(fields[11]) / tick, int(fields[12]) / tick
    except (OSError, IndexError, ValueError):
        return float("nan"), float("nan")


def runqueue_wait(pid: int) -> float:
    """Seconds the process's threads spent runnable but waiting for a CPU (Linux schedstat):
    how much of the latency is the machine being busy with other work, not the server."""
    total = 0.0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            total += int((task / "schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return float("nan")
    return total


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


@dataclass
class Stats:
    """Latencies of one level. ``warm_at``: measurements start after the warm-up."""

    warm_at: float
    table_latency: list[float] = field(default_factory=list)  # slowest seat, per action
    delivery_latency: list[float] = field(default_factory=list)  # every seat, per action
    actions: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    messages: int = 0
    bytes: int = 0
    sent: list[float] = field(default_factory=list)  # when each table_latency's action left
    client_lag: list[float] = field(default_factory=list)
    """How late the load generator's own event loop woke up (every 10 ms): its delays are
    part of every latency measured, so a busy client shows here, not as a slow server."""


async def watch_lag(stats: Stats, stop_at: float, every: float = 0.01) -> None:
    while True:
        before = time.perf_counter()
        if before >= stop_at:
            return
        await asyncio.sleep(every)
        if before >= stats.warm_at:
            stats.client_lag.append(time.perf_counter() - before - every)


class TableRun:
    """Shared by the seats of one table: actions in flight and who has received them."""

    def __init__(self, players: int, stats: Stats):
        self.players = players
        self.stats = stats
        self.inflight: dict[int, tuple[float, list[float]]] = {}

    def sent(self, version: int, at: float) -> None:
        self.inflight[version] = (at, [])

    def received(self, since: int, version: int, at: float) -> None:
        for v in [v for v in self.inflight if since < v <= version]:
            sent_at, arrivals = self.inflight[v]
            arrivals.append(at)
            if len(arrivals) == self.players:
                del self.inflight[v]
                if sent_at >= self.stats.warm_at:
                    self.stats.table_latency.append(max(arrivals) - sent_at)
                    self.stats.sent.append(sent_at - self.stats.warm_at)
                    self.stats.delivery_latency.extend(a - sent_at for a in arrivals)


async def seat_client(url: str, token: str, table: TableRun, think: float, stop_at: float,
                      rng: random.Random) -> None:
    stats = table.stats
    async with websockets.connect(url, max_size=2**22, compression=None, open_timeout=120,
                                  ping_interval=None, close_timeout=2) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        state: dict[str, Any] = {"version": None, "acting": False}

        async def act_later(version: int, choices: list[dict[str, Any]]) -> None:
            await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
            if state["version"] != version or time.perf_counter() >= stop_at:
                state["acting"] = False
                return
            action = rng.choice(choices)["action"]
            table.sent(version + 1, time.perf_counter())
            await ws.send(json.dumps({"type": "act", "token": token, "version": version,
                                      "action": action}))
            stats.actions += 1

        me = -1
        async for raw in ws:
            now = time.perf_counter()
            stats.messages += 1
            stats.bytes += len(raw)
            head = HEAD.match(raw)
            if head is not None:
                # An update for someone else's turn: read the few numbers it needs without
                # parsing the whole view, so that the clients cost little next to the server.
                since, version, player = int(head[1]), int(head[2]), CURRENT.search(raw)
                table.received(since, version, now)
                state["version"] = version
                if player is not None and player[1] != str(me):
                    continue
            msg = json.loads(raw)
            kind = msg["type"]
            if kind == "error":
                stats.errors[msg["code"]] = stats.errors.get(msg["code"], 0) + 1
                state["acting"] = False
                continue
            if kind not in ("sync", "update"):
                continue
            if kind == "sync":
                me = msg["you"]["seat"]
            state["version"] = msg["version"]
            view = msg["view"]
            if view["terminal"] or now >= stop_at:
                if now >= stop_at:
                    return
                continue
            if view["choices"]:
                state["acting"] = True
                asyncio.ensure_future(act_later(msg["version"], view["choices"]))


async def create_tables(base: str, games: int, game: str, players: int
                        ) -> list[tuple[str, list[str]]]:
    limits = httpx.Limits(max_connections=32)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as http:
        sem = asyncio.Semaphore(32)

        async def one() -> tuple[str, list[str]]:
            async with sem:
                made = (await http.post("/api/tables", json={
                    "game": game, "players": players, "seats": ["human"] * players,
                    "name": "bench", "away_bot": False})).json()
                tokens = [made["token"]]
                for seat in range(1, players):
                    joined = (await http.post(f"/api/tables/{made['id']}/join",
                                              json={"seat": seat})).json()
                    tokens.append(joined["token"])
                return made["id"], tokens

        return await asyncio.gather(*(one() for _ in range(games)))


@dataclass
class Usage:
    """CPU use at one moment: the server's (user, system, waiting for a CPU), this process's,
    and how many actions the clients had sent, so a level's figures cover only its measured
    window (not the table creation or the warm-up)."""

    at: float
    server_user: float
    server_sys: float
    server_wait: float
    clients: float
    actions: int

    @classmethod
    def now(cls, pid: int, actions: int) -> Usage:
        user, system = cpu_seconds(pid)
        mine = resource.getrusage(resource.RUSAGE_SELF)
        return cls(time.monotonic(), user, system, runqueue_wait(pid),
                   mine.ru_utime + mine.ru_stime, actions)


async def run_level(base: str, ws_base: str, games: int, args: argparse.Namespace,
                    seed: int, pid: int) -> tuple[Stats, Usage, Usage]:
    tables = await create_tables(base, games, args.game, args.players)
    # This process's own collector would stop its loop for a full collection over 4,000
    # sockets now and then (200-570 ms measured at 1,000 games), which every action in flight
    # would count as the server's latency: the load generator is not under test, so its
    # collector stays off for the level (a level makes a few hundred MB at most).
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        return await _play_level(tables, ws_base, args, seed, pid)
    finally:
        gc.enable()
        gc.unfreeze()


async def _play_level(tables: list[tuple[str, list[str]]], ws_base: str,
                      args: argparse.Namespace, seed: int, pid: int
                      ) -> tuple[Stats, Usage, Usage]:
    start = time.perf_counter()
    stats = Stats(warm_at=start + args.warmup)
    stop_at = start + args.warmup + args.duration
    rng = random.Random(seed)
    tasks = []
    for table_id, tokens in tables:
        run = TableRun(args.players, stats)
        for token in tokens:
            tasks.append(asyncio.ensure_future(seat_client(
                f"{ws_base}/ws/{table_id}", token, run, args.think, stop_at,
                random.Random(rng.random()))))
    tasks.append(asyncio.ensure_future(watch_lag(stats, stop_at)))
    await asyncio.sleep(max(0.0, stats.warm_at - time.perf_counter()))
    first = Usage.now(pid, stats.actions)
    await asyncio.sleep(max(0.0, stop_at - time.perf_counter()))
    last = Usage.now(pid, stats.actions)
    # No action is sent after stop_at; two more seconds let the last ones arrive everywhere.
    await asyncio.sleep(2.0)
    failures = [t.exception() for t in tasks if t.done() and not t.cancelled()
                and t.exception() is not None]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    if failures:
        stats.errors["client_failures"] = len(failures)
    return stats, first, last


GC_WATCH = """
import gc, json, runpy, sys, time
pauses = {0: [], 1: [], 2: []}
began = [0.0, 0.0]
def watch(phase, info):
    if phase == "start":
        began[:] = time.monotonic(), time.thread_time()
    else:
        pauses[info["generation"]].append((began[0], time.monotonic() - began[0],
                                           time.thread_time() - began[1]))
gc.callbacks.append(watch)
try:
    runpy.run_module("fieldcraft.server", run_name="__main__", alter_sys=True)
finally:
    with open(GC_LOG, "w") as out:
        json.dump(pauses, out)
"""
"""Runs the server with every cyclic-collector pause timed (``--gc-log``), written when it
stops: how much of the latency tail is the collector stopping the event loop."""


def gc_summary(path: str, start: float, end: float) -> dict[str, Any]:
    """Per generation, within the measured window (``time.monotonic()`` is the machine's, so
    the server's clock and ours agree): collections, their total and longest pause, how many
    took 10 ms or more, and the CPU they used (a pause longer than its CPU time waited for a
    CPU: the machine was busy)."""
    try:
        logged = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}
    out = {}
    for gen, timed in logged.items():
        p = [took for at, took, _ in timed if start <= at <= end]
        cpu = [used for at, _, used in timed if start <= at <= end]
        out[f"gen{gen}"] = {"count": len(p), "total_ms": round(1000 * sum(p), 1),
                            "max_ms": round(1000 * max(p, default=0.0), 1),
                            "over_10ms": sum(x >= 0.01 for x in p),
                            "cpu_ms": round(1000 * sum(cpu), 1),
                            "max_cpu_ms": round(1000 * max(cpu, default=0.0), 1)}
    return out


def start_server(port: int, db: str, sqlite_sync: str, root: Path = ROOT,
                 profile: str | None = None, extra: list[str] | None = None,
                 bot_delay: float = 0.0, gc_log: str | None = None
                 ) -> subprocess.Popen[bytes]:
    """A server process running the code in ``root`` (its own checkout: ``--compare`` runs
    two side by side), optionally under cProfile (written when it stops) or with its collector
    pauses written to ``gc_log``. ``bot_delay``: the server's pause before a bot move
    (``web_memory.py``'s tables are all bots)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root)
    if profile:
        prefix = ["-m", "cProfile", "-o", profile, "-m", "fieldcraft.server"]
    elif gc_log:
        prefix = ["-c", f"GC_LOG = {gc_log!r}\n{GC_WATCH}"]
    else:
        prefix = ["-m", "fieldcraft.server"]
    proc = subprocess.Popen(
        [sys.executable, *prefix, "--host", "127.0.0.1", "--port",
         str(port), "--db", db, "--bot-delay", str(bot_delay), "--sqlite-sync", sqlite_sync,
         # thousands of sockets and tables from one address, on purpose (a checkout from
         # before the limits has none to switch off)
         *(["--no-limits"] if (root / "fieldcraft/server/limits.py").exists() else []),
         *(extra or [])],
        cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "server died")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("server did not start")


def measure_level(games: int, args: argparse.Namespace, index: int, root: Path,
                  profile: str | None = None) -> dict[str, Any]:
    """One level against a fresh server started from ``root``: its figures as a row."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        gc_log = f"{tmp}/gc.json" if args.gc_log else None
        proc = start_server(port, args.db or f"sqlite:///{tmp}/bench.db", args.sqlite_sync,
                            root, profile, args.server_arg, gc_log=gc_log)
        try:
            stats, u0, u1 = asyncio.run(run_level(f"http://127.0.0.1:{port}",
                                                  f"ws://127.0.0.1:{port}", games, args, index,
                                                  proc.pid))
            health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).json()
        finally:
            # uvicorn re-raises the signal after its shutdown; SIGINT becomes a
            # KeyboardInterrupt, which still lets cProfile (or GC_WATCH) write its file
            proc.send_signal(signal.SIGINT if profile or gc_log else signal.SIGTERM)
            try:
                proc.wait(timeout=60 if profile else 20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        collector = gc_summary(gc_log, u0.at, u1.at) if gc_log else None
    # Which seconds of the window the slow actions were sent in: a few stalls (a collection, a
    # burst of work) crowd into one or two seconds; a server short of CPU spreads them out.
    slow = percentile(stats.table_latency, 99)
    seconds: dict[int, int] = {}
    for at, took in zip(stats.sent, stats.table_latency, strict=True):
        if took >= slow:
            seconds[int(at)] = seconds.get(int(at), 0) + 1
    p50 = percentile(stats.table_latency, 50) * 1000
    p99 = percentile(stats.table_latency, 99) * 1000
    wall = u1.at - u0.at
    server_cpu = u1.server_user + u1.server_sys - u0.server_user - u0.server_sys
    ok = bool(stats.table_latency) and p99 < args.target_ms and not stats.errors
    return {
        "games": games, "connections": games * args.players,
        "measured_actions": len(stats.table_latency),
        "actions_per_s": round(len(stats.table_latency) / args.duration, 1),
        "p50_ms": round(p50, 1), "p99_ms": round(p99, 1),
        "max_ms": round(max(stats.table_latency, default=float("nan")) * 1000, 1),
        "delivery_p99_ms": round(percentile(stats.delivery_latency, 99) * 1000, 1),
        "client_lag_p99_ms": round(percentile(stats.client_lag, 99) * 1000, 1),
        "client_lag_max_ms": round(max(stats.client_lag, default=float("nan")) * 1000, 1),
        "messages": stats.messages, "mbytes": round(stats.bytes / 1e6, 1),
        "server_cpu_pct": round(100 * server_cpu / wall, 1),
        "server_sys_pct": round(100 * (u1.server_sys - u0.server_sys) / wall, 1),
        "server_cpu_ms_per_action": round(1000 * server_cpu / max(1, u1.actions - u0.actions),
                                          3),
        "client_cpu_pct": round(100 * (u1.clients - u0.clients) / wall, 1),
        "server_waiting_for_cpu_pct": round(100 * (u1.server_wait - u0.server_wait) / wall, 1),
        "load_average": round(os.getloadavg()[0], 2),
        "db_commits": health.get("commits"),
        "actions_committed": health.get("actions_committed"),
        "errors": stats.errors, "pass": ok, "gc": collector,
        "slowest_1pct_by_second": dict(sorted(seconds.items(), key=lambda kv: -kv[1])[:5]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[50, 100, 200, 300, 400, 500])
    parser.add_argument("--game", default="under-current")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--think", type=float, default=1.0,
                        help="mean seconds a client waits before acting (default 1.0)")
    parser.add_argument("--duration", type=float, default=20.0, help="measured seconds a level")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--target-ms", type=float, default=100.0)
    parser.add_argument("--max-seconds", type=float, default=900.0,
                        help="stop after this long whatever is left (default 900)")
    parser.add_argument("--keep-going", action="store_true",
                        help="run every level even after one fails")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--db", default=None,
                        help="database URL for the server (default: a fresh SQLite file)")
    parser.add_argument("--sqlite-sync", choices=("FULL", "NORMAL"), default="FULL")
    parser.add_argument("--compare", nargs="+", metavar="CHECKOUT", default=None,
                        help="run every level against a server from each of these checkouts "
                             "in turn (e.g. the old code and the new), alternating their "
                             "order from round to round, so both see the same machine")
    parser.add_argument("--rounds", type=int, default=1,
                        help="with --compare: how many times each checkout runs each level")
    parser.add_argument("--profile", default=None, metavar="FILE",
                        help="run the server under cProfile and write its stats to FILE "
                             "(slows it down; for finding where the time goes)")
    parser.add_argument("--gc-log", action="store_true",
                        help="time every pause of the server's cyclic collector and print "
                             "those of the measured window per generation")
    parser.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                        help="pass ARG to the server's command line (repeat for several), "
                             "e.g. a limit raised for a load test")
    args = parser.parse_args(argv)

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the server inherits it
    try:
        import uvloop  # type: ignore[import-not-found]

        uvloop.install()
    except ImportError:
        pass

    roots = [Path(r).resolve() for r in args.compare] if args.compare else [ROOT]
    rounds = args.rounds if args.compare else 1
    started = time.monotonic()
    results = []
    best = 0
    index = 0
    for games in args.levels:
        level_ok = True
        for r in range(rounds):
            # alternate the order (A B, B A, ...) so neither always runs on a warmer machine
            for root in roots if r % 2 == 0 else roots[::-1]:
                if time.monotonic() - started > args.max_seconds:
                    print(f"stopping: the {args.max_seconds:.0f} s budget is used up",
                          file=sys.stderr)
                    break
                row = measure_level(games, args, index, root, args.profile)
                index += 1
                row["server"] = str(root)
                row["round"] = r
                results.append(row)
                level_ok = level_ok and row["pass"]
                if not args.json:
                    label = f"[{root}] " if args.compare else ""
                    print(f"{label}{games:>4} games {row['connections']:>5} sockets  "
                          f"{row['actions_per_s']:>6} actions/s  p50 {row['p50_ms']:>6} ms  "
                          f"p99 {row['p99_ms']:>7} ms  max {row['max_ms']:>7} ms  server CPU "
                          f"{row['server_cpu_pct']:>5}% (sys {row['server_sys_pct']}%, "
                          f"{row['server_cpu_ms_per_action']} ms/action, "
                          f"+{row['server_waiting_for_cpu_pct']}% waiting "
                          f"for a CPU)  clients {row['client_cpu_pct']:>5}% (loop lag p99 "
                          f"{row['client_lag_p99_ms']} max {row['client_lag_max_ms']} ms)  "
                          f"load {row['load_average']}  commits {row['db_commits']}  "
                          f"{'PASS' if row['pass'] else 'FAIL'} {row['errors'] or ''}",
                          flush=True)
                    if row["gc"]:
                        print(f"{label}  collector pauses: {row['gc']}", flush=True)
                    print(f"{label}  the slowest 1% of actions by second of the window they "
                          f"were sent in (second: count): {row['slowest_1pct_by_second']}",
                          flush=True)
        if level_ok:
            best = max(best, games)
        elif not (args.keep_going or args.compare):
            break
    summary = {"game": args.game, "players": args.players, "think_s": args.think,
               "sqlite_sync": args.sqlite_sync,
               "target_p99_ms": args.target_ms, "max_games_passing": best, "levels": results}
    if args.json:
        print(json.dumps(summary, indent=1))
    elif not args.compare:
        print(f"most concurrent games with p99 action-to-broadcast < {args.target_ms:.0f} ms: "
              f"{best} (goal 500)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
