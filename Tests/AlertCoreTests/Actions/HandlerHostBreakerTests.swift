import Foundation
import Testing
@testable import AlertModel
@testable import AlertdCurl
@testable import AlertdDelivery

/// Handler hosts that stop answering are not called until their wait is
/// over, so they cannot hold every handler call's slot, retry after retry.
@Suite struct HandlerHostBreakerTests {
    func cancelled(calling url: String) throws -> Alert {
        var alert = Alert(spec: try AlertSpec.Builder().title("Deploy?").cancel("Abort", handler: url).build().get())
        alert.state = .cancelled
        alert.decision = AlertDecision(outcome: .cancelled, actor: "uid:0")
        return alert
    }

    /// A tarpit (connections taken, never answered): three calls wait out
    /// the timeout, then the host's calls are not made (nor counted as
    /// attempts) until the wait is over, when one call tries it again.
    /// Another host is called all along.
    @Test func aHostThatStopsAnsweringIsNotCalledUntilItsWaitIsOver() async throws {
        let tarpit = try SilentListener()
        let answering = try WebhookReceiver()
        let (policy, problems) = HandlerURLPolicy.parse(["127.0.0.0/8"])
        try #require(problems.isEmpty, "\(problems)")
        let breaker = HandlerHostBreaker(openFor: .seconds(2))
        let presenter = ActionHandlerPresenter(action: .cancel, policy: policy, signer: nil, client: HTTPClient(),
                                               connectTimeout: .milliseconds(300), timeout: .milliseconds(300), breaker: breaker)
        let stuck = try cancelled(calling: "http://127.0.0.1:\(tarpit.port)/cancel")
        let clock = ContinuousClock()
        for _ in 0..<HandlerHostBreaker.tripAfter {
            guard case .retryableFailure = await presenter.present(stuck, delivery: .init(deliveryID: "d1")) else {
                Issue.record("a call without an answer should be retried")
                return
            }
        }
        let start = clock.now
        let held = await presenter.present(stuck, delivery: .init(deliveryID: "d1"))
        #expect(clock.now - start < .milliseconds(100))
        guard case .notSent(let reason, let after) = held else {
            Issue.record("expected a call not made, retried at the end of the wait, got \(held)")
            return
        }
        #expect(reason.contains("did not answer the last 3 calls"), "\(reason)")
        #expect(after <= .seconds(2) && after > .seconds(1))
        // Another host is not held up.
        #expect(await presenter.present(try cancelled(calling: answering.url + "/cancel"), delivery: .init(deliveryID: "d2")) == .delivered)
        // The wait over, one call tries the host again: one more timeout, and it is held again.
        try await Task.sleep(for: .milliseconds(2_100))
        let tried = clock.now
        _ = await presenter.present(stuck, delivery: .init(deliveryID: "d1"))
        #expect(clock.now - tried >= .milliseconds(250))
        let again = clock.now
        _ = await presenter.present(stuck, delivery: .init(deliveryID: "d1"))
        #expect(clock.now - again < .milliseconds(100))
        await answering.stop()
    }

    /// An answer of any status closes the breaker.
    @Test func anAnswerClosesIt() {
        let breaker = HandlerHostBreaker(openFor: .seconds(60))
        for _ in 0..<HandlerHostBreaker.tripAfter { breaker.record("http://h", url: "http://h/hook", answered: false) }
        #expect(breaker.admit("http://h", url: "http://h/hook", probeTakesAtMost: .seconds(10)) != nil)
        #expect(breaker.admit("http://other", url: "http://other/hook", probeTakesAtMost: .seconds(10)) == nil)
        breaker.record("http://h", url: "http://h/hook", answered: true)
        #expect(breaker.admit("http://h", url: "http://h/hook", probeTakesAtMost: .seconds(10)) == nil)
        // A refusal here says nothing of the host.
        breaker.record("http://h", url: "http://h/hook", answered: nil)
        #expect(breaker.admit("http://h", url: "http://h/hook", probeTakesAtMost: .seconds(10)) == nil)
    }

