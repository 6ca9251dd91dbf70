import NIOCore

/// Answers a connection over the server's cap with a bare 503 and closes it, without the
/// HTTP pipeline: the client learns why at once instead of hanging, and the server keeps
/// its descriptors for the connections it serves.
final class RefuseConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let response =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
        + "Content-Length: 25\r\nConnection: close\r\n\r\ntoo many open connections"

    private var answered = false

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { answer(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        answer(context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}  // whatever it sends is ignored

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    private func answer(context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: Self.response))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
