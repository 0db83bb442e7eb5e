// Web Worker: runs worker.wasm (the engine) and relays messages (see wasm/worker/main.go).
"use strict";
importScripts("wasm_exec.js");
const pending = [];
self.onmessage = (e) => {
  if (self.wblabHandle) self.wblabHandle(e.data); else pending.push(e.data);
};
self.wblabStarted = () => { while (pending.length) self.wblabHandle(pending.shift()); };
const go = new Go();
WebAssembly.instantiateStreaming(fetch("worker.wasm"), go.importObject)
  .then((r) => go.run(r.instance))
  .then(() => postMessage({ type: "fatal", message: "engine worker exited" }))
  .catch((err) => postMessage({ type: "fatal", message: "engine worker failed: " + err }));
