/// The browser half of `ConsoleBrowserTests`: Selenium driving Debian's
/// chromium through chromedriver, headless, against the test's alertd.
/// It takes one JSON argument (addresses, tokens, ids, the output
/// directory), prints one line per step, and exits non-zero at the first
/// step that does not hold. The Swift test checks what alertd did.
enum ConsoleBrowserScript {
    static let source = #"""
    import json, os, subprocess, sys, threading, time, urllib.request, urllib.error
    from http.server import HTTPServer, BaseHTTPRequestHandler
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    from selenium.webdriver.support import expected_conditions as EC

    cfg = json.loads(sys.argv[1])
    base = cfg["base_url"]
    out = cfg["output_dir"]
    os.makedirs(out, exist_ok=True)

    started = time.monotonic()

    def step(text):
        print("step: %5.1fs %s" % (time.monotonic() - started, text), flush=True)

    def alertctl(*args):
        env = dict(os.environ, ALERTD_SOCKET=cfg["socket"])
        r = subprocess.run([cfg["alertctl"], *args], env=env, capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise SystemExit("alertctl %s failed (%d): %s %s" % (args, r.returncode, r.stdout, r.stderr))
        return r.stdout.strip()

    def state_of(alert_id):
        return json.loads(alertctl("show", alert_id, "--json"))["state"]

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900",
                 "--no-first-run", "--disable-extensions", "--user-data-dir=" + os.path.join(cfg["work_dir"], "profile")]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    wait = WebDriverWait(driver, 20)

