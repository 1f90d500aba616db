// The browser's time zone, for the server: kept in a cookie (pages and the admin show
// times in it), and saved as the person's own once, when they have chosen none (their
// office's replies write times in it).
"use strict";

(function () {
  let zone = "";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (error) { return; }
  if (!zone) return;
  const cookie = "tz=" + encodeURIComponent(zone);
  if (!document.cookie.split("; ").includes(cookie)) {
    document.cookie = cookie + "; path=/; max-age=31536000; samesite=lax";
  }
  const root = document.body;
  const csrf = document.querySelector("input[name=csrfmiddlewaretoken]");
  if (root.dataset.signedIn !== "1" || root.dataset.timeZone || !csrf) return;
  fetch("/api/me/time_zone", {
    method: "PUT",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrf.value },
    body: JSON.stringify({ time_zone: zone }),
  }).catch(() => { /* the next page saves it */ });
})();
