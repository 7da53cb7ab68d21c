"""Memory benchmark of the web table: many bot-only games played to the end on one server.

A server (``python -m fieldcraft.server`` on 127.0.0.1, as ``web_load.py`` starts it, its own
SQLite file) plays ``--games`` tables whose seats are all the server's own bots (``--bot-delay``
seconds before each bot move), ``--concurrent`` at a time: a new table is created as soon as one
ends. A spectator WebSocket follows each table until its game is over, like a page left open.

Finished tables should cost nothing once the hub has evicted them (it keeps the newest
``FINISHED_KEPT`` in memory), so the server's resident memory (``VmRSS`` in
``/proc/PID/status``) should stop growing with the number of games played. The script prints
the **RSS slope in MB per game**: a least-squares line through (games finished, RSS) over the
games after ``--skip`` (by then the kept finished tables are all there). It also asks
``/healthz`` every ``--health-every`` seconds throughout and prints its latency percentiles,
which show the event loop's pauses (a collector walking leaked tables would stall it).

    .venv/bin/python benchmarks/web_memory.py                       # 1,200 games
    .venv/bin/python benchmarks/web_memory.py --compare /tmp/old .  # the old tree, then this one
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from web_load import ROOT, cpu_seconds, free_port, percentile, start_server  # noqa: E402


def rss_mb(pid: int) -> float:
    """The process's resident memory in MB (``VmRSS``), or NaN if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of y on x (NaN with fewer than two distinct x)."""
    n = len(points)
    if n < 2:
        return float("nan")
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    if sxx == 0:
        return float("nan")
    return sum((x - mx) * (y - my) for x, y in points) / sxx


async def follow(ws_base: str, table_id: str) -> None:
    """Watch a table as a spectator until its game is over."""
    async with websockets.connect(f"{ws_base}/ws/{table_id}", max_size=2**22, compression=None,
                                  open_timeout=60, ping_interval=None, close_timeout=2) as ws:
        await ws.send('{"type":"hello"}')
        async for raw in ws:
            if '"terminal":true' in raw:
                return


async def play(base: str, ws_base: str, pid: int, args: argparse.Namespace) -> dict[str, Any]:
    samples: list[tuple[int, float]] = [(0, rss_mb(pid))]
    health: list[tuple[int, float]] = []  # (games finished by then, seconds)
    finished = started = 0
    errors: dict[str, int] = {}
    done = asyncio.Event()
    body = {"game": args.game, "players": args.players, "seats": ["bot"] * args.players}

    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        async def one_table() -> None:
            nonlocal finished
            res = await http.post("/api/tables", json=body)
            if res.status_code != 201:
                errors[str(res.status_code)] = errors.get(str(res.status_code), 0) + 1
                await asyncio.sleep(0.1)
                return
            await asyncio.wait_for(follow(ws_base, res.json()["id"]), args.game_timeout)
            finished += 1
            if finished % args.sample_every == 0:
                samples.append((finished, rss_mb(pid)))

        async def worker() -> None:
            nonlocal started
            while started < args.games:
                started += 1
                try:
                    await one_table()
                except Exception as exc:  # noqa: BLE001 - counted, the run goes on
                    name = type(exc).__name__
                    errors[name] = errors.get(name, 0) + 1

        async def watch_health() -> None:
            async with httpx.AsyncClient(base_url=base, timeout=30) as probe:
                while not done.is_set():
                    start = time.perf_counter()
                    await probe.get("/healthz")
                    health.append((finished, time.perf_counter() - start))
                    await asyncio.sleep(args.health_every)

        watcher = asyncio.ensure_future(watch_health())
        began = time.monotonic()
        cpu0 = sum(cpu_seconds(pid))
        await asyncio.gather(*(worker() for _ in range(args.concurrent)))
        wall = time.monotonic() - began
        cpu = sum(cpu_seconds(pid)) - cpu0
        done.set()
        await watcher
        final = (await http.get("/healthz")).json()

    fitted = [(g, r) for g, r in samples if g >= args.skip]
    half = [(g, r) for g, r in fitted if g >= (args.skip + finished) / 2]
    ms = [h * 1000 for _, h in health]
    # per quarter of the games: flat if finished tables cost the server nothing
    quarters = [round(percentile([h * 1000 for g, h in health
                                  if q * finished / 4 <= g < (q + 1) * finished / 4], 99), 1)
                for q in range(4)]
    return {
        "games": finished, "seconds": round(wall, 1), "games_per_s": round(finished / wall, 1),
        "rss_start_mb": round(samples[0][1], 1), "rss_end_mb": round(samples[-1][1], 1),
        "rss_at_skip_mb": round(fitted[0][1], 1) if fitted else None,
        "slope_mb_per_game": round(slope(fitted), 4),
        "slope_second_half_mb_per_game": round(slope(half), 4),
        "healthz_samples": len(ms),
        "healthz_p50_ms": round(percentile(ms, 50), 1),
        "healthz_p99_ms": round(percentile(ms, 99), 1),
        "healthz_max_ms": round(max(ms, default=float("nan")), 1),
        "healthz_p99_by_quarter_ms": quarters,
        "server_cpu_pct": round(100 * cpu / wall, 1),
        "load_average": round(os.getloadavg()[0], 2),
        "actions_committed": final.get("actions_committed"),
        "errors": errors,
        "rss": samples,
    }


