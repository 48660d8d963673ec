import AlertModel
import AlertdCommandLine

extension AlertdCommand {
    /// alertd(8) beyond the options: `alertd --generate-manpage` prints the
    /// whole page, and `make install` installs that.
    static let manual = ManualPage(
        section: "8", manual: "System Administration", source: "alertd \(AlertdVersion.current)", date: AlertdVersion.date,
        description: [
            .paragraph("""
                `alertd` accepts alerts over an HTTP API (its own, and the part of Alertmanager's that Prometheus \
                and `amtool` use), stores each one durably before acknowledging it (in an SQLite file, or in a \
                PostgreSQL database several nodes share), and delivers it to the presenters its routes name: the \
                terminal, a log file, a command, webhooks, mail, chat and phone services (Slack, Microsoft \
                Teams, Discord, Telegram, Matrix, ntfy, Gotify, Pushover, PagerDuty), alone or in groups. \
                A delivery that fails is retried with exponential backoff until it succeeds, its \
                retry budget runs out (it is then dead, see `alertctl replay`), or the alert expires. \
                Deliveries interrupted by a crash or a restart are retried when alertd starts again.
                """),
            .paragraph("""
                The API listens on a Unix socket, guarded by its file permissions, and optionally on TCP, where \
                clients must send `Authorization: Bearer` with a token from `api.token_file`, or from \
                `api.tokens_file` with its name and scopes, when one is configured (the scheme name in any \
                case, as HTTP allows).
                """),
            .discussion,
            .paragraph("""
                Closed alerts are kept for `store.retention` (30 days by default) and then pruned with their \
                deliveries; events older than `store.retention` are pruned too, except the newest, so clients \
                resuming the event stream still find where it stands.
                """),
            .paragraph("""
                The state directory is kept at mode 0750 or tighter (a looser one is tightened, and the log \
                says so), and everything alertd creates in it is private to alertd's user and group (umask \
                027, or the service manager's if stricter). Secret files (`api.token_file`, `secret_file`, \
                the action-link key) that group or others may write, or that every user may read, are \
                refused. A database that is not alertd's (another application id, or other tables) is \
                refused with `store_incompatible` and left as it is.
                """),
            .subsection("Under systemd"),
            .paragraph("""
                The shipped alertd.service is `Type=notify`: alertd sends `READY=1` once its listeners are bound \
                and its dispatcher runs, `RELOADING=1` and `READY=1` around a reload, `STOPPING=1` when it begins \
                to shut down, and, when `WatchdogSec=` is set, pings the watchdog every half timeout for as long \
                as its dispatcher and store answer. It takes its sockets from alertd.socket (named `api`, a Unix \
                socket) and the optional alertd-http.socket (named `http`, TCP) by socket activation; each passed \
                socket replaces the one alertd would bind itself. Log lines carry journald's <N> priority prefix \
                when standard error is the journal.
                """),
        ],
        sections: [
            ManualPage.Section("Signals", [
                .items([
                    ManualPage.Item("SIGTERM, SIGINT", """
                        Shut down gracefully, services in the reverse of their start order. The API stops \
                        accepting connections first (one made while requests already being handled finish is \
                        closed unanswered; after that, under socket activation, new ones wait in the socket for \
                        the next start) and open event streams end; then running deliveries may finish, for \
                        `dispatcher.shutdown_grace` from the signal: deliveries still running then are cut off and \
                        retried after the next start, with the same delivery id. A second SIGTERM or SIGINT cuts \
                        them off at once. Then the store is closed and alertd exits 0, within a second of the grace.
                        """),
                    ManualPage.Item("SIGHUP", """
                        Reload: read the configuration file again and apply it. Presenters, routes, retries, \
                        limits, templates, inhibitions, `actions`, retention, the `dispatcher` settings and the \
                        token files change at once; the other `api` settings (listeners, socket, `public_url`, \
                        threads), `state_dir`, the store's place and `limits.max_body_bytes` only on restart \
                        (alertd logs which were kept). The `configuration reloaded` line names what changed: \
                        presenters added, removed and changed, then the other sections, or `nothing`. \
                        An invalid configuration is logged and the \
                        running one kept. `systemctl reload alertd` sends it, after checking the file \
                        with --check-config: the reload then fails on a file alertd would refuse.
                        """),
                    ManualPage.Item("SIGPIPE", """
                        Ignored: a write to a pipe or socket whose reader has gone (standard error under a log \
                        collector that restarted, a client that hung up) fails and is handled as an error; it does \
                        not end alertd. Programs alertd runs start with the default.
                        """),
                    ManualPage.Item("SIGKILL", """
                        Safe: every acknowledged alert is on disk, and interrupted deliveries are retried on the \
                        next start.
                        """),
                ]),
            ]),
        ],
        exitStatus: [
            ManualPage.Item("0", "Stopped cleanly after SIGTERM or SIGINT, or the configuration is valid."),
            ManualPage.Item("1", "Could not start (the store, a presenter, a secret file, or passed sockets)."),
            ManualPage.Item("64", "Bad command-line usage."),
            ManualPage.Item("65", "The configuration is invalid."),
            ManualPage.Item("69", "A listener could not be bound (address in use, permission denied)."),
            ManualPage.Item("73", """
                The state directory or the store cannot be created or written (read-only or full file system, \
                permissions); the message names it.
                """),
            ManualPage.Item("74", "Standard output could not be written: help or --version to a full disk (`> /dev/full`)."),
            ManualPage.Item("75", """
                Another alertd runs on the same state directory; the message gives its pid. Nothing was changed.
                """),
        ],
        environment: [
            ManualPage.Item("STATE_DIRECTORY", "The default state directory (set by systemd's `StateDirectory=`)."),
            ManualPage.Item("RUNTIME_DIRECTORY", """
                The default socket is alertd.sock in this directory (set by systemd's `RuntimeDirectory=`).
                """),
            ManualPage.Item("NOTIFY_SOCKET", """
                Where to send service notifications (a path, or an abstract socket name starting with @); \
                unset, nothing is sent.
                """),
            ManualPage.Item("WATCHDOG_USEC, WATCHDOG_PID", "The watchdog timeout, and the process it applies to."),
            ManualPage.Item("LISTEN_PID, LISTEN_FDS, LISTEN_FDNAMES", """
                Sockets passed by socket activation; alertd removes these variables once read.
                """),
            ManualPage.Item("JOURNAL_STREAM", "Set by systemd when standard error goes to the journal; when it names standard error's device and inode, selects the journal log format."),
            ManualPage.Item("NO_COLOR", "When set and not empty, the terminal presenter does not use colour."),
        ],
        files: [
            ManualPage.Item("/etc/alertd/alertd.json", "The configuration read by alertd.service."),
            ManualPage.Item("/var/lib/alertd/alertd.db", """
                The store (with -wal and -shm files beside it). The running alertd holds a flock on the file \
                itself, so a second alertd whose store.path names it, from any state directory, exits with 75 too.
                """),
            ManualPage.Item("/var/lib/alertd/alerts.log", "The log presenter's output in the default configuration."),
            ManualPage.Item("/var/lib/alertd/alertd.lock", """
                Held (flock) by the running alertd, and holding its pid: a second alertd on the same state \
                directory exits with 75 instead of touching the store.
                """),
            ManualPage.Item("/var/lib/alertd/action-links.key", "The key that signs action links (mode 0600), made on first use."),
            ManualPage.Item("/run/alertd/alertd.sock", """
                The API socket; mode 0660, owned by user and group `alertd`: add users to group `alertd` to \
                let them use `alertctl`.
                """),
            ManualPage.Item("/usr/local/lib/systemd/system", """
                alertd.service, alertd.socket and alertd-http.socket, the systemd units, by default.
                """),
        ],
        examples: [
            ManualPage.Example(
                "Check the installed configuration:",
                "alertd --check-config --config /etc/alertd/alertd.json"),
            ManualPage.Example(
                "Run in the foreground for a try, with the API on TCP too:",
                "alertd --state-dir /tmp/alertd --listen 127.0.0.1:9190"),
            ManualPage.Example(
                "Install and start under systemd:",
                """
                make release && sudo make install
                sudo systemd-sysusers /usr/local/lib/sysusers.d/alertd.conf
                sudo systemd-tmpfiles --create /usr/local/lib/tmpfiles.d/alertd.conf
                sudo systemctl enable --now alertd.socket alertd.service
                """),
            ManualPage.Example("Reload the configuration after editing it:", "sudo systemctl reload alertd"),
        ],
        seeAlso: [
            "alertctl(1)", "systemd.service(5)", "systemd.socket(5)", "sd_notify(3)", "sd_listen_fds(3)",
            "systemd-analyze(1)",
        ])
}
