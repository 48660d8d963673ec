import Foundation
import Testing
@testable import AlertdCrypto
@testable import AlertdHTTP
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon

@Suite struct CryptoTests {
    @Test func hmacMatchesRFC4231TestCase2() {
        let mac = HMACSHA256.authenticate(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(mac.map { String(format: "%02x", $0) }.joined()
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func hmacAcceptsAnEmptyKeyAndMessage() {
        let mac = HMACSHA256.authenticate(key: [], message: [])
        #expect(mac.map { String(format: "%02x", $0) }.joined()
            == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func constantTimeEqualsComparesContentAndLength() {
        #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(constantTimeEquals([], []))
    }

    @Test func secureRandomGivesFreshBytes() {
        let a = SecureRandom.bytes(32)
        let b = SecureRandom.bytes(32)
        #expect(a.count == 32)
        #expect(a != b)
        #expect(SecureRandom.bytes(0).isEmpty)
    }
}
