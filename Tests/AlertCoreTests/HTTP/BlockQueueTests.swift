import Foundation
import Testing
@testable import AlertdHTTPServer

/// A slow reader's bytes, kept in blocks of one size: read back in order
/// whatever the sizes written and read, and held in no more blocks than
/// the unread bytes need.
@Suite struct BlockQueueTests {
    @Test func bytesComeBackInOrderWhateverTheSizes() {
        var random = SplitMix(seed: 3)
        var queue = BlockQueue()
        var expected: [UInt8] = []
        var next: UInt8 = 0
        var out = [UInt8](repeating: 0, count: 70_000)
        for _ in 0..<2_000 {
            if Bool.random(using: &random) {
                let size = [1, 7, 16_383, 16_384, 16_385, 40_000][Int.random(in: 0..<6, using: &random)]
                let chunk = (0..<size).map { _ in next &+= 1; return next }
                queue.append(Data(chunk))
                expected += chunk
            } else {
                let max = [1, 100, 16_384, 70_000][Int.random(in: 0..<4, using: &random)]
                let n = out.withUnsafeMutableBytes { queue.read(into: $0.baseAddress!, max: max) }
                #expect(n == min(max, expected.count))
                #expect(Array(out[..<n]) == Array(expected[..<n]))
                expected.removeFirst(n)
            }
            #expect(queue.count == expected.count)
            // Whole blocks for what is unread, and one more at most for the one being read.
            #expect(queue.held <= (expected.count / BlockQueue.blockSize + 2) * BlockQueue.blockSize)
        }
        queue.removeAll()
        #expect(queue.isEmpty && queue.held == 0)
    }
}