    def viewport(width, height):
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})

    def shot(name, width):
        viewport(width, 900)
        time.sleep(0.3)
        # The whole page, however long: the layout at that width, not just its top.
        height = driver.execute_script("return Math.max(document.documentElement.scrollHeight, 600)")
        viewport(width, min(height, 2400))
        time.sleep(0.3)
        driver.save_screenshot(os.path.join(out, name))
        overflow = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if overflow > 0:
            widest = driver.execute_script("""
                const w = document.documentElement.clientWidth;
                return [...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > w)
                  .slice(0, 5).map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right));""")
            raise SystemExit("%s: the page is %dpx wider than the %dpx viewport: %s" % (name, overflow, width, widest))
        viewport(1280, 900)

    def sign_in(token, name):
        wait.until(EC.visibility_of_element_located((By.ID, "token")))
        field = driver.find_element(By.ID, "token")
        field.clear()
        field.send_keys(token)
        driver.find_element(By.CSS_SELECTOR, "#sign-in-form button[type=submit]").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "who-name"), "Signed in as " + name))

    def fetch(method, path, body=None):
        # From the console's own page, with its cookie: what a script on it could do.
        return driver.execute_async_script("""
            const [method, path, body, done] = arguments;
            fetch(path, {method, headers: {"Content-Type": "application/json"}, body: body === null ? undefined : body})
              .then(async r => done({status: r.status, body: await r.text()}), e => done({status: 0, body: String(e)}));
        """, method, path, body)

    def raw(path, cookie):
        req = urllib.request.Request(base + path, headers={"Cookie": "alertd_session=" + cookie})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code

    try:
        driver.set_script_timeout(20)
        step("the console asks for a token")
        driver.get(base + "/ui/")
        sign_in(cfg["alice_token"], "alice")
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#alert-list li")))
        driver.execute_script("window.consoleMarker = 'loaded once'")

        step("an alert sent with alertctl appears without a reload")
        deploy = alertctl("send", "--title", "Deploy 2.4.1 to production?", "--severity", "critical", "--label", "env=prod",
                          "--label", "service=api", "--message", "Canary is healthy for 30 minutes; 0.02% errors.",
                          "--confirm", "Deploy=" + cfg["handler_url"] + "/confirm", "--cancel", "Hold=" + cfg["handler_url"] + "/cancel")
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, '#alert-list li[data-alert="%s"]' % deploy)))
        if driver.execute_script("return window.consoleMarker") != "loaded once":
            raise SystemExit("the page reloaded to show the new alert")
        first = driver.find_element(By.CSS_SELECTOR, "#alert-list li").get_attribute("data-alert")
        if first != deploy:
            raise SystemExit("the newest alert is not listed first: %s" % first)
        step("filters: severity and label")
        from selenium.webdriver.support.ui import Select
        Select(driver.find_element(By.ID, "filter-severity")).select_by_value("critical")
        shown = [e.get_attribute("data-alert") for e in driver.find_elements(By.CSS_SELECTOR, "#alert-list li")]
        badges = [e.text.lower() for e in driver.find_elements(By.CSS_SELECTOR, "#alert-list li .badge:first-child")]
        if deploy not in shown or set(badges) != {"critical"}:
            raise SystemExit("severity filter shows %s with severities %s" % (shown, badges))
        Select(driver.find_element(By.ID, "filter-severity")).select_by_value("")
        driver.find_element(By.ID, "filter-label").send_keys("host=db1")
        shown = [e.get_attribute("data-alert") for e in driver.find_elements(By.CSS_SELECTOR, "#alert-list li")]
        if deploy in shown or not shown:
            raise SystemExit("label filter shows %s" % shown)
        # A name every object has built in is no label of any alert.
        driver.find_element(By.ID, "filter-label").clear()
        driver.find_element(By.ID, "filter-label").send_keys("constructor")
        shown = [e.get_attribute("data-alert") for e in driver.find_elements(By.CSS_SELECTOR, "#alert-list li")]
        if shown:
            raise SystemExit("the label filter `constructor` shows %s" % shown)
        driver.find_element(By.ID, "filter-label").clear()
        driver.execute_script("document.getElementById('filter-label').dispatchEvent(new Event('input'))")
        shot("list-1280.png", 1280)
        shot("list-360.png", 360)

        step("the alert's page, reached by keyboard, shows its spec and deliveries")
        link = driver.find_element(By.CSS_SELECTOR, '#alert-list li[data-alert="%s"] a.title' % deploy)
        link.send_keys("\n")
        wait.until(EC.presence_of_element_located((By.ID, "confirm-button")))
        wait.until(EC.text_to_be_present_in_element((By.ID, "deliveries-heading"), "Deliveries (1)"))
        shot("alert-1280.png", 1280)
        shot("alert-360.png", 360)

        step("Confirm, with a comment, names alice")
        driver.find_element(By.ID, "comment").send_keys("canary looks good")
        driver.find_element(By.ID, "confirm-button").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "decision"), "confirmed by alice"))
        if "canary looks good" not in driver.find_element(By.ID, "decision").text:
            raise SystemExit("the comment is not shown: " + driver.find_element(By.ID, "decision").text)
        if driver.find_elements(By.ID, "confirm-button"):
            raise SystemExit("the decision buttons are still shown on a decided alert")
        shot("alert-decided-1280.png", 1280)

        step("a decision by an action link names the address the link was sent to")
        driver.get(base + "/ui/#/alert/" + cfg["link_alert"])
        wait.until(EC.text_to_be_present_in_element((By.ID, "decision"), "confirmed via link by carol@example.com"))

        step("a page on another origin cannot make the browser decide")
        target = alertctl("send", "--title", "Restart nginx on web-1?", "--severity", "error", "--label", "host=web-1",
                          "--confirm", "Restart=" + cfg["handler_url"] + "/restart")
        evil = """<!doctype html><html><body>
          <form id="f" method="post" action="%(base)s/v1/alerts/%(id)s/confirm" enctype="text/plain" target="sink">
            <input name='{"comment": "' value='forged"}'></form>
          <iframe name="sink"></iframe>
          <script>
            fetch("%(base)s/v1/alerts/%(id)s/confirm", {method: "POST", mode: "no-cors", credentials: "include",
              headers: {"Content-Type": "text/plain"}, body: "{}"}).finally(() => {
            fetch("%(base)s/v1/alerts/%(id)s/confirm", {method: "POST", credentials: "include",
              headers: {"Content-Type": "application/json"}, body: "{}"}).catch(() => {}).finally(() => {
                document.getElementById("f").submit();
                setTimeout(() => { document.title = "done"; }, 1500);
            }); });
          </script></body></html>""" % {"base": base, "id": target}

        class Evil(BaseHTTPRequestHandler):
            def do_GET(self):
                body = evil.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *a):
                pass
        server = HTTPServer(("127.0.0.1", 0), Evil)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        driver.get("http://127.0.0.1:%d/" % server.server_address[1])
        wait.until(EC.title_is("done"))
        server.shutdown()
        if state_of(target) != "open":
            raise SystemExit("the page on another origin decided alert %s" % target)
        print("result: foreign_origin_alert", target, flush=True)

        step("a dead delivery is replayed from the page")
        driver.get(base + "/ui/#/dead")
        card = '#dead-list li[data-alert="%s"]' % cfg["dead_alert"]
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, card)))
        if "HTTP 400" not in driver.find_element(By.CSS_SELECTOR, card).text:
            raise SystemExit("the dead delivery's error is not shown: " + driver.find_element(By.CSS_SELECTOR, card).text)
        shot("dead-1280.png", 1280)
        driver.find_element(By.CSS_SELECTOR, card + " button").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "dead-result"), "Replayed 1 delivery"))
        wait.until(EC.invisibility_of_element_located((By.CSS_SELECTOR, card)))

        step("a silence is added and expired from the page")
        driver.get(base + "/ui/#/silences")
        # A matcher without "=" is refused, not read as `hos=host`.
        wait.until(EC.visibility_of_element_located((By.ID, "silence-matchers"))).send_keys("host")
        driver.find_element(By.ID, "silence-comment").send_keys("disk swap tonight")
        driver.find_element(By.CSS_SELECTOR, "#view form button[type=submit]").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "silence-result"), "Write matchers as name=value"))
        if "hos=" in driver.find_element(By.ID, "silence-list").text:
            raise SystemExit("a matcher without = made a silence: " + driver.find_element(By.ID, "silence-list").text)
        driver.find_element(By.ID, "silence-matchers").send_keys("=db1")
        driver.find_element(By.CSS_SELECTOR, "#view form button[type=submit]").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "silence-list"), "disk swap tonight"))
        if "by alice" not in driver.find_element(By.ID, "silence-list").text:
            raise SystemExit("the silence does not name alice: " + driver.find_element(By.ID, "silence-list").text)
        shot("silences-360.png", 360)
        driver.find_element(By.CSS_SELECTOR, "#silence-list li button").click()
        wait.until(EC.text_to_be_present_in_element((By.ID, "silence-list"), "EXPIRED"))

        step("signing out ends the session: its cookie no longer works")
        cookie = driver.get_cookie("alertd_session")
        if not cookie or not cookie.get("httpOnly") or cookie.get("sameSite") != "Strict":
            raise SystemExit("the session cookie is not HttpOnly and SameSite=Strict: %s" % cookie)
        if raw("/v1/alerts", cookie["value"]) != 200:
            raise SystemExit("the session cookie does not read alerts before signing out")
        driver.get(base + "/ui/")
        wait.until(EC.element_to_be_clickable((By.ID, "sign-out"))).click()
        wait.until(EC.visibility_of_element_located((By.ID, "token")))
        if driver.get_cookie("alertd_session"):
            raise SystemExit("the cookie is still in the browser after signing out")
        status = raw("/v1/alerts", cookie["value"])
        if status != 401:
            raise SystemExit("the signed-out cookie got %d, not 401" % status)

        step("a read-only token sees no decision buttons and a forged POST gets 403")
        sign_in(cfg["reader_token"], "reader")
        driver.get(base + "/ui/#/alert/" + target)
        wait.until(EC.text_to_be_present_in_element((By.ID, "deliveries-heading"), "Deliveries"))
        if driver.find_elements(By.CSS_SELECTOR, "#alert-actions button") or driver.find_elements(By.ID, "comment"):
            raise SystemExit("a read-only session is shown decision buttons")
        forged = fetch("POST", "/v1/alerts/%s/confirm" % target, "{}")
        if forged["status"] != 403 or json.loads(forged["body"])["error"]["code"] != "scope_missing":
            raise SystemExit("a read-only session's POST got %s" % forged)
        if state_of(target) != "open":
            raise SystemExit("the read-only session decided the alert")
        step("done")
        print("result: ok", flush=True)
    except Exception:
        try:
            driver.save_screenshot(os.path.join(out, "failure.png"))
            print("page at failure:", driver.current_url, driver.find_element(By.TAG_NAME, "body").text[:2000], flush=True)
        except Exception:
            pass
        raise
    finally:
        driver.quit()
    """#
}
