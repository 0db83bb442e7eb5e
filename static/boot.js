// Loads the Vugu UI (main.wasm). Workers are started from Go (ui/bridge_js.go).
"use strict";
(function () {
  const go = new Go();
  const status = document.getElementById("boot-status");
  WebAssembly.instantiateStreaming(fetch("main.wasm"), go.importObject)
    .then((r) => go.run(r.instance))
    .catch((err) => { if (status) status.textContent = "Failed to start: " + err; console.error(err); });
})();
