// The replay's deduction panel: what the chosen seat could infer about each hidden thing, step
// by step. It follows the replay (the "replay:step" event replay.js fires after each step is
// drawn): a chart of the seat's uncertainty in bits over the whole game with the current step
// marked, what the seat believed at this step (each secret's likeliest values), and the moments
// each secret became certain to it. The report comes from GET /api/tables/{id}/deduction,
// computed once per table and seat on the server; while it is being computed (202) the panel
// asks again. Only finished games have a replay, so only they get the panel.
"use strict";

(function () {
  const data = document.getElementById("table-data");
  const slot = document.getElementById("replay-extras");
  if (!data || !slot) return;
  const TABLE = JSON.parse(data.textContent);
  if (TABLE.status !== "finished") return;
  const POLL_MS = 500;
  const SHOWN_VALUES = 4;
  const W = 320, H = 96, PAD = 4;

  // The stylesheet is linked from here, so the replay page's template needs one script line.
  document.head.appendChild(el("link", { rel: "stylesheet", href: "/static/deduction.css" }));

  const body = el("div", { id: "deduce-body" });
  const panel = el("section", { class: "panel deduce-panel", id: "deduce-panel", "aria-labelledby": "deduce-title" },
    el("h2", { id: "deduce-title" }, t("deduce.title")), body);
  slot.appendChild(panel);

  const reports = new Map(); // seat -> Promise of its report
  let latest = null; // the last replay:step detail

  function report(seat) {
    if (!reports.has(seat)) {
      const url = `/api/tables/${encodeURIComponent(TABLE.id)}/deduction?seat=${seat}`;
      const load = async () => {
        for (;;) {
          const doc = await api("GET", url);
          if (doc.status === "ready") return doc;
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        }
      };
      const promise = load();
      promise.catch(() => reports.delete(seat)); // a failure is asked again on the next step
      reports.set(seat, promise);
    }
    return reports.get(seat);
  }

  function seatName(seat) { return t("table.seat", { n: seat + 1 }); }

  function text() { return Boards.textFor(Boards.reader || { viewer: null, names: () => null }); }

  function label(info) {
    const p = info.label.params || {};
    const g = text();
    const values = { ...p };
    if ("seat" in p) values.seat = seatName(p.seat);
    if ("bidder" in p) values.bidder = seatName(p.bidder);
    if ("trait" in p) values.trait = g.name("trait", p.trait);
    if ("colour" in p) values.colour = g.name("colour", p.colour);
    if (info.label.key === "agent_back") { // the game's own words for an Agent where it lies
      const where = p.held ? g.key("held") : p.pile ? g.key("pile", { name: p.pile })
        : g.name("column", p.x) + String(p.y + 1);
      values.agent = g.key("agent_name", { colour: values.colour, cell: where });
    }
    return t("deduce.secret." + info.label.key, values);
  }

  function valueText(info, value) {
    return info.ns ? text().name(info.ns, value) : t("deduce.value." + value);
  }

  function percent(p) { return Math.round(p * 100) + "%"; }

  function pointAt(timeline, step) {
    let found = null;
    for (const point of timeline) {
      if (point.step > step) break;
      found = point;
    }
    return found;
  }

  function chart(doc, seatReport, step) {
    // from the first step with something hidden: before the deal there is nothing to be unsure of
    const first = seatReport.timeline.findIndex((p) => Object.keys(p.secrets).length > 0);
    const timeline = first < 0 ? [] : seatReport.timeline.slice(first);
    const steps = Math.max(1, doc.steps);
    const top = Math.max(1, ...timeline.map((p) => p.entropy));
    const x = (s) => PAD + (W - 2 * PAD) * s / steps;
    const y = (bits) => H - PAD - (H - 2 * PAD) * bits / top;
    let path = "";
    timeline.forEach((point, i) => {
      path += (i === 0 ? `M${x(point.step)},${y(point.entropy)}` : `H${x(point.step)}V${y(point.entropy)}`);
    });
    if (timeline.length) path += `H${x(steps)}`;
    const marks = Object.values(seatReport.secrets).filter((s) => s.certain_from).map((s) =>
      svg("circle", { class: "deduce-sure", cx: x(s.certain_from.step), cy: H - PAD, r: 3 },
        svg("title", {}, factText(doc, s))));
    return el("figure", { class: "deduce-chart" },
      svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("deduce.chart", { bits: top }) },
        svg("line", { class: "deduce-axis", x1: PAD, y1: H - PAD, x2: W - PAD, y2: H - PAD }),
        svg("path", { class: "deduce-line", d: path }),
        marks,
        svg("line", { class: "deduce-cursor", x1: x(step), y1: PAD, x2: x(step), y2: H - PAD })),
      el("figcaption", { class: "muted" }, t("deduce.chart", { bits: +top.toFixed(2) })));
  }

  function factText(doc, info) {
    const mark = info.certain_from;
    let when;
    if (mark.step >= doc.steps && doc.finished) when = t("deduce.at_end");
    else if (mark.turn !== null && mark.turn !== undefined) {
      when = doc.turn_word === "round" ? t("deduce.from_round", { n: mark.turn }) : t("deduce.from_turn", { n: mark.turn });
    }
    else when = t("deduce.from_step", { n: mark.step });
    return t("deduce.knew", { what: label(info), value: valueText(info, mark.value), when });
  }

  function beliefs(seatReport, point) {
    const items = [];
    for (const [key, entry] of Object.entries(point ? point.secrets : {})) {
      const info = seatReport.secrets[key];
      const dist = Object.entries(entry.dist).sort((a, b) => b[1] - a[1]);
      const sure = dist.length === 1;
      const shown = dist.slice(0, SHOWN_VALUES).map(([v, p]) =>
        el("span", { class: "deduce-value" }, valueText(info, v), sure ? "" : " " + percent(p)));
      if (dist.length > SHOWN_VALUES) shown.push(el("span", { class: "muted" }, t("deduce.more", { n: dist.length - SHOWN_VALUES })));
      items.push(el("li", { class: sure ? "deduce-secret certain" : "deduce-secret", "data-key": key },
        el("span", { class: "deduce-label" }, label(info), sure ? " ✓" : ""), " ", shown));
    }
    if (!items.length) return el("p", { class: "muted", id: "deduce-now" }, t("deduce.nothing_hidden"));
    return el("ul", { class: "deduce-now", id: "deduce-now" }, items);
  }

  function draw(doc, seat, step) {
    const seatReport = doc.seats.find((s) => s.seat === seat);
    const point = pointAt(seatReport.timeline, step);
    const head = [];
    if (point) {
      head.push(t("deduce.uncertainty", { bits: +point.entropy.toFixed(2) }));
      if (point.assignments !== undefined) head.push(t("deduce.assignments", { n: point.assignments }));
      if (point.pile) head.push(t("deduce.pile", { n: Object.values(point.pile).reduce((a, b) => a + b, 0) }));
    }
    const facts = Object.values(seatReport.secrets).filter((s) => s.certain_from)
      .sort((a, b) => a.certain_from.step - b.certain_from.step)
      .map((s) => el("li", { class: s.certain_from.step <= step ? "reached" : "later" }, factText(doc, s)));
    clear(body).append(
      el("p", { class: "deduce-who" }, t("deduce.for_seat", { seat: seatName(seat) }), " · ",
        el("span", { class: "muted" }, doc.samples ? t("deduce.estimated", { n: doc.samples }) : t("deduce.exact"))),
      chart(doc, seatReport, step),
      el("p", { class: "deduce-head", id: "deduce-head" }, head.join(" · ")),
      beliefs(seatReport, point),
      el("h3", {}, t("deduce.certain_title")),
      facts.length ? el("ol", { class: "deduce-facts", id: "deduce-facts" }, facts)
        : el("p", { class: "muted", id: "deduce-facts" }, t("deduce.never_certain")));
    panel.dataset.seat = String(seat);
    panel.dataset.step = String(step);
    panel.dataset.ready = "yes";
  }

  async function update() {
    const detail = latest;
    const seat = detail.seat;
    if (seat === null || seat === undefined) {
      panel.dataset.ready = "spectator";
      delete panel.dataset.seat;
      clear(body).append(el("p", { class: "muted" }, t("deduce.pick_seat")));
      return;
    }
    if (panel.dataset.seat !== String(seat)) {
      panel.dataset.ready = "no";
      clear(body).append(el("p", { class: "muted" }, t("deduce.computing")));
    }
    try {
      const doc = await report(seat);
      if (latest === detail) draw(doc, seat, detail.step);
    } catch (e) {
      if (e.code === "deduce.no_secrets") { // a game with nothing hidden to deduce: no panel
        panel.hidden = true;
        return;
      }
      if (latest !== detail) return;
      panel.dataset.ready = "error";
      clear(body).append(el("p", { class: "muted" }, t("deduce.failed")));
    }
  }

  document.addEventListener("replay:step", (event) => {
    latest = event.detail;
    update();
  });
})();
