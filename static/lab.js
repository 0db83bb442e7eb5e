// Small DOM helpers the Go UI calls (ui/bridge_js.go): no network, no eval.
"use strict";
window.wblab = {
  warn: (s) => console.warn(s),
  // Vugu sets attributes only; copy data-v / data-c into the live value/checked.
  syncInputs() {
    for (const el of document.querySelectorAll("[data-v]")) {
      if (el !== document.activeElement && el.value !== el.dataset.v) el.value = el.dataset.v;
    }
    for (const el of document.querySelectorAll("[data-c]")) {
      const c = el.dataset.c === "on";
      if (el.checked !== c) el.checked = c;
    }
  },
  // plot draws a uPlot chart from the JSON options and data of ui.ChartJSON: series
  // with "step" become step lines; legend values carry the series' unit.
  // The chart follows its box (ResizeObserver) and the page's colours (dark mode).
  plot(optsJSON, dataJSON, el) {
    const o = JSON.parse(optsJSON), d = JSON.parse(dataJSON);
    const stepped = uPlot.paths && uPlot.paths.stepped ? uPlot.paths.stepped({ align: 1 }) : null;
    const num = (v) => { const a = Math.abs(v); return a >= 1000 || a === 0 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 0.1 ? v.toFixed(2) : v.toPrecision(2); };
    const docs = o.series.map((s) => s.doc || "");
    // A/B (ui.ChartJSON): B's line has its own colour and no legend row; A's row
    // shows both values ("A 12.3 · B 14.1 MiB") and shows or hides both lines.
    const pairOf = o.series.map((s) => s.pairOf || 0), pair = o.series.map((s) => s.pair || 0);
    const fmt = (v, unit) => v == null ? "–" : num(v) + (unit ? " " + unit : "");
    o.series.forEach((s, i) => {
      delete s.doc;
      if (s.step && stepped) s.paths = stepped;
      if (s.dots) { s.paths = () => null; s.points = { show: true, space: 0, size: 5, fill: s.stroke }; }
      const unit = s.unit || "";
      s.value = pair[i]
        ? (u, v, si, idx) => "A " + fmt(v, "") + " · B " + fmt(idx == null ? null : u.data[pair[i]][idx], unit)
        : (u, v) => fmt(v, unit);
      delete s.step; delete s.dots; delete s.unit; delete s.pair; delete s.pairOf;
    });
    const css = getComputedStyle(document.documentElement);
    const fg = css.getPropertyValue("--fg").trim() || "#1d2329", grid = css.getPropertyValue("--grid").trim() || "rgba(0,0,0,.07)";
    (o.axes || []).forEach((a) => { a.stroke = fg; a.grid = Object.assign({ stroke: grid, width: 1 }, a.grid || {}); a.ticks = { stroke: grid, width: 1 }; });
    o.series.forEach((s) => { if (s.stroke === "#111") s.stroke = fg; });
    const size = () => ({ width: Math.max(el.clientWidth - 10, 200), height: el.clientWidth < 500 ? 200 : 230 });
    Object.assign(o, size());
    let ro = null;
    const lab = window.wblab;
    o.hooks = {
      destroy: [(u) => { if (ro) ro.disconnect(); lab.plots.delete(u); }],
      // the time marked from the trace viewer: a vertical line on every chart
      draw: [(u) => {
        if (lab.markT == null) return;
        const x = u.valToPos(lab.markT, "x", true), c = u.ctx;
        c.save(); c.strokeStyle = css.getPropertyValue("--accent").trim() || "#1f6feb"; c.lineWidth = 2;
        c.beginPath(); c.moveTo(x, u.bbox.top); c.lineTo(x, u.bbox.top + u.bbox.height); c.stroke(); c.restore();
      }],
    };
    // the legend shows the values at the cursor, else at the last point (never "--")
    const last = (u) => { const n = u.data[0].length; if (n > 0 && u.cursor.idx == null) u.setLegend({ idx: n - 1 }); };
    o.hooks.setCursor = [last];
    o.hooks.ready = [last];
    o.hooks.setData = [last];
    o.hooks.setSeries = [(u, i, opts) => {
      if (i != null && pair[i] && opts && "show" in opts && u.series[pair[i]].show !== opts.show) u.setSeries(pair[i], { show: opts.show });
    }];
    // uPlot stops every click on the chart (cursor.drag.click): stop a drag's only
    let down = null;
    const dragged = (e) => down != null && Math.abs(e.clientX - down) > 3;
    if (o.cursor && o.cursor.drag) o.cursor.drag.click = (u, e) => { if (dragged(e)) { e.stopPropagation(); e.stopImmediatePropagation(); } };
    const u = new uPlot(o, d, el);
    lab.plots.add(u);
    u.root.querySelectorAll(".u-legend .u-series").forEach((row, i) => { if (pairOf[i]) { row.hidden = true; row.style.display = "none"; } });
    const leg = u.root.querySelector(".u-legend");
    if (leg && pair.some((p) => p)) {
      const cap = document.createElement("caption");
      cap.className = "ab-key"; cap.textContent = "A: solid line; B: dashed, lighter";
      leg.prepend(cap);
    }
    // a click (not a drag) sends its time to the trace viewer: the click's own
    // position (the cursor is only set by a mouse move before it); a drag (a zoom)
    // is no click
    u.over.addEventListener("mousedown", (e) => { down = e.clientX; }, true);
    u.over.addEventListener("click", (e) => {
      const drag = dragged(e);
      down = null;
      const left = e.clientX - u.over.getBoundingClientRect().left;
      if (lab.timeFn && left >= 0 && !drag) lab.timeFn(u.posToVal(left, "x"));
    });
    // keys: the arrows move the cursor along the points (with Shift by ten), Enter or
    // Space sends its time to the trace viewer
    u.over.tabIndex = 0;
    u.over.setAttribute("aria-label", "chart: arrow keys move the cursor, Enter shows the trace at its time");
    u.over.addEventListener("keydown", (e) => {
      const n = u.data[0].length;
      if (!n) return;
      let i = u.cursor.idx == null ? n - 1 : u.cursor.idx;
      const step = e.shiftKey ? 10 : 1;
      if (e.key === "ArrowLeft") i = Math.max(0, i - step);
      else if (e.key === "ArrowRight") i = Math.min(n - 1, i + step);
      else if (e.key === "Home") i = 0;
      else if (e.key === "End") i = n - 1;
      else if (e.key === "Enter" || e.key === " ") { e.preventDefault(); if (lab.timeFn) lab.timeFn(u.data[0][i]); return; }
      else return;
      e.preventDefault();
      u.setCursor({ left: u.valToPos(u.data[0][i], "x"), top: u.cursor.top >= 0 ? u.cursor.top : u.bbox.height / (2 * devicePixelRatio) });
    });
    // each legend entry explains its series on hover and focus
    u.root.querySelectorAll(".u-legend .u-series").forEach((row, i) => { if (docs[i]) { row.title = docs[i]; row.tabIndex = 0; } });
    if (window.ResizeObserver) {
      let w = el.clientWidth;
      ro = new ResizeObserver(() => { if (el.clientWidth !== w && el.clientWidth > 0) { w = el.clientWidth; u.setSize(size()); } });
      ro.observe(el);
    }
    return u;
  },
  update(u, dataJSON) { u.setData(JSON.parse(dataJSON)); },
  // patchMatrix writes a matrix result's texts (ui.MatrixView.patch) into the table,
  // the status line and the progress bar, where they differ; false (nothing
  // written) when the table has other rows or cells: then the page renders.
  patchMatrix(json) {
    const p = JSON.parse(json);
    const rows = document.querySelectorAll("#matrix-table > tbody > tr");
    const status = document.getElementById("status"), bar = document.getElementById("progressbar");
    const fill = document.getElementById("progress"), text = document.getElementById("matrix-text");
    if (!status || !bar || !fill || !text || rows.length !== p.rows.length) return false;
    for (let i = 0; i < rows.length; i++) if (rows[i].children.length !== p.rows[i].cells.length) return false;
    const txt = (el, s) => { if (el.textContent !== s) el.textContent = s; };
    const attr = (el, k, v) => { if (el.getAttribute(k) !== v) el.setAttribute(k, v); };
    p.rows.forEach((r, i) => {
      const tr = rows[i];
      attr(tr, "class", r.class); attr(tr, "title", r.title); attr(tr, "data-case", r.case);
      r.cells.forEach((s, j) => txt(tr.children[j], s));
    });
    txt(status, p.status); txt(text, p.text);
    attr(bar, "aria-valuenow", p.progress); attr(fill, "style", p.style);
    return true;
  },
  // Views the Go UI writes itself, not through Vugu's render (ui.FillHTML): fill
  // replaces an element's content; filled(id, key) reports whether the element
  // still holds the content written under key (a render may have redone it).
  fills: new WeakMap(),
  // (a render may have redone it, or emptied it: Vugu renders it without children)
  filled(id, key) {
    const el = document.getElementById(id);
    if (!el) return true;
    const f = this.fills.get(el);
    return !!f && f.key === key && el.firstChild === f.first;
  },
  // brings style and layout up to date (ui.Layout), and has the canvas fonts of
  // uPlot's axes looked up, so the first chart's task pays for neither
  warm: false,
  layout() {
    if (!this.warm) {
      this.warm = true;
      const x = document.createElement("canvas").getContext("2d");
      const f = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Segoe UI Symbol", "Noto Color Emoji"';
      if (x) for (const w of ["", "bold "]) { x.font = w + "12px " + f; x.fillText("0.5 MiB/s", 0, 10); }
    }
    return document.body ? document.body.offsetHeight : 0;
  },
  fill(id, key, html) {
    const el = document.getElementById(id);
    if (!el) return;
    el.innerHTML = html;
    this.fills.set(el, { key, first: el.firstChild });
  },
  // the trace viewer's lines: a click, Enter or Space on a line picks it (ui.OnTracePick)
  pickFn: null,
  onPick(fn) {
    this.pickFn = fn;
    const pick = (e) => {
      const l = e.target.closest && e.target.closest("#trace-lines .tl");
      if (!l || !this.pickFn) return;
      if (e.type === "keydown") { if (e.key !== "Enter" && e.key !== " ") return; e.preventDefault(); }
      for (const m of document.querySelectorAll("#trace-lines .tl.marked")) m.classList.remove("marked");
      l.classList.add("marked");
      this.pickFn(parseFloat(l.dataset.t));
    };
    document.addEventListener("click", pick);
    document.addEventListener("keydown", pick);
  },
  // yield calls fn in a task of its own (ui.Yield): a message to ourselves, which
  // no timer clamping delays; true when it is queued
  yieldQ: [],
  yieldPort: null,
  yield(fn) {
    if (!this.yieldPort) {
      const c = new MessageChannel();
      c.port1.onmessage = () => { const f = this.yieldQ.shift(); if (f) f(); };
      this.yieldPort = c.port2;
    }
    this.yieldQ.push(fn);
    this.yieldPort.postMessage(0);
    return true;
  },
  // progress writes the progress bar at once (a worker's message), before the
  // render that follows it (ui.SetProgress)
  progress(style, now) {
    const bar = document.getElementById("progressbar"), fill = document.getElementById("progress");
    if (!bar || !fill) return;
    if (fill.getAttribute("style") !== style) fill.setAttribute("style", style);
    if (bar.getAttribute("aria-valuenow") !== now) bar.setAttribute("aria-valuenow", now);
  },
  plots: new Set(),
  markT: null,
  timeFn: null,
  onTime(fn) { this.timeFn = fn; },
  mark(t) { this.markT = t; for (const u of this.plots) u.redraw(false); },
  hash: () => location.hash,
  onHash(fn) { window.addEventListener("hashchange", () => fn()); },
  focus(id) {
    // after the render that opens the form
    setTimeout(() => { const el = document.getElementById(id); if (el) { el.scrollIntoView({ block: "center" }); el.focus(); } }, 50);
  },
  setHash(h) { history.replaceState(null, "", h ? "#" + h : location.pathname + location.search); },
  pageURL: () => location.href.split("#")[0],
  copy(text) {
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).catch(() => {});
    }
  },
  download(name, mime, text) {
    const url = URL.createObjectURL(new Blob([text], { type: mime }));
    const a = document.createElement("a");
    a.href = url; a.download = name; document.body.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  },
};

// Vugu's domrender.New evals its renderer script; the page loads it as
// vendor/vugu-render.js instead, so that one eval is skipped (CSP has no 'unsafe-eval').
(function () {
  const realEval = window.eval;
  window.eval = function (src) {
    if (window.vuguRender && typeof src === "string" && src.startsWith("(function(){if(window.vuguRender)return;")) return undefined;
    return realEval(src);
  };
})();
