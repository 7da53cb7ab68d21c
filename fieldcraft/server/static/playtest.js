// A playtest's public page (/p/<name>): choose who sits where and press Play; the finished
// games with their replays; and, when the address carries the designer's token in its
// fragment (#designer=...), the report and the close button. The fragment is never sent to the
// server by the browser, so the token only travels in the body of the designer's own requests.
(function () {
  "use strict";
  const doc = JSON.parse(document.getElementById("playtest-data").textContent);
  const base = "/api/playtests/" + encodeURIComponent(doc.name);

  function seatRow(seat) {
    const select = el("select", { id: "play-seat-" + seat, "aria-label": t("playtest.seat", { n: seat + 1 }) },
      el("option", { value: "human" }, seat === 0 ? t("playtest.you") : t("playtest.person")),
      el("option", { value: "bot" }, t("playtest.bot")));
    select.value = seat === 0 ? "human" : "bot";
    if (seat === 0) select.disabled = true;
    return el("li", {}, t("playtest.seat", { n: seat + 1 }) + " ", select);
  }

  function drawSeats(count) {
    const box = document.getElementById("play-seats");
    if (!box) return;
    clear(box);
    const counts = [];
    for (let n = doc.min_players; n <= doc.max_players; n++) counts.push(n);
    if (counts.length > 1) {
      const pick = el("select", { id: "play-count" },
        ...counts.map((n) => el("option", { value: String(n) }, String(n))));
      pick.value = String(count);
      pick.addEventListener("change", () => drawSeats(Number(pick.value)));
      box.append(el("p", {}, el("label", { for: "play-count" }, t("playtest.players") + " "), pick));
    }
    const list = el("ol", { id: "play-seat-list" });
    for (let seat = 0; seat < count; seat++) list.append(seatRow(seat));
    box.append(list);
  }

  async function play() {
    const error = document.getElementById("play-error");
    const seats = [...document.querySelectorAll("#play-seat-list select")].map((s) => s.value);
    const name = document.getElementById("play-name").value.trim();
    if (name) Tokens.setName(name);
    const button = document.getElementById("play-button");
    button.disabled = true;
    error.textContent = "";
    try {
      const made = await api("POST", base + "/tables", { seats, ...(name ? { name } : {}) });
      Tokens.setHost(made.id, made.host_token);
      if (made.token) Tokens.setSeat(made.id, made.token);
      window.location.href = made.url;
    } catch (e) {
      button.disabled = false;
      error.textContent = errorText(e.code, e.message);
    }
  }

  function drawFinished() {
    const list = document.getElementById("finished-list");
    clear(list);
    if (!doc.finished.length) { list.append(el("li", { class: "help" }, t("playtest.none_finished"))); return; }
    for (const game of doc.finished) {
      const winners = (game.winners || []).map((s) => t("playtest.seat", { n: s + 1 })).join(", ");
      list.append(el("li", { dataset: { table: game.id } },
        el("a", { href: game.replay }, t("playtest.replay")),
        " · " + t("playtest.players_n", { n: game.players }) + " · ", t("playtest.won", { seats: winners || "—" })));
    }
  }

  function designer() {
    const match = /(?:^#|&)designer=([^&]+)/.exec(window.location.hash);
    if (!match) return;
    const token = decodeURIComponent(match[1]);
    const panel = document.getElementById("designer-panel");
    const error = document.getElementById("designer-error");
    panel.hidden = false;
    document.getElementById("report-button").addEventListener("click", async () => {
      error.textContent = "";
      try {
        const report = await api("POST", base + "/report", { token });
        const out = document.getElementById("designer-report");
        out.textContent = report.text;
        out.style.cssText = "white-space:pre-wrap;overflow-wrap:anywhere"; // CSSOM: CSP allows it
        out.hidden = false;
      } catch (e) { error.textContent = errorText(e.code, e.message); }
    });
    const close = document.getElementById("close-button");
    if (close) {
      close.addEventListener("click", async () => {
        error.textContent = "";
        try {
          await api("POST", base + "/close", { token });
          close.remove();
          const panelPlay = document.getElementById("play-panel");
          clear(panelPlay).append(el("p", { class: "notice", id: "playtest-closed" }, t("playtest.closed_now")));
        } catch (e) { error.textContent = errorText(e.code, e.message); }
      });
    }
  }

  drawSeats(doc.min_players);
  const nameBox = document.getElementById("play-name");
  if (nameBox) nameBox.value = Tokens.name();
  const button = document.getElementById("play-button");
  if (button) button.addEventListener("click", play);
  drawFinished();
  designer();
})();