def measure(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One run against a fresh server started from ``root``."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(port, f"sqlite:///{tmp}/memory.db", args.sqlite_sync, root,
                            extra=args.server_arg, bot_delay=args.bot_delay)
        try:
            return asyncio.run(play(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}",
                                    proc.pid, args))
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except Exception:  # noqa: BLE001 - a server that will not stop is killed
                proc.kill()
                proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1200)
    parser.add_argument("--concurrent", type=int, default=20, help="tables playing at once")
    parser.add_argument("--game", default="spy-tracker")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--bot-delay", type=float, default=0.001,
                        help="the server's pause before each bot move (default 0.001 s)")
    parser.add_argument("--skip", type=int, default=300,
                        help="games left out of the fit: the hub keeps the newest 200 "
                             "finished tables, so memory rightly grows until then")
    parser.add_argument("--sample-every", type=int, default=10, help="games between RSS samples")
    parser.add_argument("--health-every", type=float, default=0.05,
                        help="seconds between /healthz requests")
    parser.add_argument("--game-timeout", type=float, default=300.0)
    parser.add_argument("--sqlite-sync", choices=("FULL", "NORMAL"), default="NORMAL")
    parser.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                        help="pass ARG to the server's command line (repeat for several)")
    parser.add_argument("--compare", nargs="+", metavar="CHECKOUT", default=None,
                        help="run against a server from each of these checkouts in turn")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    roots = [Path(r).resolve() for r in args.compare] if args.compare else [ROOT]
    results = []
    for root in roots:
        row = measure(root, args)
        row["server"] = str(root)
        results.append(row)
        if not args.json:
            print(f"[{root}] {row['games']} games in {row['seconds']} s "
                  f"({row['games_per_s']}/s, server CPU {row['server_cpu_pct']}%, load "
                  f"{row['load_average']})  RSS {row['rss_start_mb']} -> "
                  f"{row['rss_at_skip_mb']} (game {args.skip}) -> {row['rss_end_mb']} MB  "
                  f"slope {row['slope_mb_per_game']} MB/game (second half "
                  f"{row['slope_second_half_mb_per_game']})  /healthz p50 "
                  f"{row['healthz_p50_ms']} p99 {row['healthz_p99_ms']} max "
                  f"{row['healthz_max_ms']} ms ({row['healthz_samples']} asked; p99 by "
                  f"quarter of the games {row['healthz_p99_by_quarter_ms']})  "
                  f"{row['errors'] or ''}", flush=True)
    if args.json:
        print(json.dumps({"game": args.game, "players": args.players,
                          "bot_delay": args.bot_delay, "runs": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
