extension ConsoleAssets {
    /// `/ui/console.js`: the whole console. Text from alerts only ever goes
    /// into `textContent` and attribute values, never into markup. Every
    /// request that changes something is `fetch` with a JSON content type
    /// from this origin, which is what alertd asks of a session cookie.
    static let script = #"""
    "use strict";
    (function () {
      const SEVERITIES = ["critical", "error", "warning", "info"];
      const STATES = ["open", "confirmed", "cancelled", "resolved", "expired"];
      const EVENTS = ["alert.created", "alert.confirmed", "alert.cancelled", "alert.resolved", "alert.expired", "alert.escalated",
        "delivery.succeeded", "delivery.failed", "delivery.dead", "delivery.silenced"];
      const $ = (id) => document.getElementById(id);
      let me = null;
      let stream = null;
      const alerts = new Map();
      const filters = { state: "", severity: "", label: "" };
      let render = () => {};

      function el(tag, attrs, ...children) {
        const node = document.createElement(tag);
        for (const [key, value] of Object.entries(attrs || {})) {
          if (value === null || value === undefined || value === false) continue;
          if (key === "text") node.textContent = value;
          else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
          else node.setAttribute(key, value === true ? "" : value);
        }
        return append(node, children);
      }

      // Nested lists are flattened; null, undefined and false leave nothing.
      function append(node, children) {
        for (const child of children.flat(Infinity)) {
          if (child === null || child === undefined || child === false) continue;
          node.append(child instanceof Node ? child : String(child));
        }
        return node;
      }

      // Replaces a node's children.
      function put(node, ...children) {
        node.replaceChildren();
        return append(node, children);
      }

      function can(scope) {
        return !!me && (me.scopes.includes(scope) || me.scopes.includes("admin"));
      }

      async function api(method, path, body) {
        const init = { method, headers: { "Accept": "application/json" }, credentials: "same-origin" };
        if (method !== "GET") {
          init.headers["Content-Type"] = "application/json";
          init.body = body === undefined ? "" : JSON.stringify(body);
        }
        const response = await fetch(path, init);
        const text = await response.text();
        let data = null;
        if (text) { try { data = JSON.parse(text); } catch (e) { data = text; } }
        if (!response.ok) {
          const message = data && data.error ? data.error.message : (typeof data === "string" ? data : "HTTP " + response.status);
          const error = new Error(message);
          error.status = response.status;
          error.code = data && data.error ? data.error.code : null;
          if (response.status === 401 && me) signedOut("Your session ended; sign in again.");
          throw error;
        }
        return data;
      }

      function time(iso) {
        if (!iso) return "";
        const d = new Date(iso);
        return isNaN(d) ? iso : d.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
      }

      function badge(kind, value) {
        return el("span", { class: "badge " + kind + "-" + value + (kind === "state" ? " state" : ""), text: value });
      }

      function labelList(labels) {
        const entries = Object.entries(labels || {}).sort();
        if (!entries.length) return null;
        return el("div", { class: "labels", "aria-label": "Labels" }, entries.map(([k, v]) => el("span", { class: "label", text: k + "=" + v })));
      }

      function decisionText(d) {
        if (!d) return "";
        // As AlertDecision.byline says it: a link sent to a known address names that address.
        const by = d.recipient ? " via " + d.actor + " by " + d.recipient : " by " + d.actor;
        return d.outcome + (d.outcome === "expired" ? "" : by) + " at " + time(d.at);
      }

      function setLive(text) { $("live").textContent = text; }

      // Sign-in and sign-out.

      function showSignIn(message) {
        me = null;
        $("nav").hidden = true;
        $("who").hidden = true;
        $("view").replaceChildren();
        $("sign-in").hidden = false;
        $("sign-in-error").textContent = message || "";
        setLive("");
        $("token").focus();
      }

      function signedOut(message) {
        if (stream) { stream.close(); stream = null; }
        alerts.clear();
        showSignIn(message);
      }

      async function signIn(event) {
        event.preventDefault();
        $("sign-in-error").textContent = "";
        try {
          me = await api("POST", "/ui/session", { token: $("token").value });
          $("token").value = "";
          await showApp();
        } catch (e) {
          $("sign-in-error").textContent = e.message;
        }
      }

      async function signOut() {
        try { await api("DELETE", "/ui/session"); } catch (e) { /* the session is gone either way */ }
        signedOut("Signed out.");
      }

      async function showApp() {
        $("sign-in").hidden = true;
        $("nav").hidden = false;
        $("who").hidden = false;
        $("who-name").textContent = "Signed in as " + me.name + " (" + me.scopes.join(", ") + ")";
        $("sign-out").hidden = !me.session;
        await loadAlerts();
        connect();
        route();
      }

      // The alerts: one list from GET /v1/alerts, kept current by /v1/events.

      async function loadAlerts() {
        const page = await api("GET", "/v1/alerts?limit=500");
        alerts.clear();
        for (const a of page.alerts) alerts.set(a.id, a);
      }

      async function refresh(id) {
        try {
          const a = await api("GET", "/v1/alerts/" + encodeURIComponent(id));
          alerts.set(a.id, a);
        } catch (e) {
          if (e.status === 404) alerts.delete(id);
          return;
        }
        render(id);
      }

      function connect() {
        if (stream) return;
        stream = new EventSource("/v1/events?since=now");
        stream.onopen = () => setLive("Live: new alerts and decisions appear as they happen.");
        stream.onerror = async () => {
          setLive("Connection to alertd lost; reconnecting…");
          if (stream && stream.readyState === EventSource.CLOSED) {
            stream = null;
            try { await api("GET", "/ui/session"); setTimeout(connect, 2000); } catch (e) { /* signed out by api() */ }
          }
        };
        for (const type of EVENTS) {
          stream.addEventListener(type, (event) => {
            try { refresh(JSON.parse(event.data).alert_id); } catch (e) { /* not alertd's shape */ }
          });
        }
      }

      function newestFirst(list) {
        return list.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : (a.id < b.id ? 1 : -1)));
      }

