import AlertdClient
import AlertdCommandLine
import AlertdPOSIX

// Parsing, help and --version stay before the first `await` (see CommandLineTool.start).
let context = CommandContext.process()
switch CommandLineTool.start(AlertctlCommand.self, context: context) {
case .exit(let code): CurrentProcess.exit(context.ending(with: code).rawValue)
case .run(let command): CurrentProcess.exit(running: { context.ending(with: await command.run(context)).rawValue })
}
