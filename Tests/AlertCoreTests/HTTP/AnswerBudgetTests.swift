import Foundation
import Testing
@testable import AlertdHTTP
@testable import AlertdHTTPServer

/// Answers waiting for clients that do not read them hold memory until the
/// exchange ends; together they stay within the server's budget, while
/// small answers always go out.
@Suite struct AnswerBudgetTests {
    @Test func oneAnswerAlwaysFitsAndTogetherTheyStayWithinTheLimit() {
        let budget = AnswerBudget(limit: 10)
        #expect(budget.reserve(25), "alone, an answer larger than the budget still goes out")
        #expect(!budget.reserve(1))
        budget.release(25)
        #expect(budget.reserve(6))
        #expect(budget.reserve(4))
        #expect(!budget.reserve(1))
        budget.release(6)
        budget.release(4)
        #expect(budget.heldBytes == 0)
    }

    /// 100 readers that never read a 73 MB page took the daemon to 7.5 GB.
    @Test func answersHeldForSlowReadersAreBoundedAndGivenBackWhenTheyGo() async throws {
        let budget = AnswerBudget(limit: 8 << 20)
        let big = Data(repeating: UInt8(ascii: "x"), count: 5 << 20)
        let (server, _) = try startLoopbackServer(answerBudget: budget) { request in
            request.path == "/big" ? HTTPResponse(body: big) : HTTPResponse(body: Data("small".utf8))
        }
        let port = try #require(server.port)
        let get = { (path: String) in "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }

        // A reader with a tiny window takes a few kB and then nothing.
        let slow = try RawSocket(port: port, receiveBuffer: 4096)
        slow.send(get("/big"))
        #expect(await eventually { budget.heldBytes == big.count })

        let refused = try RawSocket(port: port)
        refused.send(get("/big"))
        let answer = await refused.read { $0.contains("}}") }
        #expect(answer.hasPrefix("HTTP/1.1 503") && answer.contains("\"server_busy\""), "\(answer.prefix(300))")
        #expect(answer.contains("8 MB"), "\(answer.prefix(300))")

        let small = try RawSocket(port: port)
        small.send(get("/small"))
        #expect(await small.read { $0.hasSuffix("small") }.hasPrefix("HTTP/1.1 200"))

        // The slow reader goes: its answer's share comes back, and a page goes out again.
        withExtendedLifetime(slow) {}
        _ = consume slow
        #expect(await eventually { budget.heldBytes == 0 })
        let again = try RawSocket(port: port)
        again.send(get("/big"))
        let full = await again.read { $0.utf8.count >= big.count }
        #expect(full.hasPrefix("HTTP/1.1 200"))
        #expect(await eventually { budget.heldBytes == 0 })
        await server.stop()
    }
}
