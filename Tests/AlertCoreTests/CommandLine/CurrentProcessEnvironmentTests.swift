import AlertdPOSIX
import FoundationEssentials
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `CurrentProcess.environment` reads `environ` itself; it must say what
/// `getenv(3)` and FoundationEssentials say.
@Suite(.serialized) struct CurrentProcessEnvironmentTests {
    @Test func readsWhatGetenvAndProcessInfoRead() {
        let name = "ALERTD_ENV_TEST_\(getpid())"
        setenv(name, "a=b c", 1)
        defer { unsetenv(name) }
        let environment = CurrentProcess.environment
        #expect(environment[name] == "a=b c")
        #expect(environment["PATH"] == getenv("PATH").map { String(cString: $0) })
        #expect(environment == ProcessInfo.processInfo.environment)
    }

    @Test func anEmptyValueIsKept() {
        let name = "ALERTD_ENV_EMPTY_\(getpid())"
        setenv(name, "", 1)
        defer { unsetenv(name) }
        #expect(CurrentProcess.environment[name] == "")
    }
}
