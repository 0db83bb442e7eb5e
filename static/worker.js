// Web Worker: runs worker.wasm (the engine) and relays messages (wasm/worker/PROTOCOL.md).
// The page sends the compiled module first ({type: "module"}); with module null this
// worker fetches and compiles worker.wasm itself.
"use strict";
importScripts("wasm_exec.js");
const pending = [];
let started = false;
function compile(url) {
  if (WebAssembly.compileStreaming) {
    // compileStreaming needs Content-Type application/wasm; fall back to bytes
    return WebAssembly.compileStreaming(fetch(url)).catch(() => fetch(url).then((r) => r.arrayBuffer()).then((b) => WebAssembly.compile(b)));
  }
  return fetch(url).then((r) => r.arrayBuffer()).then((b) => WebAssembly.compile(b));
}
function start(mod) {
  started = true;
  const go = new Go();
  (mod ? Promise.resolve(mod) : compile("worker.wasm"))
    .then((m) => WebAssembly.instantiate(m, go.importObject))
    .then((inst) => go.run(inst))
    .then(() => postMessage({ type: "fatal", message: "engine worker exited" }))
    .catch((err) => postMessage({ type: "fatal", message: "engine worker failed: " + err }));
}
self.onmessage = (e) => {
  const d = e.data;
  if (!started && d && d.type === "module") { start(d.module); return; }
  if (!started) start(null);
  if (self.wblabHandle) self.wblabHandle(d); else pending.push(d);
};
self.wblabStarted = () => { while (pending.length) self.wblabHandle(pending.shift()); };
