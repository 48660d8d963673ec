import FoundationEssentials
import AlertModel
import AlertdCommandLine
import AlertdDelivery
import AlertdHTTP
import AlertdPOSIX

/// `alertctl watch` on a terminal: each new alert drawn by
/// ``TerminalRenderer`` under a number, decisions as one-line notices, and a
/// prompt naming what `y` and `n` would do:
///
/// ```
/// #2
/// ╭─ [WARNING] ───────────────────────╮
/// │ Deploy to prod?                   │
/// …
/// [y] Deploy  [n] Abort  (or type a number + y/n for another alert)
/// ```
///
/// Keys and events arrive on one stream and are handled one at a time, so
/// the state needs no lock.
package struct InteractiveWatch {
    package let client: AlertdClient
    package let context: CommandContext
    package let input: TerminalInput

    private enum Input: Sendable {
        case key(UInt8)
        case keysEnded
        case stream(AlertdClient.EventStreamItem)
        case streamFailed(AlertdClientError)
    }

    /// An open alert drawn in this session.
    private struct Entry {
        package let number: Int
        package let alert: APIRepresentation.AlertDetail

        package func has(_ action: ActionKind) -> Bool { alert.spec.action(action) != nil }
    }

    private var open: [Entry] = []
    private var numbers: [AlertID: Int] = [:]
    private var titles: [AlertID: String] = [:]
    /// Alerts whose decision is on screen: one drawn already decided (a
    /// replay with `--since`) meets its decision's event again later.
    private var decisionShown: Set<AlertID> = []
    private var nextNumber = 1
    /// Digits typed before `y` or `n`.
    private var typed = ""

    package init(client: AlertdClient, context: CommandContext, input: TerminalInput) {
        self.client = client
        self.context = context
        self.input = input
    }

    /// Runs until `q`, Ctrl-C, Ctrl-D or the end of input (exit 0), or until
    /// the event stream fails for good.
    package mutating func run(since: Int64?) async -> ExitCode {
        let (inputs, sink) = AsyncStream<Input>.makeStream()
        let keys = input.keys()
        let keyTask = Task {
            for await key in keys { sink.yield(.key(key)) }
            sink.yield(.keysEnded)
        }
        let client = self.client
        let eventTask = Task {
            do {
                for try await item in client.events(since: since) { sink.yield(.stream(item)) }
            } catch let error as AlertdClientError {
                sink.yield(.streamFailed(error))
            } catch {
                sink.yield(.streamFailed(.transport(.cancelled(url: client.endpoint.description))))
            }
        }
        defer {
            keyTask.cancel()
            eventTask.cancel()
        }
        for await next in inputs {
            switch next {
            case .key(let key):
                if await handle(key: key) == .quit { return .success }
            case .keysEnded:
                return .success
            case .stream(.connected(let resumed)):
                say(resumed ? "reconnected to alertd" : "Watching alertd at \(client.endpoint): y confirms, n cancels, q quits.")
            case .stream(.disconnected(let error)):
                say("lost the event stream (\(error.summary)); reconnecting")
            case .stream(.event(let raw)):
                if let event = AlertdEvent(raw) { await handle(event) }
            case .streamFailed(let error):
                input.restore()
                return error.report(context)
            }
        }
        return .success
    }

    // MARK: Events

    private mutating func handle(_ event: AlertdEvent) async {
        if event.kind == .alertCreated {
            await draw(event.alertID)
        } else if let decision = event.decision {
            showDecision(event.alertID, decision)
        } else if event.kind == .alertEscalated, let number = numbers[event.alertID] {
            say("#\(number) escalated: \(titles[event.alertID] ?? event.alertID.rawValue)")
        }
    }

    private mutating func draw(_ id: AlertID) async {
        guard numbers[id] == nil else { return }
        let alert: APIRepresentation.AlertDetail
        do {
            alert = try await client.show(id)
        } catch {
            say("cannot show new alert \(id): \(error.message)")
            return
        }
        let number = nextNumber
        nextNumber += 1
        numbers[id] = number
        titles[id] = AlertListTable.singleLine(alert.spec.title)
        let box = TerminalRenderer.render(alert.alert, context: DeliveryContext(deliveryID: DeliveryID(rawValue: "alertctl-watch")),
                                          width: width, colour: usesColour)
        context.output("\n#\(number)\n" + box)
        if let decision = alert.decision {
            showDecision(id, decision)
        } else {
            open.append(Entry(number: number, alert: alert))
            prompt()
        }
    }

    private mutating func showDecision(_ id: AlertID, _ decision: AlertDecision) {
        guard decisionShown.insert(id).inserted else { return }
        let wasOpen = open.contains { $0.alert.id == id }
        open.removeAll { $0.alert.id == id }
        let name = numbers[id].map { "#\($0)" } ?? id.rawValue
        let title = titles[id].map { ": " + $0 } ?? ""
        say("\(name) \(decision.commandLineText)\(title)")
        if wasOpen { prompt() }
    }

    /// What `y` and `n` would do now.
    private func prompt() {
        let confirm = open.last { $0.has(.confirm) }
        let cancel = open.last { $0.has(.cancel) }
        guard confirm != nil || cancel != nil else { return }
        let sameAlert = confirm?.number == cancel?.number || confirm == nil || cancel == nil
        var parts: [String] = []
        for (key, kind, entry) in [("y", ActionKind.confirm, confirm), ("n", .cancel, cancel)] {
            guard let entry, let action = entry.alert.spec.action(kind) else { continue }
            parts.append("[\(key)] \(AlertListTable.singleLine(action.label))" + (sameAlert ? "" : " (#\(entry.number))"))
        }
        var line = (sameAlert ? "#\((confirm ?? cancel)!.number) " : "") + parts.joined(separator: "  ")
        if open.filter({ $0.has(.confirm) || $0.has(.cancel) }).count > 1 {
            line += "  (or type a number + y/n for another alert)"
        }
        context.output(line + "\n")
    }

    // MARK: Keys

    private enum KeyResult { case quit, handled }

    private mutating func handle(key: UInt8) async -> KeyResult {
        switch key {
        case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x03, 0x04:  // Ctrl-C, Ctrl-D
            return .quit
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            if typed.count < 9 { typed.append(Character(UnicodeScalar(key))) }
        case 0x7F, 0x08:  // backspace
            if !typed.isEmpty { typed.removeLast() }
        case 0x1B:  // escape
            typed = ""
        case UInt8(ascii: "y"), UInt8(ascii: "Y"):
            await decide(.confirm)
        case UInt8(ascii: "n"), UInt8(ascii: "N"):
            await decide(.cancel)
        default:
            break
        }
        return .handled
    }

    private mutating func decide(_ kind: ActionKind) async {
        let number = Int(typed)
        typed = ""
        let entry: Entry
        if let number {
            guard let chosen = open.first(where: { $0.number == number }) else {
                say("#\(number) is not an open alert drawn here")
                return
            }
            guard chosen.has(kind) else {
                say("#\(number) has no \(kind.rawValue) action")
                return
            }
            entry = chosen
        } else {
            guard let newest = open.last(where: { $0.has(kind) }) else {
                // Alerts from before the watch began are not drawn, so not known here.
                say("no open alert drawn here has a \(kind.rawValue) action (watch draws alerts from its start on; "
                    + "--since 0 draws the earlier ones, or run `alertctl \(kind.rawValue) ID`)")
                return
            }
            entry = newest
        }
        do {
            // The event that follows prints the notice.
            _ = try await client.decide(entry.alert.id, kind == .confirm ? .confirm : .cancel)
        } catch .alreadyDecided(let conflict) {
            if let decision = conflict.alert.decision {
                showDecision(entry.alert.id, decision)
            }
        } catch {
            say("cannot \(kind.rawValue) #\(entry.number): \(error.message)")
        }
    }

    // MARK: Output

    /// Every line but the boxes goes through here, and most carry the
    /// server's words (its errors, who decided): a server that is not
    /// alertd may put escape sequences in them.
    private func say(_ line: String) {
        context.output(AlertListTable.singleLine(line) + "\n")
    }

    /// `COLUMNS`, else the terminal's width, else 80; as the terminal presenter.
    private var width: Int {
        if let columns = context.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return TerminalDevice.columns(1) ?? 80
    }

    /// Colour unless `NO_COLOR` is set or `TERM` is `dumb`.
    private var usesColour: Bool {
        if let noColour = context.environment["NO_COLOR"], !noColour.isEmpty { return false }
        return context.environment["TERM"] != "dumb"
    }
}
