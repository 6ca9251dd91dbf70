import Foundation
import Strategies
import Testing

/// curl-memory's buffer: the bytes come out as appended, whether it grew or was reserved.
@Suite struct GrowingBufferTests {
    static let chunks: [Data] = (0..<40).map { index in
        Data((0..<(16_384 - index)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) })
    }

    func fill(_ buffer: GrowingBuffer) -> Data {
        for chunk in Self.chunks {
            #expect(chunk.withUnsafeBytes { buffer.append($0) })
        }
        return buffer.takeData()
    }

    @Test func growingKeepsEveryByteInOrder() {
        #expect(fill(GrowingBuffer()) == Self.chunks.reduce(Data(), +))
    }

    @Test func reservedBufferHoldsTheSameBytesAndStillGrowsPastTheReservation() {
        let total = Self.chunks.map(\.count).reduce(0, +)
        let exact = GrowingBuffer()
        exact.reserve(total)
        #expect(fill(exact) == Self.chunks.reduce(Data(), +))
        let tooSmall = GrowingBuffer()
        tooSmall.reserve(1000)
        #expect(fill(tooSmall) == Self.chunks.reduce(Data(), +))
    }

    @Test func emptyBufferIsEmptyData() {
        #expect(GrowingBuffer().takeData().isEmpty)
    }
}
