import AlertdCommandLine
import AlertdDaemon
import AlertdPOSIX

// How the process treats signals is decided here and nowhere else: the
// daemon is handed the ones it acts on as a stream. Taken over before
// anything starts, so a SIGTERM during startup waits its turn. Parsing,
// help and --version stay before the first `await` (see CommandLineTool.start).
var context = CommandContext.process()
context.signals = ProcessSignals.stream(AlertDaemon.handledSignals(environment: context.environment))
ProcessSignals.ignoreBrokenPipes()
switch CommandLineTool.start(AlertdCommand.self, context: context) {
case .exit(let code): CurrentProcess.exit(context.ending(with: code).rawValue)
case .run(let command):
    let context = context
    // Not `ending(with:)`: a daemon's exit status says how it stopped, and
    // a terminal presenter's lost stdout is logged when it happens.
    CurrentProcess.exit(running: { await command.run(context).rawValue })
}