      function matches(a) {
        if (filters.state && a.state !== filters.state) return false;
        if (filters.severity && a.spec.severity !== filters.severity) return false;
        const wanted = filters.label.trim();
        if (wanted) {
          const [name, ...rest] = wanted.split("=");
          const value = rest.join("=");
          const labels = a.spec.labels || {};
          if (!Object.hasOwn(labels, name)) return false;
          if (rest.length && labels[name] !== value) return false;
        }
        return true;
      }

      function alertCard(a, extra) {
        const severity = a.spec.severity || "info";
        return el("li", { class: "card sev-" + severity, "data-alert": a.id },
          el("div", { class: "row" },
            badge("sev", severity), badge("state", a.state),
            el("a", { class: "title", href: "#/alert/" + a.id, text: a.spec.title })),
          el("div", { class: "meta" }, "created " + time(a.created_at),
            a.decision ? " · " + decisionText(a.decision) : "",
            a.silenced_by ? " · silenced" : ""),
          labelList(a.spec.labels), extra || null);
      }

      function select(id, label, options, value, onchange) {
        return el("div", {},
          el("label", { for: id, text: label }),
          el("select", { id, onchange },
            el("option", { value: "", text: "any" }),
            options.map((o) => el("option", { value: o, text: o, selected: o === value }))));
      }

      function listPage() {
        const list = el("ul", { class: "cards", id: "alert-list", "aria-label": "Alerts, newest first" });
        const count = el("p", { class: "count", id: "alert-count" });
        const draw = () => {
          const shown = newestFirst([...alerts.values()].filter(matches));
          count.textContent = shown.length + " of " + alerts.size + " alerts, newest first";
          put(list, ...shown.map((a) => alertCard(a)));
        };
        const filterForm = el("form", { class: "filters", role: "search", "aria-label": "Filter alerts", onsubmit: (e) => e.preventDefault() },
          select("filter-state", "State", STATES, filters.state, (e) => { filters.state = e.target.value; draw(); }),
          select("filter-severity", "Severity", SEVERITIES, filters.severity, (e) => { filters.severity = e.target.value; draw(); }),
          el("div", {},
            el("label", { for: "filter-label", text: "Label" }),
            el("input", { id: "filter-label", type: "text", placeholder: "name=value", value: filters.label,
              oninput: (e) => { filters.label = e.target.value; draw(); } })));
        put($("view"), el("h1", { text: "Alerts" }), filterForm, count, list);
        draw();
        render = draw;
      }

      // One alert.

