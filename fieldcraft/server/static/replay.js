// Replay of a finished game from any seat's point of view: the server re-applies the actions up
// to the chosen step and sends that seat's observation, log events and the chat written so far.
// It starts at step 0. "Forward" and "Back" (one pair: issue 34) jump to the steps where that
// seat saw something happen, the slider reaches every step, and Play walks forward at the
// chosen speed. The log is rendered from events in the page's language, read by the chosen
// seat ("you" for its own moves); the board highlights, and a line above it says, the last
// move up to the step (LastMove in common.js).
"use strict";

(function () {
  const TABLE = JSON.parse(document.getElementById("table-data").textContent);
  if (TABLE.status !== "finished") return;
  const $ = (id) => document.getElementById(id);
  const BASE_DELAY = 1000; // ms per shown step at 1x
  let step = 0;
  let total = 0;
  let marks = [];
  let seats = TABLE.seats;
  let playing = null;
  let loading = null;

  // One name for a seat, as on the table page (Boards.playerName): "Bot 2 (Normal)", "Ann".
  function playerName(seat) {
    return seats[seat] ? Boards.playerName(seats, seat, null) : null;
  }

  function seatLabel(seat) {
    return Boards.playerName(seats, seat, null);
  }

  function show(target) {
    // One request at a time, in the order asked. A target given as a function is worked out
    // when its turn comes, from the step the requests before it reached: three quick clicks
    // on "next" go three marks on, not to the same one three times.
    loading = (loading || Promise.resolve())
      .then(() => load(typeof target === "function" ? target() : target))
      .catch((e) => console.error(e));
    return loading;
  }

  async function load(target) {
    const pov = $("pov").value;
    const data = await api("GET", `/api/tables/${encodeURIComponent(TABLE.id)}/replay?step=${target}&seat=${pov}`);
    step = data.step;
    total = data.steps;
    marks = data.marks;
    seats = data.seats;
    $("rp-slider").max = String(total);
    $("rp-slider").value = String(step);
    $("rp-step").textContent = t("replay.step", { n: step, total });
    const seat = pov === "" ? null : Number(pov);
    const reader = { viewer: seat, names: playerName };
    Boards.reader = reader;
    // this step's cell names (Undercover's frame follows the tiles) before the caption is worded
    Boards.setFrame(TABLE.game, data.observation);
    const recent = LastMove.of(data.log);
    LastMove.caption($("last-move"), recent, Boards.textFor(reader), false);
    const board = clear($("board"));
    board.appendChild(Boards.render(TABLE.game, data.observation, { seat, seats, seatLabel, choices: [], act: () => {}, overrides: TABLE.overrides || {},
      disabled: true, recent, text: Boards.textFor(reader) }));
    const text = Boards.textFor(reader);
    const log = clear($("log"));
    for (const e of data.log) {
      if (!e.event) continue;
      log.appendChild(el("li", { class: "log-line", "data-version": e.version, "data-key": e.event.key }, text.event(e.event)));
    }
    log.scrollTop = log.scrollHeight;
    Chat.render($("chat-log"), data.chat || [], seatLabel);
    document.body.dataset.step = String(step);
    // Panels beside the replay (deduction, analysis, branch) follow the step and point of view.
    document.dispatchEvent(new CustomEvent("replay:step", { detail: { table: TABLE, step, steps: total, seat, data } }));
    if (playing && step >= total) pause();
  }

  function nextMark() { return marks.find((m) => m > step) ?? total; }

  function play() {
    if (step >= total) show(0);
    $("rp-play").textContent = "❚❚ " + t("replay.pause");
    $("rp-play").setAttribute("aria-pressed", "true");
    document.body.dataset.playing = "yes";
    const tick = async () => {
      if (!playing) return;
      await show(nextMark());
      if (!playing) return;
      playing = setTimeout(tick, BASE_DELAY / Number($("rp-speed").value));
    };
    playing = setTimeout(tick, BASE_DELAY / Number($("rp-speed").value));
  }

  function pause() {
    if (playing) clearTimeout(playing);
    playing = null;
    $("rp-play").textContent = "▶ " + t("replay.play");
    $("rp-play").setAttribute("aria-pressed", "false");
    document.body.dataset.playing = "no";
  }

  $("rp-play").addEventListener("click", () => (playing ? pause() : play()));
  $("rp-first").addEventListener("click", () => show(0));
  $("rp-last").addEventListener("click", () => show(total));
  $("rp-next").addEventListener("click", () => show(nextMark));
  $("rp-prev").addEventListener("click", () => show(() => {
    const before = marks.filter((m) => m < step);
    return before.length ? before[before.length - 1] : 0;
  }));
  $("rp-slider").addEventListener("input", () => show(Number($("rp-slider").value)));
  $("pov").addEventListener("change", () => show(step));
  document.body.dataset.playing = "no";
  // The first step is drawn once every script of the page has run, so the panels beside the
  // replay (loaded after this file) hear its replay:step event too.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => show(0));
  else show(0);
})();
