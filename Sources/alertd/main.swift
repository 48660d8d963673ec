import AlertdCommandLine
import AlertdDaemon
import AlertdPOSIX

// How the process treats signals is decided here and nowhere else: the
// daemon is handed the ones it acts on as a stream. Taken over before
// anything starts, so a SIGTERM during startup waits its turn.
var context = CommandContext.process()
context.signals = ProcessSignals.stream(AlertDaemon.handledSignals(environment: context.environment))
let code = await CommandLineTool.main(
    AlertdCommand.self, arguments: Array(CommandLine.arguments.dropFirst()), context: context)
CurrentProcess.exit(code.rawValue)
