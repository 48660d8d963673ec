import Foundation
import Testing
@testable import AlertdHTTP
@testable import AlertdHTTPServer

/// Answers waiting for clients that do not read them, and bodies still
/// coming in, hold memory until the exchange ends; together they stay
/// within the server's budgets, while small answers always go out.
@Suite struct MemoryBudgetTests {
    @Test func oneAnswerAlwaysFitsAndTogetherTheyStayWithinTheLimit() {
        let budget = MemoryBudget(limit: 10)
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
        let budget = MemoryBudget(limit: 8 << 20)
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

    /// Each server keeps its own budget for bodies: a client of a TCP
    /// listener without a token holding it refused the Unix socket's posts.
    @Test func eachServerHasABudgetForBodiesOfItsOwn() {
        #expect(HTTPServerConfiguration().bodyBudget !== HTTPServerConfiguration().bodyBudget)
        #expect(HTTPServerConfiguration().answerBudget === HTTPServerConfiguration().answerBudget)
    }

    /// A thousand uploads of a megabyte, each held a byte short, took the
    /// daemon to 1.4 GB: past the budget a body is read and dropped, and
    /// its sender told 503 `server_busy` once it is in.
    @Test func bodiesStillComingInAreBoundedAndGivenBackWhenTheyEnd() async throws {
        let budget = MemoryBudget(limit: 1 << 20)
        let (server, _) = try startLoopbackServer(configure: { $0.bodyBudget = budget }) { request in
            .text("\(request.body.count)")
        }
        let port = try #require(server.port)
        let size = 700 << 10
        let head = "POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(size)\r\n\r\n"

        // An upload held short of its end keeps what it sent.
        let held = try RawSocket(port: port)
        held.send(head)
        held.send(bytes: [UInt8](repeating: 65, count: size - 1))
        #expect(await eventually { budget.heldBytes == size - 1 })

        let refused = try RawSocket(port: port)
        refused.send(head + String(repeating: "B", count: size))
        let answer = await refused.read { $0.contains("}}") }
        #expect(answer.hasPrefix("HTTP/1.1 503") && answer.contains("\"server_busy\"") && answer.contains("1 MB"), "\(answer.prefix(300))")
        #expect(budget.heldBytes == size - 1, "the refused body holds nothing")

        // The held upload ends: it is served, and its share comes back.
        held.send("A")
        #expect(await held.read { $0.hasSuffix("\(size)") }.hasPrefix("HTTP/1.1 200"))
        #expect(await eventually { budget.heldBytes == 0 })
        let again = try RawSocket(port: port)
        again.send(head + String(repeating: "C", count: size))
        #expect(await again.read { $0.hasSuffix("\(size)") }.hasPrefix("HTTP/1.1 200"))
        #expect(await eventually { budget.heldBytes == 0 })
        await server.stop()
    }
}
