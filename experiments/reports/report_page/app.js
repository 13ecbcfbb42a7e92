// report.html's script (embedded at build time; report_html.h). It reads the JSON the
// page carries (#report-data) and draws the figures with Vega-Lite through vega-embed;
// the tables are already in the HTML, this only makes them sortable and filterable.
// Every error is shown on the page and logged, so a broken chart is never silent.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const figures = data.figures || [];

  function reportError(where, error) {
    let box = document.getElementById("report-errors");
    if (!box) {
      box = document.createElement("div");
      box.id = "report-errors";
      document.querySelector("main").prepend(box);
    }
    const p = document.createElement("p");
    p.textContent = "Could not draw " + where + ": " + (error && error.message ? error.message : error);
    box.append(p);
    console.error(where, error);
  }
  window.addEventListener("error", (e) => reportError("the page", e.error || e.message));

  // ---- labels: the shortest dotted suffix of each swept key that no other key shares,
  // so a legend says "qk=shared scale=none", not the full paths.
  const keys = data.keys || [];
  const shortKey = {};
  for (const k of keys) {
    const parts = k.split(".");
    for (let n = 1; n <= parts.length; n++) {
      const s = parts.slice(-n).join(".");
      if (keys.filter((o) => o === k || o.endsWith("." + s) || o === s).length === 1) { shortKey[k] = s; break; }
    }
    if (!shortKey[k]) shortKey[k] = k;
  }
  const severalRuns = new Set(figures.map((f) => f.run)).size > 1;
  function pointLabel(f, except) {
    const parts = [];
    for (const k of keys) if (k !== except && f.values && k in f.values) parts.push(shortKey[k] + "=" + f.values[k]);
    let label = parts.join(" ") || (except ? "all" : "the only point");
    if (severalRuns) label = f.run + ": " + label;
    return label;
  }
  const byPoint = new Map(figures.map((f) => [f.run + "/" + f.point_id, f]));
  const comparisons = data.comparisons || { columns: [], rows: [] };
  const col = (name) => comparisons.columns.indexOf(name);
  const num = (s) => (s === undefined || s === "" ? null : Number(s));

  function element(tag, attributes, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attributes || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function select(container, label, options, value, onChange) {
    const l = element("label", {}, label + " ");
    const s = element("select");
    for (const [v, text] of options) {
      const o = element("option", { value: v }, text);
      if (v === value) o.selected = true;
      s.append(o);
    }
    s.addEventListener("change", () => onChange(s.value));
    l.append(s);
    container.append(l);
    return s;
  }
  function checkbox(container, label, onChange) {
    const l = element("label", {}, label + " ");
    const c = element("input", { type: "checkbox" });
    c.addEventListener("change", () => onChange(c.checked));
    l.append(c);
    container.append(l);
  }
  function clear(id) {
    const e = document.getElementById(id);
    e.replaceChildren();
    return e;
  }
  function draw(where, target, spec) {
    return vegaEmbed(target, spec, {
      mode: "vega-lite",
      renderer: "svg",
      actions: { export: true, source: false, compiled: false, editor: false },
    }).catch((e) => reportError(where, e));
  }

  // ---- sortable tables: a click on a header sorts by that column (numbers as numbers,
  // empty cells last), a second click reverses.
  for (const table of document.querySelectorAll("table.sortable")) {
    const heads = table.querySelectorAll("thead th");
    heads.forEach((th, i) => th.addEventListener("click", () => {
      const descending = th.dataset.sorted === "asc";
      heads.forEach((h) => delete h.dataset.sorted);
      th.dataset.sorted = descending ? "desc" : "asc";
      const body = table.tBodies[0];
      const rows = Array.from(body.rows);
      const value = (r) => r.cells[i].textContent;
      rows.sort((a, b) => {
        const x = value(a), y = value(b);
        if (x === "" || y === "") return x === y ? 0 : x === "" ? 1 : -1;
        const nx = Number(x), ny = Number(y);
        const c = !isNaN(nx) && !isNaN(ny) ? nx - ny : x.localeCompare(y);
        return descending ? -c : c;
      });
      body.append(...rows);
    }));
  }

  // ---- the metric shown by the points table and the metric-vs-axis charts
  const metrics = [...new Set(comparisons.rows.map((r) => r[col("metric")]))];
  let metric = metrics.includes(data.primary) ? data.primary : metrics[0];
  const pointsTable = document.getElementById("comparisons-table");
  function filterPoints() {
    if (!pointsTable) return;
    for (const tr of pointsTable.tBodies[0].rows) {
      const cell = tr.querySelector("td[data-col=metric]");
      tr.hidden = cell !== null && cell.textContent !== metric;
    }
  }
  if (metrics.length > 1) {
    select(document.getElementById("points-controls"), "metric", metrics.map((m) => [m, m]), metric, (m) => {
      metric = m;
      filterPoints();
      drawByAxis();
    });
  }
  filterPoints();

  // ---- metric vs axis: comparisons.csv's mean and interval per point, seeds as dots
  function drawByAxis() {
    const box = clear("by-axis-charts");
    const rows = [], seeds = [];
    for (const r of comparisons.rows) {
      if (r[col("metric")] !== metric) continue;
      const f = byPoint.get((r[col("run")] || "") + "/" + r[col("point_id")]) ||
        figures.find((g) => g.point_id === r[col("point_id")]);
      if (!f) continue;
      rows.push({ f, mean: num(r[col("mean")]), low: num(r[col("ci_low")]), high: num(r[col("ci_high")]), n: num(r[col("n")]) });
      for (const [seed, values] of Object.entries(f.test || {}))
        if (values[metric] !== undefined) seeds.push({ f, seed: Number(seed), value: values[metric] });
    }
    const axes = keys.length ? keys : [null];
    for (const key of axes) {
      const x = key ? shortKey[key] : "point";
      const at = (f) => (key ? f.values[key] : pointLabel(f));
      const series = (f) => (key && keys.length > 1 ? pointLabel(f, key) : severalRuns ? f.run : "all");
      const values = rows.map((r) => ({ x: at(r.f), series: series(r.f), mean: r.mean, low: r.low, high: r.high, n: r.n, point: pointLabel(r.f) }));
      const dots = seeds.map((s) => ({ x: at(s.f), series: series(s.f), value: s.value, seed: s.seed, point: pointLabel(s.f) }));
      const target = element("div", { class: "chart", "data-key": key || "" });
      box.append(target);
      const color = { field: "series", type: "nominal", title: key && keys.length > 1 ? "other keys" : "" };
      // The key's values in numeric order when they are numbers (heads 1, 2, 4, 16), else
      // in the order the sweep lists them.
      const xs = [...new Set(values.map((v) => v.x))];
      const numeric = xs.every((v) => v !== "" && !isNaN(Number(v)));
      const order = numeric ? xs.slice().sort((a, b) => Number(a) - Number(b)) : null;
      const enc = { x: { field: "x", type: "nominal", title: key || "point", sort: order, axis: { labelAngle: 0 } }, xOffset: { field: "series" }, color };
      draw("test " + metric + " vs " + x, target, {
        title: { text: "test " + metric + " vs " + x, subtitle: "validation-selected step; mean and 95% interval over seeds, as in comparisons.csv; dots: seeds" },
        width: Math.min(760, Math.max(260, 45 * xs.length * Math.max(1, new Set(values.map((v) => v.series)).size))),
        height: 260,
        layer: [
          { data: { values: dots }, mark: { type: "point", opacity: 0.35, size: 18, filled: true },
            encoding: { ...enc, y: { field: "value", type: "quantitative", title: "test " + metric, scale: { zero: false } },
              tooltip: [{ field: "point" }, { field: "seed" }, { field: "value", format: ".4g" }] } },
          { data: { values }, mark: { type: "rule", strokeWidth: 2 },
            encoding: { ...enc, y: { field: "low", type: "quantitative" }, y2: { field: "high" } } },
          { data: { values }, mark: { type: "point", filled: true, size: 80, shape: "diamond" },
            encoding: { ...enc, y: { field: "mean", type: "quantitative" },
              tooltip: [{ field: "point" }, { field: "n" }, { field: "mean" }, { field: "low", title: "ci_low" }, { field: "high", title: "ci_high" }] } },
        ],
      });
    }
  }
  drawByAxis();

  // ---- curves: every seed faint, the mean bold over its interval band
  const curveNames = [...new Set(figures.flatMap((f) => f.seeds.flatMap((s) => Object.keys(s.metrics))))];
  const curveTitle = (m) => ({ train_loss: "train loss", val_loss: "validation loss", lr: "learning rate", grad_norm: "gradient norm" }[m] || "validation " + m);
  const order = ["train_loss", "val_loss", "lr", "grad_norm"];
  curveNames.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99) || a.localeCompare(b));
  let curve = curveNames.includes("val_loss") ? "val_loss" : curveNames[0];
  let logY = false;
  function drawCurves() {
    const target = clear("curves-chart");
    if (!curve) { target.append(element("p", {}, "No trial recorded evaluations.")); return; }
    const lines = [], bands = [];
    for (const f of figures) {
      const label = pointLabel(f);
      for (const s of f.seeds) {
        const v = s.metrics[curve] || [];
        s.steps.forEach((step, i) => { if (v[i] !== null && v[i] !== undefined) lines.push({ point: label, seed: s.seed, step, value: v[i] }); });
      }
      const b = (f.bands || {})[curve];
      if (b) b.steps.forEach((step, i) => bands.push({ point: label, step, mean: b.mean[i], low: b.low[i], high: b.high[i], n: b.n[i] }));
    }
    const y = { type: "quantitative", title: curveTitle(curve), scale: logY ? { type: "log" } : { zero: false } };
    const color = { field: "point", type: "nominal", title: "point" };
    draw("the curves", target, {
      title: { text: curveTitle(curve) + " against step", subtitle: "each seed a faint line; bold: mean over seeds; band: its 95% interval" },
      width: 720, height: 360,
      encoding: { x: { field: "step", type: "quantitative", title: "step" }, color },
      layer: [
        { data: { values: bands.filter((b) => b.low !== null) }, mark: { type: "area", opacity: 0.15 },
          encoding: { y: { ...y, field: "low" }, y2: { field: "high" } } },
        { data: { values: lines }, mark: { type: "line", opacity: 0.3, strokeWidth: 1 },
          encoding: { y: { ...y, field: "value" }, detail: { field: "seed", type: "nominal" },
            tooltip: [{ field: "point" }, { field: "seed" }, { field: "step" }, { field: "value", format: ".4g" }] } },
        { data: { values: bands }, mark: { type: "line", strokeWidth: 2.5 },
          encoding: { y: { ...y, field: "mean" },
            tooltip: [{ field: "point" }, { field: "step" }, { field: "n" }, { field: "mean", format: ".4g" }, { field: "low", format: ".4g" }, { field: "high", format: ".4g" }] } },
      ],
    });
  }
  const curveControls = document.getElementById("curves-controls");
  if (curveNames.length) {
    select(curveControls, "draw", curveNames.map((m) => [m, curveTitle(m)]), curve, (m) => { curve = m; drawCurves(); });
    checkbox(curveControls, "log scale", (on) => { logY = on; drawCurves(); });
  }
  drawCurves();

  // ---- attention: a panel per head, masked cells (weight exactly 0) crossed out
  const withAttention = figures.filter((f) => f.attention && f.attention.modules && f.attention.modules.length);
  let attentionPoint = 0, attentionModule = 0;
  function tokens(a, which) { return Array.isArray(a[which]) ? a[which] : null; }
  function drawAttention() {
    const target = clear("attention-chart");
    if (!withAttention.length) {
      target.append(element("p", {}, "No trial of this run recorded attention maps (sequence tasks write attention.json)."));
      return;
    }
    const f = withAttention[attentionPoint];
    const a = f.attention, m = a.modules[Math.min(attentionModule, a.modules.length - 1)];
    const qt = tokens(a, m.queries), kt = tokens(a, m.keys);
    // A long stream (a language model's 256 positions) would be 65,536 cells a head:
    // the first 48 positions each way say what a pattern is and stay readable.
    const cap = 48;
    const rows = Math.min(cap, m.weights[0].length), columns = Math.min(cap, m.weights[0][0].length);
    const cut = rows < m.weights[0].length || columns < m.weights[0][0].length;
    const cells = [];
    m.weights.forEach((head, h) => head.slice(0, cap).forEach((row, q) => row.slice(0, cap).forEach((w, k) => cells.push({
      head: "head " + h, q, k, w, masked: Boolean(m.masked && m.masked[q] && m.masked[q][k]),
      ql: q + (qt && qt[q] !== undefined ? " " + qt[q] : ""), kl: k + (kt && kt[k] !== undefined ? " " + kt[k] : ""),
    }))));
    const enc = {
      x: { field: "kl", type: "ordinal", sort: { field: "k" }, title: "key position (" + m.keys + ")" },
      y: { field: "ql", type: "ordinal", sort: { field: "q" }, title: "query position (" + m.queries + ")" },
    };
    draw("the attention maps", target, {
      title: { text: m.name + " — " + pointLabel(f), subtitle: "seed " + a.seed + ", trial " + a.trial +
        (m.mask_reasons && m.mask_reasons.length ? "; crossed out: masked (" + m.mask_reasons.join("; ") + ")" : "; no cell masked") +
        (cut ? "; the first " + cap + " positions of " + m.weights[0].length + " x " + m.weights[0][0].length : "") },
      data: { values: cells },
      facet: { column: { field: "head", type: "nominal", title: null } },
      spec: {
        width: (cut ? 10 : 24) * columns, height: (cut ? 10 : 24) * rows,
        layer: [
          { transform: [{ filter: "!datum.masked" }], mark: "rect",
            encoding: { ...enc, color: { field: "w", type: "quantitative", title: "attention weight", scale: { scheme: "viridis", domainMin: 0 } },
              tooltip: [{ field: "ql", title: "query" }, { field: "kl", title: "key" }, { field: "w", title: "weight", format: ".3f" }] } },
          { transform: [{ filter: "datum.masked" }], mark: { type: "rect", fill: "#eeeeee", stroke: "#bbbbbb" }, encoding: enc },
          { transform: [{ filter: "datum.masked" }], mark: { type: "text", text: "×", color: "#777777" }, encoding: enc },
        ],
      },
    });
  }
  const attentionControls = document.getElementById("attention-controls");
  function attentionSelectors() {
    attentionControls.replaceChildren();
    if (!withAttention.length) return;
    select(attentionControls, "point", withAttention.map((f, i) => [String(i), pointLabel(f)]), String(attentionPoint), (v) => {
      attentionPoint = Number(v); attentionModule = 0; attentionSelectors(); drawAttention();
    });
    select(attentionControls, "module", withAttention[attentionPoint].attention.modules.map((m, i) => [String(i), m.name]), String(attentionModule), (v) => {
      attentionModule = Number(v); drawAttention();
    });
  }
  attentionSelectors();
  drawAttention();

  // ---- forecast vs truth: a few test windows of each point's first seed
  for (const slot of document.querySelectorAll(".forecast-chart")) {
    const f = byPoint.get(slot.dataset.pointId);
    if (!f || !f.samples || !f.samples.windows) continue;
    const values = [];
    for (const w of f.samples.windows) {
      (w.history || []).forEach((series, s) => {
        const L = series.length;
        series.forEach((v, t) => values.push({ window: "window " + w.window, series: "series " + s, t: t - L + 1, value: v, kind: "history" }));
        (w.truth[s] || []).forEach((v, h) => values.push({ window: "window " + w.window, series: "series " + s, t: h + 1, value: v, kind: "truth" }));
        (w.forecast[s] || []).forEach((v, h) => values.push({ window: "window " + w.window, series: "series " + s, t: h + 1, value: v, kind: "forecast" }));
      });
    }
    slot.replaceChildren();
    draw("the forecasts", slot, {
      title: { text: "forecast vs truth — " + pointLabel(f), subtitle: "seed " + f.samples.seed + "; step 0 is the last one the model saw; model units" },
      data: { values },
      facet: { column: { field: "window", type: "nominal", title: null }, row: { field: "series", type: "nominal", title: null } },
      spec: {
        width: 220, height: 120,
        mark: { type: "line", point: { size: 12 } },
        encoding: {
          x: { field: "t", type: "quantitative", title: "step" },
          y: { field: "value", type: "quantitative", scale: { zero: false } },
          color: { field: "kind", type: "nominal", title: null, scale: { domain: ["history", "truth", "forecast"], range: ["#9aa5b1", "#1d2125", "#e4572e"] } },
          tooltip: [{ field: "kind" }, { field: "t" }, { field: "value", format: ".4g" }],
        },
      },
    });
  }

  // ---- what differs between two points' resolved configurations
  const differsControls = document.getElementById("differs-controls");
  let left = 0, right = Math.min(1, figures.length - 1), everyKey = false;
  function drawDiffers() {
    const box = clear("differs-table");
    if (!figures.length) return;
    const a = figures[left].config || { values: {} }, b = figures[right].config || { values: {} };
    const all = [...new Set([...Object.keys(a.values), ...Object.keys(b.values)])].sort();
    const table = element("table", { id: "differs" });
    const head = element("tr");
    for (const t of ["key", pointLabel(figures[left]), pointLabel(figures[right])]) head.append(element("th", {}, t));
    const thead = element("thead");
    thead.append(head);
    table.append(thead);
    const body = element("tbody");
    let shown = 0;
    for (const k of all) {
      const x = a.values[k], y = b.values[k];
      const same = x === y;
      if (same && !everyKey) continue;
      const tr = element("tr", same ? { class: "differs-same" } : {});
      for (const t of [k, x === undefined ? "(not set)" : x, y === undefined ? "(not set)" : y]) tr.append(element("td", {}, t));
      body.append(tr);
      shown++;
    }
    table.append(body);
    box.append(table);
    if (!shown) box.append(element("p", {}, "The two configurations are the same."));
    box.append(element("p", { class: "muted" }, "Left: " + a.source + ". Right: " + b.source + "."));
  }
  if (figures.length) {
    const options = figures.map((f, i) => [String(i), pointLabel(f)]);
    select(differsControls, "left", options, String(left), (v) => { left = Number(v); drawDiffers(); });
    select(differsControls, "right", options, String(right), (v) => { right = Number(v); drawDiffers(); });
    checkbox(differsControls, "every key", (on) => { everyKey = on; drawDiffers(); });
  }
  drawDiffers();
})();
