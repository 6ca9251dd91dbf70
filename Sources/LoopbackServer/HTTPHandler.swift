import NIOCore
import NIOHTTP1

/// One per connection, after NIO's HTTP/1.1 server pipeline (which also holds back
/// pipelined requests until the current response has ended). Counts the request, asks the
/// router for a plan and writes it: head, body, then end / close / reset.
///
/// A connection may not wait for its request forever: from accept (or the end of the
/// previous response) the whole request must arrive within `requestTimeout` (first
/// request) or `idleTimeout` (a kept-alive connection's next one), else it is closed.
/// Slowloris clients that trickle header bytes are closed like idle ones.
final class HTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let state: ServerState
    private let bandwidthBytesPerSecond: Int?
    private let requestTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private var request: HTTPRequestHead?
    private var bodyWriter: BodyWriter?
    private var delayedStart: Scheduled<Void>?
    private var waitingForRequest: Scheduled<Void>?
    /// From the request's end until the response's `.end` is written; stays true once a
    /// response is cut short (truncate, reset), because that connection is closing. NIO's
    /// pipelining handler releases queued requests when a channel closes: answering one then
    /// would write a head after an unterminated one, a precondition failure (the process dies).
    private var responding = false

    init(state: ServerState, bandwidthBytesPerSecond: Int?, requestTimeout: TimeAmount, idleTimeout: TimeAmount) {
        self.state = state
        self.bandwidthBytesPerSecond = bandwidthBytesPerSecond
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
    }

    func channelActive(context: ChannelHandlerContext) {
        awaitRequest(context: context, within: requestTimeout)
        context.fireChannelActive()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Added to an already active channel (the initializer runs after accept): arm here too.
        if context.channel.isActive { awaitRequest(context: context, within: requestTimeout) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            request = head
            state.recordRequest(path: Router.split(uri: head.uri).path)
        case .body:
            break  // request bodies are ignored
        case .end:
            guard let head = request else { return }
            request = nil
            guard !responding, context.channel.isActive else { return }
            responding = true
            waitingForRequest?.cancel()
            waitingForRequest = nil
            respond(context: context, plan: Router(state: state).plan(for: head))
        }
    }

    /// Closes the connection unless a whole request has arrived within `timeout`.
    private func awaitRequest(context: ChannelHandlerContext, within timeout: TimeAmount) {
        waitingForRequest?.cancel()
        let state = self.state
        waitingForRequest = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            self.waitingForRequest = nil
            guard self.bodyWriter == nil, self.delayedStart == nil else { return }
            state.recordTimeout()
            context.close(promise: nil)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        bodyWriter?.writabilityChanged()
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopWriting()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopWriting()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A client that goes away mid-body is routine here (faults, cancelled downloads).
        stopWriting()
        context.close(promise: nil)
    }

    private func stopWriting() {
        waitingForRequest?.cancel()
        waitingForRequest = nil
        delayedStart?.cancel()
        delayedStart = nil
        bodyWriter?.cancel()
        bodyWriter = nil
    }

    private func respond(context: ChannelHandlerContext, plan: ResponsePlan) {
        guard plan.delayBeforeHead > .zero else { return startResponse(context: context, plan: plan) }
        delayedStart = context.eventLoop.assumeIsolated().scheduleTask(in: plan.delayBeforeHead) {
            self.delayedStart = nil
            self.startResponse(context: context, plan: plan)
        }
    }

    private func startResponse(context: ChannelHandlerContext, plan: ResponsePlan) {
        let headWritten = context.writeAndFlush(wrapOutboundOut(.head(plan.head)))
        let state = self.state
        let writer = BodyWriter(
            context: context,
            body: plan.body,
            inPieces: plan.writeInPieces,
            bandwidthBytesPerSecond: bandwidthBytesPerSecond,
            afterWrite: headWritten,
            onBytesWritten: { state.recordBodyBytes($0) },
            onDone: { lastWrite in self.finish(context: context, plan: plan, lastWrite: lastWrite) }
        )
        bodyWriter = writer
        writer.start()
    }

    private func finish(context: ChannelHandlerContext, plan: ResponsePlan, lastWrite: EventLoopFuture<Void>) {
        bodyWriter = nil
        switch plan.ending {
        case .complete:
            let ended = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            responding = plan.closeAfterResponse  // a closing connection takes no further request
            if plan.closeAfterResponse {
                ended.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            } else if context.channel.isActive {
                awaitRequest(context: context, within: idleTimeout)
            }
        case .truncate:
            // Close only once the bytes are in the kernel: closing earlier would drop them.
            lastWrite.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        case .reset:
            lastWrite.assumeIsolated().whenComplete { _ in ConnectionReset.start(context: context) }
        }
    }
}