    /// After the wait, the call that tries the host is one to a URL that
    /// has not gone unanswered itself, if one is waiting: a handler that
    /// hangs had tried the host again wait after wait, and kept the host's
    /// other handlers waiting until its delivery died. Should no other call
    /// come in the time a try takes, the silent URL's may try.
    @Test func theCallThatTriesAgainIsOneToAURLThatDidNotHang() {
        let breaker = HandlerHostBreaker(openFor: .seconds(30))
        let start = ContinuousClock.now
        for _ in 0..<HandlerHostBreaker.tripAfter { breaker.record("http://h", url: "http://h/hang", answered: false, now: start) }
        #expect(breaker.admit("http://h", url: "http://h/ok", probeTakesAtMost: .seconds(10), now: start + .seconds(5)) == .seconds(25))
        let over = start + .seconds(30)
        #expect(breaker.admit("http://h", url: "http://h/hang", probeTakesAtMost: .seconds(10), now: over) == .seconds(10), "leaves the try to /ok")
        #expect(breaker.admit("http://h", url: "http://h/ok", probeTakesAtMost: .seconds(10), now: over + .seconds(1)) == nil, "the one that tries")
        #expect(breaker.admit("http://h", url: "http://h/hang", probeTakesAtMost: .seconds(10), now: over + .seconds(2)) == .seconds(10))
        breaker.record("http://h", url: "http://h/ok", answered: true, now: over + .seconds(2))
        #expect(breaker.admit("http://h", url: "http://h/hang", probeTakesAtMost: .seconds(10), now: over + .seconds(3)) == nil)

        // Alone, the silent URL tries once the wait is over; held back for another that never comes, a try's time later.
        let alone = HandlerHostBreaker(openFor: .seconds(30))
        for _ in 0..<HandlerHostBreaker.tripAfter { alone.record("http://h", url: "http://h/hang", answered: false, now: start) }
        #expect(alone.admit("http://h", url: "http://h/hang", probeTakesAtMost: .seconds(10), now: over) == nil)
        let waited = HandlerHostBreaker(openFor: .seconds(30))
        for _ in 0..<HandlerHostBreaker.tripAfter { waited.record("http://h", url: "http://h/hang", answered: false, now: start) }
        _ = waited.admit("http://h", url: "http://h/ok", probeTakesAtMost: .seconds(10), now: start + .seconds(5))
        #expect(waited.admit("http://h", url: "http://h/hang", probeTakesAtMost: .seconds(10), now: over + .seconds(4)) == .seconds(6))
        #expect(waited.admit("http://h", url: "http://h/hang", probeTakesAtMost: .seconds(10), now: over + .seconds(10)) == nil)
    }

    /// While one call tries the host again, the others wait as long as it
    /// may take, not a whole new wait: they had gone 30 s past an answer
    /// that came at once.
    @Test func callsWaitingOnTheOneThatTriesWaitOnlyAsLongAsItMayTake() {
        let breaker = HandlerHostBreaker(openFor: .seconds(30))
        let start = ContinuousClock.now
        for _ in 0..<HandlerHostBreaker.tripAfter { breaker.record("http://h", url: "http://h/hook", answered: false, now: start) }
        let over = start + .seconds(31)
        #expect(breaker.admit("http://h", url: "http://h/hook", probeTakesAtMost: .seconds(10), now: over) == nil, "the one that tries")
        #expect(breaker.admit("http://h", url: "http://h/hook", probeTakesAtMost: .seconds(10), now: over) == .seconds(10))
        breaker.record("http://h", url: "http://h/hook", answered: true, now: over + .seconds(1))
        #expect(breaker.admit("http://h", url: "http://h/hook", probeTakesAtMost: .seconds(10), now: over + .seconds(2)) == nil)
    }
}
