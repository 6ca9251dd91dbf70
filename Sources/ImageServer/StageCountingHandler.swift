import NIOCore
import NIOHTTPTypes

/// Counts a connection's requests into the server's gauges, in the channel pipeline after HTTP
/// decoding (Hummingbird's `additionalChannelHandlers`): a request is in flight from its head's
/// arrival until its answer's end has been written to the socket, and writing from the answer's
/// head until then. A connection that closes first takes its requests out of the gauges with it.
final class StageCountingHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let gauges: StageGauges
    /// This connection's requests in flight and answers being written (event-loop state).
    private var inFlight = 0
    private var writing = 0

    init(gauges: StageGauges) { self.gauges = gauges }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            inFlight += 1
            gauges.enter(.inFlight)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.kind != .informational:
            writing += 1
            gauges.enter(.writing)
            context.write(data, promise: promise)
        case .end:
            let written = promise ?? context.eventLoop.makePromise()
            written.futureResult.whenComplete { _ in self.answered() }
            context.write(data, promise: written)
        default:
            context.write(data, promise: promise)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        leaveAll()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        leaveAll()
    }

    private func answered() {
        if writing > 0 {
            writing -= 1
            gauges.leave(.writing)
        }
        if inFlight > 0 {
            inFlight -= 1
            gauges.leave(.inFlight)
        }
    }

    private func leaveAll() {
        while writing > 0 || inFlight > 0 { answered() }
    }
}
