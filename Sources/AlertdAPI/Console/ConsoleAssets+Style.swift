extension ConsoleAssets {
    /// `/ui/console.css`. Severity and state are always written out as
    /// words; colour and the border only repeat them.
    static let style = #"""
    :root { --fg: #1b1f24; --muted: #57606a; --bg: #ffffff; --panel: #f6f8fa; --line: #d0d7de; --accent: #0550ae;
      --critical: #a40e26; --error: #bc4c00; --warning: #7d5a00; --info: #0550ae; --ok: #116329; --focus: #bf3989;
      font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 16px; line-height: 1.45;
      color: var(--fg); background: var(--bg); }
    * { box-sizing: border-box; }
    body { margin: 0; }
    a { color: var(--accent); }
    :focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
    .skip { position: absolute; left: -999px; }
    .skip:focus { left: 8px; top: 8px; background: var(--bg); padding: 4px 8px; z-index: 2; }
    .top { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 20px; padding: 10px 16px;
      border-bottom: 1px solid var(--line); background: var(--panel); }
    .brand { font-weight: 700; font-size: 1.15rem; color: var(--fg); text-decoration: none; }
    nav { display: flex; flex-wrap: wrap; gap: 4px 16px; }
    nav a { padding: 4px 0; }
    nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
    .who { margin-left: auto; display: flex; align-items: center; gap: 10px; color: var(--muted); font-size: 0.9rem; }
    main { padding: 16px; max-width: 1100px; margin: 0 auto; }
    main:focus { outline: none; }
    h1 { font-size: 1.4rem; margin: 4px 0 12px; overflow-wrap: anywhere; }
    h2 { font-size: 1.1rem; margin: 20px 0 8px; }
    button { white-space: nowrap; font: inherit; padding: 6px 14px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel);
      color: var(--fg); cursor: pointer; min-height: 36px; }
    button:hover { background: #eaeef2; }
    button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
    button.danger { border-color: var(--critical); color: var(--critical); }
    button:disabled { opacity: 0.6; cursor: default; }
    input, select, textarea { font: inherit; padding: 6px 8px; border: 1px solid #8c959f; border-radius: 6px; background: var(--bg);
      color: var(--fg); max-width: 100%; }
    label { font-weight: 600; }
    form.stack, #sign-in-form { display: grid; gap: 8px; max-width: 420px; }
    .filters { display: flex; flex-wrap: wrap; gap: 10px 16px; align-items: end; margin-bottom: 12px; }
    .filters div { display: grid; gap: 2px; }
    .count { color: var(--muted); margin: 0 0 8px; }
    ul.cards { list-style: none; padding: 0; margin: 0; display: grid; gap: 8px; }
    .card { border: 1px solid var(--line); border-left-width: 6px; border-radius: 6px; padding: 10px 12px; background: var(--bg); }
    .card .title { font-weight: 600; font-size: 1.05rem; overflow-wrap: anywhere; }
    .card .meta { color: var(--muted); font-size: 0.9rem; margin-top: 4px; overflow-wrap: anywhere; }
    .card .row { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; }
    .sev-critical { border-left-color: var(--critical); }
    .sev-error { border-left-color: var(--error); }
    .sev-warning { border-left-color: var(--warning); }
    .sev-info { border-left-color: var(--info); }
    .badge { display: inline-block; font-size: 0.78rem; font-weight: 700; letter-spacing: 0.03em; text-transform: uppercase;
      padding: 1px 7px; border-radius: 4px; border: 1px solid currentColor; white-space: nowrap; }
    .badge.sev-critical { color: var(--critical); } .badge.sev-error { color: var(--error); }
    .badge.sev-warning { color: var(--warning); } .badge.sev-info { color: var(--info); }
    .badge.state { color: var(--muted); }
    .badge.state-open { color: var(--fg); }
    .badge.state-dead { color: var(--critical); }
    .badge.state-delivered, .badge.state-confirmed, .badge.state-resolved { color: var(--ok); }
    .labels { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 6px; }
    .label { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.8rem; background: var(--panel);
      border: 1px solid var(--line); border-radius: 4px; padding: 0 5px; overflow-wrap: anywhere; }
    dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
    dl.fields dt { color: var(--muted); }
    dl.fields dd { margin: 0; overflow-wrap: anywhere; }
    pre.message { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--panel); border: 1px solid var(--line);
      border-radius: 6px; padding: 10px; margin: 12px 0; font-size: 0.9rem; }
    .decide { border: 1px solid var(--line); border-radius: 6px; padding: 12px; background: var(--panel); margin-top: 16px; }
    .decide h2 { margin-top: 0; }
    ul.dead { margin: 6px 0; padding-left: 20px; overflow-wrap: anywhere; }
    .card > button { margin-top: 4px; }
    .decide textarea { width: 100%; min-height: 64px; }
    .buttons { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
    .decision { font-weight: 600; }
    .error { color: var(--critical); font-weight: 600; }
    .error:empty, .notice:empty { display: none; }
    .notice { color: var(--ok); font-weight: 600; }
    .muted { color: var(--muted); }
    footer { padding: 4px 16px 16px; max-width: 1100px; margin: 0 auto; }
    .live { color: var(--muted); font-size: 0.85rem; margin: 0; }
    @media (max-width: 600px) {
      main { padding: 12px; }
      .who { margin-left: 0; width: 100%; justify-content: space-between; }
      dl.fields { grid-template-columns: 1fr; gap: 0; }
      dl.fields dd { margin-bottom: 6px; }
      .filters div, .filters select, .filters input { width: 100%; }
    }
    """#
}
