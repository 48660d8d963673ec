extension ConsoleAssets {
    /// `/ui/`: the shell the script fills in. Nothing inline, so the
    /// Content-Security-Policy can refuse every inline script and style.
    static let page = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>alertd console</title>
    <link rel="stylesheet" href="/ui/console.css">
    <script src="/ui/console.js" defer></script>
    </head>
    <body>
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href="#/">alertd</a>
      <nav id="nav" aria-label="Console" hidden>
        <a href="#/" id="nav-alerts">Alerts</a>
        <a href="#/dead" id="nav-dead">Dead deliveries</a>
        <a href="#/silences" id="nav-silences">Silences</a>
      </nav>
      <div id="who" class="who" hidden>
        <span id="who-name"></span>
        <button id="sign-out" type="button">Sign out</button>
      </div>
    </header>
    <main id="main" tabindex="-1">
      <section id="sign-in" hidden>
        <h1>Sign in</h1>
        <p>Use an API token from alertd's <code>api.tokens_file</code> or <code>api.token_file</code>. The console keeps a session cookie, not the token.</p>
        <form id="sign-in-form">
          <label for="token">API token</label>
          <input id="token" name="token" type="password" autocomplete="current-password" required>
          <button type="submit">Sign in</button>
        </form>
        <p id="sign-in-error" class="error" role="alert"></p>
      </section>
      <div id="view"></div>
    </main>
    <footer><p id="live" class="live" role="status" aria-live="polite"></p></footer>
    <noscript><p>The console needs JavaScript; alertctl works without it.</p></noscript>
    </body>
    </html>
    """#
}
