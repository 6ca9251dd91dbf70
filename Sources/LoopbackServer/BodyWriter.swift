import NIOCore
import NIOHTTP1

/// Writes one response body onto the channel: in pieces, only while the channel is
/// writable, and (when throttled) no faster than the bandwidth. The pieces are slices of
/// the resource's ByteBuffer, so the body is never copied. Lives on the event loop.
final class BodyWriter {
    private let context: ChannelHandlerContext
    private var remaining: ByteBuffer
    private let pieceSize: Int
    private let throttle: Throttle?
    private let onBytesWritten: (Int) -> Void
    private var onDone: ((EventLoopFuture<Void>) -> Void)?
    private var lastWrite: EventLoopFuture<Void>
    private var sent = 0
    private var waitingForWritability = false
    private var timer: Scheduled<Void>?

    /// - Parameters:
    ///   - afterWrite: the write the body follows (the response head); passed on to `onDone`
    ///     when the body is empty.
    ///   - onDone: called once with the last write's future, after every piece is queued.
    init(
        context: ChannelHandlerContext,
        body: ByteBuffer,
        inPieces: Bool,
        bandwidthBytesPerSecond: Int?,
        afterWrite: EventLoopFuture<Void>,
        onBytesWritten: @escaping (Int) -> Void,
        onDone: @escaping (EventLoopFuture<Void>) -> Void
    ) {
        self.context = context
        self.remaining = body
        self.throttle = bandwidthBytesPerSecond.map { Throttle(bytesPerSecond: $0) }
        // Unthrottled, a whole body is one write: NIO keeps the ByteBuffer (not a copy) and
        // drains it as the socket allows. Pieces are only needed for pacing or chunking.
        self.pieceSize = throttle?.pieceSize ?? (inPieces ? 64 * 1024 : Int.max)
        self.lastWrite = afterWrite
        self.onBytesWritten = onBytesWritten
        self.onDone = onDone
    }

    func start() { pump() }

    /// Called by the handler when the channel's writability changes.
    func writabilityChanged() {
        guard waitingForWritability, context.channel.isWritable else { return }
        waitingForWritability = false
        pump()
    }

    /// Stops for good (the connection went away): no more writes, no `onDone`.
    func cancel() {
        timer?.cancel()
        timer = nil
        onDone = nil
        remaining.clear()
    }

    private func pump() {
        timer = nil
        while remaining.readableBytes > 0 {
            guard onDone != nil else { return }  // cancelled
            guard context.channel.isWritable else {
                // Over the high-water mark: resume from channelWritabilityChanged.
                waitingForWritability = true
                return
            }
            let length = min(pieceSize, remaining.readableBytes)
            if let throttle {
                let due = throttle.deadline(forBytesSent: sent + length)
                if due > .now() {
                    timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) { self.pump() }
                    return
                }
            }
            let piece = remaining.readSlice(length: length)!
            sent += length
            onBytesWritten(length)
            lastWrite = context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(piece))))
        }
        if let onDone {
            self.onDone = nil
            onDone(lastWrite)
        }
    }
}
