// Starts the lab: compiles the engine module (worker.wasm) and the UI module (main.wasm)
// at the same time, starts the first engine worker at once and, when the page has no
// hash, the default case: the build's precomputed run of it (first.json), else a run
// in that worker, before the UI has mounted (the UI adopts that run:
// ui/bridge_js.go). Protocol: wasm/worker/PROTOCOL.md.
"use strict";
(function () {
  const EARLY_ID = 1000000000;
  const status = document.getElementById("boot-status");
  const fail = (err) => { if (status) status.textContent = "Failed to start: " + err; console.error(err); };
  const bytes = (url) => fetch(url).then((r) => { if (!r.ok) throw new Error(url + ": HTTP " + r.status); return r.arrayBuffer(); });
  // instantiateStreaming/compileStreaming need Content-Type application/wasm; the
  // fallback compiles from bytes.
  const compile = (url) => WebAssembly.compileStreaming
    ? WebAssembly.compileStreaming(fetch(url)).catch(() => bytes(url).then((b) => WebAssembly.compile(b)))
    : bytes(url).then((b) => WebAssembly.compile(b));

  // The first page (no hash) shows the build's precomputed run (first.json) and needs
  // no engine until the user acts: its module compiles once the UI has mounted, so
  // the two compilations do not share the cores (and the main thread's streaming
  // tasks) while the UI module compiles and first renders. Any other page, or a
  // first page without first.json, compiles it at once (the preload fetches it
  // either way).
  const firstPage = location.hash === "" || location.hash === "#";
  let startEngine = null;
  const engineGate = firstPage ? new Promise((resolve) => { startEngine = resolve; }) : Promise.resolve();
  const workerModule = engineGate.then(() => compile("worker.wasm"));
  workerModule.catch(() => {}); // each worker reports its own failure
  wblab.startEngine = () => { if (startEngine) startEngine(); };
  // newWorker starts a Web Worker and hands it the shared compiled engine module.
  wblab.newWorker = () => {
    const w = new Worker("worker.js");
    const give = (m) => { try { w.postMessage({ type: "module", module: m }); } catch (e) { w.postMessage({ type: "module", module: null }); } };
    workerModule.then(give, () => give(null));
    return w;
  };
  // The first page's snapshot (first.html, ./build.sh build: ui.Snapshot): the page
  // with the build's precomputed run as main.wasm's first render shows it, put in the
  // mount point as soon as it comes, so the first result is on screen while the
  // modules compile. Its controls do nothing until main.wasm mounts, whose first
  // render keeps its elements (Vugu matches them by position) and adds the charts.
  const snapshot = !firstPage ? Promise.resolve() : fetch("first.html").then((r) => r.ok ? r.text() : null).then((h) => {
    const m = document.getElementById("vugu_mount_point");
    if (!h || !m) return;
    const t = document.createElement("template");
    t.innerHTML = h;
    const root = t.content.firstElementChild;
    if (!root) return;
    root.id = "vugu_mount_point"; // Vugu's first render sets its own id ("lab")
    root.classList.add("snapshot");
    m.replaceWith(root);
  }).catch(() => {});

  // The early worker and the messages it posted before the UI took it over.
  const early = { id: EARLY_ID, worker: null, msgs: [] };
  // first settles once the early run has a source: the build's precomputed run of the
  // first page's case (first.json, ./build.sh build: lab.RunFirstPage), delivered as
  // the worker's own messages, or else the worker, which is asked to run it.
  let first = Promise.resolve(false);
  try {
    early.worker = wblab.newWorker();
    early.worker.onmessage = (e) => early.msgs.push(e.data);
    early.worker.onerror = (e) => early.msgs.push({ type: "fatal", message: (e && e.message) || "worker error" });
    if (location.hash === "" || location.hash === "#") {
      early.run = true;
      const w = early.worker;
      first = fetch("first.json").then((r) => { if (!r.ok) throw new Error("first.json: HTTP " + r.status); return r.json(); })
        .then((f) => {
          const b = atob(f.data), u8 = new Uint8Array(b.length);
          for (let i = 0; i < b.length; i++) u8[i] = b.charCodeAt(i);
          const msgs = [
            { type: "chunk", id: EARLY_ID, from: 0, rows: f.rows, cols: f.cols, data: new Float64Array(u8.buffer),
              done: f.done, total: f.total, names: f.names, config: f.config },
            { type: "result", id: EARLY_ID, result: f.result, trace: f.trace, prerendered: true }];
          for (const m of msgs) w.dispatchEvent(new MessageEvent("message", { data: m }));
          early.prerendered = true; // the worker runs nothing: it is free for questions
          return true;
        })
        .catch(() => { wblab.startEngine(); w.postMessage({ type: "run", id: EARLY_ID, default: true, stream: true }); return false; });
    }
  } catch (err) {
    early.worker = null;
    wblab.startEngine();
  }
  wblab.early = early;

  // The UI's first question, the catalog (what it shows of the engine's registries:
  // ui.Boot waits for it before mounting): the build's answer (catalog.json,
  // wasm/prerender: the worker's own answer, computed natively), fetched beside the
  // modules; else asked at once, in a second worker when the first runs the first
  // page's case and the machine has another core, so it is answered while main.wasm
  // compiles and does not slow that run.
  const boot = { id: EARLY_ID + 1, worker: null, msgs: [] };
  const catalogFile = fetch("catalog.json").then((r) => r.ok ? r.text() : null, () => null);
  const ask = Promise.all([first, catalogFile]).then(([prerendered, catalog]) => {
    if (catalog) {
      boot.catalog = catalog;
      return;
    }
    wblab.startEngine(); // the catalog is the engine's to answer
    let w = early.worker;
    if (early.run && !prerendered && (navigator.hardwareConcurrency || 1) > 1) {
      w = wblab.newWorker();
      boot.worker = w;
      w.onmessage = (e) => boot.msgs.push(e.data);
      w.onerror = (e) => boot.msgs.push({ type: "fatal", message: (e && e.message) || "worker error" });
    }
    if (w) {
      w.postMessage({ type: "ask", id: boot.id, kind: "catalog", req: "null" });
      boot.asked = true;
    }
  }).catch(() => { boot.worker = null; });
  wblab.boot = boot;

  const go = new Go();
  const ui = WebAssembly.instantiateStreaming
    ? WebAssembly.instantiateStreaming(fetch("main.wasm"), go.importObject)
      .catch(() => bytes("main.wasm").then((b) => WebAssembly.instantiate(b, go.importObject)))
    : bytes("main.wasm").then((b) => WebAssembly.instantiate(b, go.importObject));
  // the UI adopts the early run and the catalog question once both have their worker
  // and needs the scripts after this one (Vugu's renderer, uPlot). It does not wait
  // for the engine module: with the build's catalog and first run (catalog.json,
  // first.json) the first page shows its result while worker.wasm still compiles.
  // An engine that fails to compile stops the page from mounting, or, once it has
  // mounted, puts the failure above it.
  const parsed = new Promise((resolve) => document.readyState !== "loading" ? resolve() : document.addEventListener("DOMContentLoaded", resolve));
  let engineErr = null, mounted = false;
  workerModule.catch((err) => {
    engineErr = "the engine worker did not start: " + ((err && err.message) || err);
    if (!mounted) return;
    const p = document.createElement("p");
    p.id = "boot-status"; p.className = "boot failed"; p.setAttribute("role", "alert");
    p.textContent = "Failed to start: " + engineErr + " (runs and questions need it; reload to try again)";
    document.body.insertBefore(p, document.body.firstChild);
    console.error(engineErr);
  });
  Promise.all([ui, ask, parsed, snapshot]).then(([r]) => {
    if (engineErr) throw engineErr;
    mounted = true;
    go.run(r.instance); // returns when main.wasm first waits: after its first render
    setTimeout(wblab.startEngine, 0);
  }).catch(fail);
})();
