import NIOCore
import NIOHTTP1

/// One per connection, after NIO's HTTP/1.1 server pipeline (which also holds back
/// pipelined requests until the current response has ended). Counts the request, asks the
/// router for a plan and writes it: head, body, then end / close / reset.
final class HTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let state: ServerState
    private let bandwidthBytesPerSecond: Int?
    private var request: HTTPRequestHead?
    private var bodyWriter: BodyWriter?
    private var delayedStart: Scheduled<Void>?

    init(state: ServerState, bandwidthBytesPerSecond: Int?) {
        self.state = state
        self.bandwidthBytesPerSecond = bandwidthBytesPerSecond
    }

    func channelActive(context: ChannelHandlerContext) {
        state.recordConnection()
        context.fireChannelActive()
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
            respond(context: context, plan: Router(state: state).plan(for: head))
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
            if plan.closeAfterResponse {
                ended.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            }
        case .truncate:
            // Close only once the bytes are in the kernel: closing earlier would drop them.
            lastWrite.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        case .reset:
            lastWrite.assumeIsolated().whenComplete { _ in ConnectionReset.start(context: context) }
        }
    }
}
