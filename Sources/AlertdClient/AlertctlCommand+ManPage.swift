import AlertModel
import AlertdCommandLine

extension AlertctlCommand {
    /// alertctl(1) beyond the command tree: `alertctl --generate-manpage`
    /// prints the whole page, and `make install` installs that.
    static let manual = ManualPage(
        section: "1", manual: "User Commands", source: "alertd \(AlertdVersion.current)", date: AlertdVersion.date,
        description: [
            .paragraph("""
                `alertctl` is the command-line client of `alertd`(8). It composes alerts from options or \
                templates and checks them locally (`validate`, `render`), and talks to a running alertd over \
                its Unix socket or over TCP (`send`, `list`, `show`, `confirm`, `cancel`, `resolve`, `watch`, \
                `replay`, `silence`).
                """),
            .paragraph("""
                Every command takes -h and --help; `alertctl help <command>` prints the same. --json prints \
                machine-readable output for scripts, one JSON document a line; an error then goes to standard \
                output too, in the HTTP API's error shape ({"error": {"code", "message"}}), whether alertd \
                refused or could not be reached (usage errors stay on standard error). An option that takes one value may be given once; \
                giving it again is a usage error (exit 64). Options that may be repeated, such as --label, \
                say so.
                """),
            .discussion,
        ],
        exitStatus: [
            ManualPage.Item("0", """
                Success. Also `resolve --dedup-key` when no open alert holds the key: there is nothing to \
                resolve.
                """),
            ManualPage.Item("1", """
                Failure: an error from alertd (the alert was already decided, there is no such alert, ...), \
                or a delivery that failed (`render`). `send --wait`: the alert was cancelled or resolved.
                """),
            ManualPage.Item("2", "`send --wait`: the alert expired, or --timeout passed, before anyone decided."),
            ManualPage.Item("3", "`send --wait`: an error from alertd (a lost connection, a failure of its store) left the decision "
                + "unknown; 1 is kept for a person's no. Whether the alert was sent, the message says."),
            ManualPage.Item("64", "Bad command-line usage: an unknown option, a missing value, a single-value option given twice, ..."),
            ManualPage.Item("65", "The alert is invalid, or alertd refused what was sent as invalid (400, 422: a silence, a filter)."),
            ManualPage.Item("69", "alertd is unavailable: nothing answers at the socket or URL."),
            ManualPage.Item("74", "Standard output could not be written (a full disk, `> /dev/full`); what was printed is not all there."),
            ManualPage.Item("75", "alertd answered that it cannot now (503: its store failed, it is stopping or busy; 429: too many "
                + "wrong tokens from this address; a proxy before it answering 502, 503 or 504): it may not have been done, and "
                + "the same command may work later (a send with a --dedup-key cannot store the alert twice)."),
            ManualPage.Item("77", "The token was refused, or lacks the scope the command needs (401, 403, from alertd or a proxy "
                + "before it). `send --wait`: nothing was sent."),
        ],
        environment: [
            ManualPage.Item("ALERTD_SOCKET", "The Unix socket to reach alertd on."),
            ManualPage.Item("ALERTD_URL", "alertd's base URL over TCP; not to be set together with `ALERTD_SOCKET`."),
            ManualPage.Item("ALERTD_TOKEN_FILE", "The file holding the API token for TCP: for `ALERTD_URL`'s server, not another --url names."),
            ManualPage.Item("ALERTD_TEMPLATES", "The template file for --template."),
            ManualPage.Item("ALERTD_WEBHOOK_SECRET", """
                The signing secret for `render --to webhook` when neither --secret-file nor --secret is given; \
                unlike --secret, no other user can see it.
                """),
            ManualPage.Item("RUNTIME_DIRECTORY, STATE_DIRECTORY", "Where alertd's default socket is looked for."),
            ManualPage.Item("NO_COLOR", "When set and not empty, no colour on the terminal."),
            ManualPage.Item("COLUMNS", "The terminal width for `list`, `render` and `watch`."),
        ],
        files: [
            ManualPage.Item("/run/alertd/alertd.sock", """
                alertd's API socket under systemd; members of group `alertd` may use it.
                """),
        ],
        examples: [
            ManualPage.Example(
                "Send a critical alert with a confirm action:",
                """
                alertctl send -t "Disk full" -m "/var at 97%" -s critical \\
                    -l host=db1 --confirm "Expand=https://ops.example/expand"
                """),
            ManualPage.Example(
                "Send a command's output as the message; its columns are kept on the terminal:",
                "df -h | alertctl send -t \"Disk usage on db1\" --message -"),
            ManualPage.Example(
                "Ask before deploying, and deploy only when someone confirms within ten minutes:",
                """
                alertctl send -t "Deploy to prod?" --wait --timeout 10m \\
                    --confirm Deploy=https://ci.example/deploy && ./deploy.sh
                """),
            ManualPage.Example(
                "Resolve the alert a check raised, once the problem is gone (exits 0 if none is open):",
                "alertctl resolve --dedup-key disk-full:db1:/var --comment \"cleaned up\""),
            ManualPage.Example(
                "List open alerts of one host as JSON, from alertd over TCP:",
                """
                alertctl --url http://127.0.0.1:9190 --token-file ~/.alertd-token \\
                    list --state open -l host=db1 --json
                """),
            ManualPage.Example(
                "Follow events from the start of the kept history, one JSON line each:",
                "alertctl watch --since 0 --json"),
            ManualPage.Example("Retry every dead delivery:", "alertctl replay --dead"),
            ManualPage.Example(
                "Hold back the alerts of the db hosts for a two-hour maintenance:",
                "alertctl silence add alertname=DiskFull 'instance=~\"db[0-9]+\"' --duration 2h --comment \"disk swap\""),
            ManualPage.Example(
                "Check an alert from a script, without a daemon:",
                "alertctl validate -t \"Backup failed\" -s error --json"),
            ManualPage.Example("Enable completion in bash:", "source <(alertctl completion bash)"),
            ManualPage.Example("Enable completion in fish:", "alertctl completion fish | source"),
        ],
        seeAlso: ["alertd(8)"])
}
