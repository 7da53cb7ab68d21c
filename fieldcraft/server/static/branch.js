// "Play on from here as seat S": a panel beside a finished game's replay that starts a new
// table from the step on screen (POST /api/tables/<id>/branch). The server re-deals everything
// seat S could not see at that step, so the branch keeps S's knowledge and not the real hidden
// cards; the person takes seat S, bots of the chosen strength the others. The panel follows the
// replay's step and point of view through its "replay:step" event; a spectator's view has no
// seat to play, and the last step has nothing to play on from.
//
// A link back from a branch (/t/<id>/replay?step=K&seat=S) opens the replay at that step and
// seat: the first drawn step moves the replay's own controls there once.
//
// The bots offered are the server's (GET /api/tables/<id>/branch: agents/levels.py), so a new
// level needs no change here. On the branch's own table page (issue 34) the game so far is
// shown above its events: the original's log up to the branch step as its seat saw it, with
// the original seats' names, so the branch does not open on an empty log.
"use strict";

(function () {
  const data = document.getElementById("table-data");
  const TABLE = data ? JSON.parse(data.textContent) : null;
  if (TABLE && TABLE.branch_of && document.getElementById("branch-notice")) {
    showPrelude(TABLE).catch((e) => console.error(e));
  }
  const extras = document.getElementById("replay-extras");
  if (!extras) return;
  let bots = [];
  let defaultBot = null;
  let panel = null;
  let parts = null;
  let current = null; // the latest replay:step detail
  let busy = false;
  let jumped = false;

  function build() {
    const bot = el("select", { id: "branch-bot" },
      bots.map((name) => el("option", { value: name, title: name, selected: name === defaultBot }, botLevel(name))));
    const button = el("button", { id: "branch-play", type: "button", onclick: start });
    const help = el("p", { id: "branch-help", class: "help" });
    const controls = el("div", { class: "branch-controls" },
      el("label", {}, t("branch.bots"), " ", bot), " ", button);
    const status = el("p", { id: "branch-status", class: "help", "aria-live": "polite", hidden: true });
    const error = el("p", { id: "branch-error", class: "error", role: "alert", hidden: true });
    panel = el("div", { class: "panel", id: "branch-panel" },
      el("h2", {}, t("branch.title")), help, controls, status, error);
    parts = { bot, button, help, controls, status, error };
    extras.appendChild(panel);
  }

  function draw() {
    if (!current) return;
    const { step, steps, seat } = current;
    const playable = seat !== null && step < steps;
    parts.controls.hidden = !playable;
    parts.button.disabled = busy || !playable;
    if (seat === null) {
      parts.help.textContent = t("branch.pick_seat");
    } else if (step >= steps) {
      parts.help.textContent = t("branch.at_end");
    } else {
      parts.help.textContent = t("branch.help", { step, seat: seat + 1 });
      parts.button.textContent = t("branch.play_as", { seat: seat + 1 });
    }
    panel.dataset.step = String(step);
    panel.dataset.seat = seat === null ? "" : String(seat);
  }

  function say(node, text) {
    node.textContent = text;
    node.hidden = !text;
  }

  async function start() {
    if (!current || busy) return;
    const { table, step, seat } = current;
    if (seat === null || step >= current.steps) return;
    busy = true;
    draw();
    say(parts.error, "");
    say(parts.status, t("branch.starting"));
    const body = { step, seat, bot: parts.bot.value };
    const name = Tokens.name();
    if (name) body.name = name;
    try {
      const made = await api("POST", `/api/tables/${encodeURIComponent(table.id)}/branch`, body);
      Tokens.setSeat(made.id, made.token);
      Tokens.setHost(made.id, made.host_token);
      window.location.href = made.url;
    } catch (e) {
      const key = "branch.error." + e.code;
      say(parts.error, Object.prototype.hasOwnProperty.call(I18N, key) ? t(key) : errorText(e.code, e.message));
      say(parts.status, "");
      busy = false;
      draw();
    }
  }

  // The link back from a branch names a step and a seat: go there once, with the replay's
  // own controls (the point of view is read when the step loads).
  function jumpOnce() {
    if (jumped) return false;
    jumped = true;
    const query = new URLSearchParams(window.location.search);
    const want = query.get("step");
    if (want === null || !/^\d+$/.test(want)) return false;
    const pov = document.getElementById("pov");
    const seat = query.get("seat");
    if (pov && seat !== null && [...pov.options].some((o) => o.value === seat)) pov.value = seat;
    const slider = document.getElementById("rp-slider");
    if (!slider) return false;
    slider.value = String(Math.min(Number(want), Number(slider.max)));
    slider.dispatchEvent(new Event("input"));
    return true;
  }

  // The bots come from the server before the panel is first drawn; until then steps are kept.
  const ready = api("GET", `/api/tables/${encodeURIComponent(TABLE.id)}/branch`).then((options) => {
    bots = sortBots(options.bots);
    defaultBot = bots.includes(options.default) ? options.default : bots[0];
  });

  document.addEventListener("replay:step", (event) => {
    current = event.detail;
    ready.then(() => {
      if (!panel) build();
      if (jumpOnce()) return; // the step asked for is on its way
      draw();
    }).catch((e) => console.error(e));
  });

  // -- on the branch's table: the original game up to the branch step ---------------------------
  async function showPrelude(table) {
    const log = document.getElementById("log");
    if (!log || typeof Boards === "undefined") return;
    const seat = table.branch_seat;
    const before = await api("GET", `/api/tables/${encodeURIComponent(table.branch_of)}/replay?step=${table.branch_step}&seat=${seat}`);
    const names = (n) => {
      const s = before.seats[n];
      if (!s) return null;
      if (s.kind === "bot") return t("table.bot_n", { n: n + 1, level: botLevel(s.bot) });
      return isolate(s.name) || null;
    };
    // "you" is the branch's seat only for the person holding it; others read seat numbers
    const text = Boards.textFor({ viewer: Tokens.seat(table.id) ? seat : null, names });
    const lines = before.log.filter((e) => e.event).map((e) =>
      el("li", { class: "log-line prelude", "data-version": e.version, "data-key": e.event.key }, text.event(e.event)));
    const list = el("ol", { class: "log prelude-log", id: "branch-prelude-log" }, lines);
    const box = el("details", { id: "branch-prelude", class: "branch-prelude", open: true },
      el("summary", {}, t("branch.prelude", { step: table.branch_step, n: lines.length })), list);
    log.parentNode.insertBefore(box, log);
    list.scrollTop = list.scrollHeight;
  }
})();
