// Replay of a finished game from any seat's point of view: the server re-applies the actions up
// to the chosen step and sends that seat's observation and log. "Forward" and "Back" jump to the
// steps where that seat saw something happen; the slider reaches every step.
"use strict";

(function () {
  const TABLE = JSON.parse(document.getElementById("table-data").textContent);
  if (TABLE.status !== "finished") return;
  const $ = (id) => document.getElementById(id);
  let step = 0;
  let total = 0;
  let marks = [];
  let seats = TABLE.seats;

  function seatLabel(seat) {
    const s = seats[seat];
    const who = s ? (s.kind === "bot" ? t("table.bot") + " " + s.bot : s.name || "") : "";
    return t("table.seat", { n: seat }) + (who ? " · " + who : "");
  }

  async function show(target) {
    const pov = $("pov").value;
    const data = await api("GET", `/api/tables/${encodeURIComponent(TABLE.id)}/replay?step=${target}&seat=${pov}`);
    step = data.step;
    total = data.steps;
    marks = data.marks;
    seats = data.seats;
    $("rp-slider").max = String(total);
    $("rp-slider").value = String(step);
    $("rp-step").textContent = t("replay.step", { n: step, total });
    document.body.dataset.step = String(step);
    const seat = pov === "" ? null : Number(pov);
    const board = clear($("board"));
    board.appendChild(Boards.render(TABLE.game, data.observation, { seat, seats, seatLabel, choices: [], act: () => {} }));
    const log = clear($("log"));
    for (const e of data.log) log.appendChild(el("li", { class: "log-line", "data-version": e.version }, e.line));
    log.scrollTop = log.scrollHeight;
  }

  $("rp-first").addEventListener("click", () => show(0));
  $("rp-last").addEventListener("click", () => show(total));
  $("rp-next").addEventListener("click", () => show(marks.find((m) => m > step) ?? total));
  $("rp-prev").addEventListener("click", () => {
    const before = marks.filter((m) => m < step);
    show(before.length ? before[before.length - 1] : 0);
  });
  $("rp-slider").addEventListener("input", () => show(Number($("rp-slider").value)));
  $("pov").addEventListener("change", () => show(step));
  show(-1);
})();