      function alertPage(id) {
        const body = el("div", { id: "alert-body" });
        const actions = el("div", { id: "alert-actions" });
        const deliveries = el("section", { id: "deliveries", "aria-labelledby": "deliveries-heading" });
        const result = el("p", { id: "action-result", role: "status" });
        put($("view"), el("p", {}, el("a", { href: "#/", text: "← All alerts" })), body, result, actions, deliveries);
        let drawnState = null;
        const draw = (changed) => {
          if (changed && changed !== id) return;
          const a = alerts.get(id);
          if (!a) {
            put(body, el("h1", { text: "Alert not found" }), el("p", { text: "No alert has the id " + id + "." }));
            return;
          }
          const s = a.spec;
          const fields = [["Id", a.id], ["Created", time(a.created_at)], ["Updated", time(a.updated_at)]];
          if (s.dedup_key) fields.push(["Dedup key", s.dedup_key]);
          if (s.expires_after) fields.push(["Expires after", s.expires_after + " s"]);
          if (s.confirm) fields.push(["Confirm", s.confirm.label + " → " + s.confirm.method + " " + s.confirm.url]);
          if (s.cancel) fields.push(["Cancel", s.cancel.label + " → " + s.cancel.method + " " + s.cancel.url]);
          if (a.silenced_by) fields.push(["Silenced by", a.silenced_by.join(", ")]);
          put(body, 
            el("h1", { text: s.title }),
            el("div", { class: "row" }, badge("sev", s.severity || "info"), " ", badge("state", a.state)),
            a.decision ? el("p", { class: "decision", id: "decision" }, decisionText(a.decision),
              a.decision.comment ? el("span", { class: "comment" }, " — comment: ", el("q", { text: a.decision.comment })) : null) : null,
            s.message ? el("pre", { class: "message", text: s.message }) : null,
            labelList(s.labels),
            el("h2", { text: "Details" }),
            el("dl", { class: "fields" }, fields.map(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })])));
          if (a.state !== drawnState) { drawActions(a, actions, result); drawnState = a.state; }
          drawDeliveries(a, deliveries, result);
        };
        render = draw;
        draw();
        refresh(id);
      }

      function drawActions(a, container, result) {
        container.replaceChildren();
        if (a.state !== "open" || !can("decide")) return;
        const comment = el("textarea", { id: "comment", name: "comment", maxlength: "1000" });
        const decide = async (action, button) => {
          result.className = "";
          result.textContent = "";
          for (const b of container.querySelectorAll("button")) b.disabled = true;
          try {
            const body = comment.value.trim() ? { comment: comment.value.trim() } : {};
            const answer = await api("POST", "/v1/alerts/" + encodeURIComponent(a.id) + "/" + action, body);
            result.className = "notice";
            result.textContent = "Done: the alert is " + answer.state + ".";
            await refresh(a.id);
          } catch (e) {
            result.className = "error";
            result.textContent = e.message;
            for (const b of container.querySelectorAll("button")) b.disabled = false;
          }
        };
        const button = (action, text, cls) => el("button", { type: "button", id: action + "-button", class: cls || null,
          onclick: (e) => decide(action, e.target) }, text);
        container.append(el("section", { class: "decide", "aria-labelledby": "decide-heading" },
          el("h2", { id: "decide-heading", text: "Decide" }),
          el("label", { for: "comment", text: "Comment (optional)" }), comment,
          el("div", { class: "buttons" },
            a.spec.confirm ? button("confirm", "Confirm: " + a.spec.confirm.label, "primary") : null,
            a.spec.cancel ? button("cancel", "Cancel: " + a.spec.cancel.label, "danger") : null,
            button("resolve", "Resolve"))));
      }

      function drawDeliveries(a, container, result) {
        const list = a.deliveries || [];
        const dead = list.filter((d) => d.state === "dead").length;
        put(container, el("h2", { id: "deliveries-heading", text: "Deliveries (" + list.length + ")" }),
          list.length ? el("ul", { class: "cards" }, list.map((d) => el("li", { class: "card delivery", "data-delivery": d.id },
            el("div", { class: "row" }, badge("state", d.state), el("strong", { text: d.presenter })),
            el("div", { class: "meta" }, d.attempts + (d.attempts === 1 ? " attempt" : " attempts"),
              d.delivered_at ? " · delivered " + time(d.delivered_at) : "",
              d.next_attempt_at && d.state === "pending" ? " · next attempt " + time(d.next_attempt_at) : "",
              " · updated " + time(d.updated_at)),
            d.last_error ? el("p", { class: "error" }, "Last error: ", el("span", { text: d.last_error })) : null)))
            : el("p", { class: "muted", text: "No deliveries." }),
          dead && can("admin") ? el("div", { class: "buttons" }, el("button", { type: "button", id: "replay-button",
            onclick: () => replay(a.id, result) }, "Replay " + dead + " dead " + (dead === 1 ? "delivery" : "deliveries"))) : null);
      }

      async function replay(id, result) {
        try {
          const answer = await api("POST", "/v1/alerts/" + encodeURIComponent(id) + "/replay");
          result.className = "notice";
          result.textContent = "Replayed " + answer.replayed + (answer.replayed === 1 ? " delivery." : " deliveries.");
        } catch (e) {
          result.className = "error";
          result.textContent = e.message;
        }
        await refresh(id);
      }

      // Dead deliveries.

      async function deadPage() {
        const list = el("ul", { class: "cards", id: "dead-list" });
        const result = el("p", { id: "dead-result", role: "status" });
        const all = can("admin") ? el("button", { type: "button", id: "replay-all", onclick: async () => {
          try {
            const answer = await api("POST", "/v1/deliveries/replay");
            result.className = "notice";
            result.textContent = "Replayed " + answer.replayed + " deliveries.";
          } catch (e) { result.className = "error"; result.textContent = e.message; }
          draw();
        } }, "Replay all") : null;
        put($("view"), el("h1", { text: "Dead deliveries" }),
          el("p", { class: "muted", text: "Deliveries that failed for good and wait for a replay." }), result,
          all ? el("div", { class: "buttons" }, all) : null, list);
        const draw = async () => {
          const page = await api("GET", "/v1/alerts?delivery_state=dead&limit=100");
          const details = await Promise.all(page.alerts.map((a) => api("GET", "/v1/alerts/" + a.id).catch(() => a)));
          put(list, ...details.map((a) => {
            const dead = (a.deliveries || []).filter((d) => d.state === "dead");
            return alertCard(a, [
              el("ul", { class: "dead" }, dead.map((d) => el("li", {}, el("strong", { text: d.presenter }), ": ",
                el("span", { text: d.last_error || "no error recorded" })))),
              can("admin") ? el("button", { type: "button", onclick: async () => { await replay(a.id, result); draw(); } },
                "Replay") : null]);
          }));
          if (!details.length) put(list, el("li", { class: "muted", text: "No dead deliveries." }));
        };
        render = (changed) => { if (!changed || alerts.has(changed)) draw(); };
        await draw();
      }

      // One group of alerts (what a group notification's console link opens).

      async function groupPage(id) {
        const list = el("ul", { class: "cards", id: "group-members" });
        const head = el("div", { id: "group-head" });
        put($("view"), el("p", {}, el("a", { href: "#/", text: "← All alerts" })), head, list);
        const draw = async () => {
          let g;
          try {
            g = await api("GET", "/v1/groups/" + encodeURIComponent(id));
          } catch (e) {
            put(head, el("h1", { text: "Group not found" }),
              el("p", { text: e.status === 404 ? "No open group has the id " + id + "; it ends once all its alerts have closed." : e.message }));
            put(list);
            return;
          }
          const labels = Object.keys(g.labels).sort().map((k) => k + "=" + g.labels[k]).join(" ");
          put(head, el("h1", { text: "Group " + (labels || g.route) }),
            el("p", { class: "meta", text: g.open_alerts + " open of " + g.members.length + " · route " + g.route +
              " · next due " + time(g.next_due_at) + (g.notified_at ? " · last notified " + time(g.notified_at) : "") }),
            el("ul", { class: "told" }, (g.told || []).map((t) => el("li", {}, el("strong", { text: t.presenter }),
              ": notification " + t.sequence + " at " + time(t.at) + ", " + t.alerts + " alerts listed"))));
          put(list, ...g.members.map((a) => alertCard(a)));
        };
        render = () => {};
        await draw();
      }

      // Silences, through the Alertmanager API alertd serves.

      async function silencesPage() {
        const list = el("ul", { class: "cards", id: "silence-list" });
        const result = el("p", { id: "silence-result", role: "status" });
        const draw = async () => {
          const silences = await api("GET", "/api/v2/silences");
          put(list, ...silences.map((s) => el("li", { class: "card" },
            el("div", { class: "row" }, badge("state", s.status.state),
              el("strong", { text: s.matchers.map((m) => m.name + (m.isEqual === false ? "!" : "") + (m.isRegex ? "=~" : "=") + m.value).join(", ") })),
            el("div", { class: "meta", text: "from " + time(s.startsAt) + " until " + time(s.endsAt) + " · by " + (s.createdBy || "?") }),
            s.comment ? el("p", { text: s.comment }) : null,
            s.status.state !== "expired" && can("admin") ? el("button", { type: "button", onclick: async () => {
              try { await api("DELETE", "/api/v2/silence/" + encodeURIComponent(s.id)); } catch (e) { result.className = "error"; result.textContent = e.message; }
              draw();
            } }, "Expire") : null)));
          if (!silences.length) put(list, el("li", { class: "muted", text: "No silences." }));
        };
        let form = null;
        if (can("admin")) {
          const matchers = el("input", { id: "silence-matchers", required: true, placeholder: "host=db1, env=prod" });
          const hours = el("input", { id: "silence-hours", type: "number", min: "0.25", step: "0.25", value: "2", required: true });
          const comment = el("input", { id: "silence-comment", required: true });
          form = el("form", { class: "stack", onsubmit: async (e) => {
            e.preventDefault();
            const parsed = matchers.value.split(",").map((m) => m.trim()).filter(Boolean).map((m) => {
              const i = m.indexOf("=");
              // No "=": no matcher (slicing at -1 made `servic=service` of `service`).
              return i < 0 ? { name: "" } : { name: m.slice(0, i).trim(), value: m.slice(i + 1).trim(), isRegex: false, isEqual: true };
            });
            if (!parsed.length || parsed.some((m) => !m.name)) { result.className = "error"; result.textContent = "Write matchers as name=value, separated by commas."; return; }
            const now = new Date();
            try {
              await api("POST", "/api/v2/silences", { matchers: parsed, startsAt: now.toISOString(),
                endsAt: new Date(now.getTime() + Number(hours.value) * 3600e3).toISOString(), createdBy: me.name, comment: comment.value });
              result.className = "notice";
              result.textContent = "Silence added.";
              matchers.value = ""; comment.value = "";
            } catch (err) { result.className = "error"; result.textContent = err.message; }
            draw();
          } },
          el("h2", { text: "Add a silence" }),
          el("label", { for: "silence-matchers", text: "Labels to silence (name=value, comma separated)" }), matchers,
          el("label", { for: "silence-hours", text: "For how many hours" }), hours,
          el("label", { for: "silence-comment", text: "Why" }), comment,
          el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary" }, "Add silence")));
        }
        put($("view"), el("h1", { text: "Silences" }), result, list, form);
        render = () => {};
        await draw();
      }

      function route() {
        if (!me) return;
        const hash = location.hash || "#/";
        for (const [link, prefix] of [["nav-alerts", "#/"], ["nav-dead", "#/dead"], ["nav-silences", "#/silences"]]) {
          const current = prefix === "#/" ? (hash === "#/" || hash.startsWith("#/alert/") || hash.startsWith("#/group/")) : hash.startsWith(prefix);
          if (current) $(link).setAttribute("aria-current", "page"); else $(link).removeAttribute("aria-current");
        }
        const show = hash.startsWith("#/alert/") ? () => alertPage(decodeURIComponent(hash.slice(8)))
          : hash.startsWith("#/group/") ? () => groupPage(decodeURIComponent(hash.slice(8)))
          : hash === "#/dead" ? deadPage : hash === "#/silences" ? silencesPage : listPage;
        Promise.resolve(show()).catch((e) => put($("view"), el("p", { class: "error", text: e.message })));
        $("main").focus({ preventScroll: true });
      }

      document.addEventListener("DOMContentLoaded", async () => {
        $("sign-in-form").addEventListener("submit", signIn);
        $("sign-out").addEventListener("click", signOut);
        window.addEventListener("hashchange", route);
        try {
          me = await api("GET", "/ui/session");
        } catch (e) {
          return showSignIn(e.status === 401 ? "" : e.message);
        }
        try { await showApp(); } catch (e) { showSignIn(e.message); }
      });
    })();
    """#
}
