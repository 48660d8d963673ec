import AlertdClient
import AlertdCommandLine

#if canImport(Glibc)
import Glibc
#endif

let code = await CommandLineTool.main(
    AlertctlCommand.self, arguments: Array(CommandLine.arguments.dropFirst()), context: .process())
exit(code.rawValue)
