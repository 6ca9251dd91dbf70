import NIOCore
import NIOHTTPTypes

/// Counts a connection's answers being written into the server's gauges, in the channel pipeline
/// after HTTP decoding (Hummingbird's `additionalChannelHandlers`): writing from the answer's head
/// until its end has been written to the socket. A connection that closes first takes its answers
/// out of the gauge with it. (In flight is counted by the route, which runs to its end even when its
/// client has gone: a request whose client left still holds its memory.)
final class StageCountingHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let gauges: StageGauges
    /// This connection's answers being written (event-loop state).
    private var writing = 0

    init(gauges: StageGauges) { self.gauges = gauges }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.kind != .informational:
            writing += 1
            gauges.enter(.writing)
            context.write(data, promise: promise)
        case .end:
            let written = promise ?? context.eventLoop.makePromise()
            written.futureResult.whenComplete { _ in self.written() }
            context.write(data, promise: written)
        default:
            context.write(data, promise: promise)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        while writing > 0 { written() }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        while writing > 0 { written() }
    }

    private func written() {
        guard writing > 0 else { return }
        writing -= 1
        gauges.leave(.writing)
    }
}
