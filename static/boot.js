// Starts the lab: compiles the engine module (worker.wasm) and the UI module (main.wasm)
// at the same time, starts the first engine worker at once and, when the page has no
// hash, the default case in it, before the UI has mounted (the UI adopts that run:
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

  const workerModule = compile("worker.wasm");
  workerModule.catch(() => {}); // each worker reports its own failure
  // newWorker starts a Web Worker and hands it the shared compiled engine module.
  wblab.newWorker = () => {
    const w = new Worker("worker.js");
    const give = (m) => { try { w.postMessage({ type: "module", module: m }); } catch (e) { w.postMessage({ type: "module", module: null }); } };
    workerModule.then(give, () => give(null));
    return w;
  };
  // The early worker and the messages it posted before the UI took it over.
  const early = { id: EARLY_ID, worker: null, msgs: [] };
  try {
    early.worker = wblab.newWorker();
    early.worker.onmessage = (e) => early.msgs.push(e.data);
    early.worker.onerror = (e) => early.msgs.push({ type: "fatal", message: (e && e.message) || "worker error" });
    if (location.hash === "" || location.hash === "#") {
      early.worker.postMessage({ type: "run", id: EARLY_ID, default: true, stream: true });
      early.run = true;
    }
  } catch (err) {
    early.worker = null;
  }
  wblab.early = early;

  // The UI's first question, the catalog (what it shows of the engine's registries:
  // ui.Boot waits for it before mounting), is asked at once: in a second worker when
  // the first runs the first page's case and the machine has another core, so it is
  // answered while main.wasm compiles and does not slow that run.
  const boot = { id: EARLY_ID + 1, worker: null, msgs: [] };
  try {
    let w = early.worker;
    if (early.run && (navigator.hardwareConcurrency || 1) > 1) {
      w = wblab.newWorker();
      boot.worker = w;
      w.onmessage = (e) => boot.msgs.push(e.data);
      w.onerror = (e) => boot.msgs.push({ type: "fatal", message: (e && e.message) || "worker error" });
    }
    if (w) {
      w.postMessage({ type: "ask", id: boot.id, kind: "catalog", req: "null" });
      boot.asked = true;
    }
  } catch (err) {
    boot.worker = null;
  }
  wblab.boot = boot;

  const go = new Go();
  const ui = WebAssembly.instantiateStreaming
    ? WebAssembly.instantiateStreaming(fetch("main.wasm"), go.importObject)
      .catch(() => bytes("main.wasm").then((b) => WebAssembly.instantiate(b, go.importObject)))
    : bytes("main.wasm").then((b) => WebAssembly.instantiate(b, go.importObject));
  ui.then((r) => go.run(r.instance)).catch(fail);
})();
