import AlertdClient
import AlertdCommandLine
import AlertdPOSIX

let code = await CommandLineTool.main(
    AlertctlCommand.self, arguments: Array(CommandLine.arguments.dropFirst()), context: .process())
CurrentProcess.exit(code.rawValue)
