import FoundationEssentials
import AlertModel
import AlertdCommandLine
import AlertdHTTP
import AlertdStore

/// `alertctl send`: composes an alert like `validate` and submits it to
/// alertd; with `--wait`, stays until the alert is decided.
public struct SendCommand: CLICommand {
    public static let configuration = CommandConfiguration(
        name: "send",
        abstract: "Send an alert to alertd and print its id.",
        discussion: """
            Checks the alert first, as 'validate' does: an invalid alert is not sent. \
            A title, message or label count past the default limits is left to alertd, whose 'limits' may allow it. \
            Prints the new alert's id, or with --json alertd's answer ({"id", "state", "deduplicated"}). \
            When an open alert has the same dedup key, the alert is folded into it and its id is printed.

            With --wait, stays until the alert (or the one it was folded into) is decided and prints how, \
            e.g. 'confirmed by uid:1000 at 2025-06-01 12:00:00 UTC'; with --json the alert instead, as \
            'show --json' prints it. Then exits 0 when it was confirmed, 1 when cancelled or resolved, \
            2 when it expired or --timeout passed first, 3 when an error from alertd left the decision unknown. \
            Following the alert takes reading it: over TCP, \
            with a token that lacks the read scope, nothing is sent and alertctl says why.

            Exit codes: 0 ok, 1 failure (an error from alertd; with --wait, cancelled or resolved), \
            2 expired or timed out (--wait), 3 decision unknown after an error (--wait), \
            64 usage error, 65 invalid alert, 69 alertd unavailable, 75 alertd cannot now (503, 429): try again later, \
            77 token refused or without the scope (401, 403; with --wait, nothing was sent).
            """,
        options: AlertCompositionOptions.options + AlertdConnectionOptions.options + [
            .flag("json", help: "Print alertd's answer, or the problems, as JSON on standard output."),
            .flag("wait", help: "Wait until the alert is decided; the exit code says how."),
            .value("timeout", valueName: "duration", help: "With --wait, stop waiting after this long, e.g. 90s, 10m, 1h.",
                   default: "10m"),
        ])

    package let composition: AlertCompositionOptions
    package let connection: AlertdConnectionOptions
    package let json: Bool
    /// How long `--wait` waits; nil without `--wait`.
    package let wait: Duration?

    public init(parsed: ParsedCommand) throws(CommandLineError) {
        composition = try AlertCompositionOptions(parsed: parsed)
        connection = try AlertdConnectionOptions(parsed: parsed)
        json = parsed.flag("json")
        let raw = parsed.value("timeout") ?? "10m"
        guard let timeout = AlertDuration(parsing: raw), timeout.seconds > 0, timeout.seconds <= AlertDuration.longestOption.seconds else {
            throw .invalidValue(raw, for: parsed.configuration.option(named: "timeout")!,
                                expected: "give a duration such as 90s, 10m or 1h30m, at most \(AlertDuration.longestOption) (100 years).")
        }
        if parsed.flag("wait") {
            wait = timeout.duration
        } else {
            if parsed.isGiven("timeout") {
                throw .invalidCombination("'--timeout' says how long '--wait' waits; add '--wait'.")
            }
            wait = nil
        }
    }

    public func run(_ context: CommandContext) async -> ExitCode {
        let spec: AlertSpec
        // The daemon's `limits` may be wider than the defaults: it judges those itself.
        switch composition.build(context: context, limits: .widestConfigurable) {
        case .success(let built): spec = built
        case .failure(let errors):
            return errors.report(context, json: json)
        }
        guard let client = connection.client(context, command: ["alertctl", Self.configuration.name]) else { return .usage }
        if let wait {
            // Following the alert takes reading it: a token without that
            // scope asked people the question, then failed to hear the
            // answer, with the exit code that means "cancelled". Within
            // --timeout: the whole wait is bounded by it.
            var check = client
            check.timeout = min(client.timeout, wait)
            do {
                _ = try await check.list(AlertQuery(limit: 1))
            } catch {
                let code = waiting(error.report(context, json: json))
                if case .api(403, let refusal) = error, refusal.code == "scope_missing", !json {
                    context.errorOutput("alertctl: nothing was sent: --wait follows the alert, which needs the `read` scope too\n")
                }
                return code
            }
        }
        let result: SubmissionResult
        do {
            result = try await client.submit(spec)
        } catch {
            let code = error.report(context, json: json)
            // Unanswered, the alert may have been stored and put its question: no decision can be told.
            guard wait != nil else { return code }
            return if case .unanswered = error { .decisionUnknown } else { waiting(code) }
        }
        if json {
            // With --wait, the alert record printed at the end is the one JSON document.
            if wait == nil { context.output(CLIJSON.text(result) + "\n") }
        } else {
            context.output(result.id.rawValue + "\n")
        }
        if result.deduplicated {
            context.errorOutput("deduplicated into \(result.id): an open alert has the same dedup key\n")
        }
        guard let wait else { return .success }
        return await waitForDecision(result.id, client: client, timeout: wait, context: context)
    }

    /// What an error's exit code becomes under `--wait`, where 1 means a
    /// person said no.
    private func waiting(_ code: ExitCode) -> ExitCode { code == .failure ? .decisionUnknown : code }

    /// `--wait`: follows the alert until it is decided or `timeout` passes.
    private func waitForDecision(_ id: AlertID, client: AlertdClient, timeout: Duration, context: CommandContext) async -> ExitCode {
        let alert: APIRepresentation.AlertDetail
        do {
            alert = try await DecisionWaiter(client: client, id: id, tell: { context.errorOutput($0) }).wait(timeout: timeout)
        } catch {
            // The alert is out, asking people: whatever went wrong, its decision is unknown here.
            _ = error.report(context, json: json)
            // With --json its id was not printed yet, and the error alone read as if nothing was sent.
            context.errorOutput("alertctl: alert \(id) was sent; whether anyone decided is unknown\n")
            return .decisionUnknown
        }
        if json {
            context.output(CLIJSON.text(alert) + "\n")
        } else if let decision = alert.decision {
            context.output(decision.commandLineText + "\n")
        } else if alert.state.isFinal {
            context.output(alert.state.rawValue + "\n")
        }
        switch alert.state {
        case .confirmed: return .success
        case .cancelled, .resolved: return .failure
        case .expired: return .expiredOrTimedOut
        case .open:
            context.errorOutput("alertctl: alert \(id) is still open after \(AlertDuration(seconds: Int64(timeout.components.seconds))); stopped waiting\n")
            return .expiredOrTimedOut
        }
    }
}
