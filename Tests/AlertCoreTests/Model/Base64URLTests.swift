import Foundation
import Testing
import AlertModel

/// RFC 4648's base64url, unpadded: its test vectors, and every length up
/// to a few blocks against Foundation's base64 with the URL alphabet's two
/// characters swapped in and the padding cut.
@Suite struct Base64URLTests {
    @Test func rfc4648Vectors() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (input, output) in vectors { #expect(Base64URL.encode(Array(input.utf8)) == output, "\(input)") }
    }

    @Test func matchesFoundationsBase64WithTheURLAlphabet() {
        var generator = SystemRandomNumberGenerator()
        for count in 0...70 {
            // 0xfb and 0xff make both `+` and `/` come up in the standard alphabet.
            let bytes = [UInt8](repeating: 0xfb, count: count / 2) + (0..<(count - count / 2)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected, "\(bytes)")
        }
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
    }
}
