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
  hash: () => location.hash,
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
