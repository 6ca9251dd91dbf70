import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ends a connection with RST instead of FIN, after the client has received the bytes.
///
/// SO_LINGER on with a zero timeout makes close() send RST, but it also discards whatever
/// is still in the kernel's send queue. A written byte is not yet a delivered byte (the
/// client's receive window holds ~128 KiB), so on Linux we first wait, polling TCP_INFO,
/// until no sent segment is unacknowledged; then the client really sees "N bytes, then
/// reset". Best effort: Glibc's tcp_info has no `notsent_bytes`, so bytes held back by a
/// zero window (a client that stopped reading) can still be dropped, as with a real RST.
enum ConnectionReset {
    /// Upper bound on waiting for a client that stopped reading: 2 ms x 1500 = 3 s.
    private static let pollInterval = TimeAmount.milliseconds(2)
    private static let maxPolls = 1500

    static func start(context: ChannelHandlerContext) {
        guard let provider = context.channel as? SocketOptionProvider else {
            context.close(promise: nil)
            return
        }
        waitUntilAcknowledged(context: context, provider: provider, pollsLeft: maxPolls)
    }

    private static func waitUntilAcknowledged(
        context: ChannelHandlerContext,
        provider: SocketOptionProvider,
        pollsLeft: Int
    ) {
        #if os(Linux)
        provider.getTCPInfo().assumeIsolated().whenComplete { result in
            guard pollsLeft > 0, context.channel.isActive, case .success(let info) = result,
                info.tcpi_unacked > 0
            else {
                return reset(context: context, provider: provider)
            }
            context.eventLoop.assumeIsolated().scheduleTask(in: pollInterval) {
                waitUntilAcknowledged(context: context, provider: provider, pollsLeft: pollsLeft - 1)
            }
        }
        #else
        reset(context: context, provider: provider)
        #endif
    }

    private static func reset(context: ChannelHandlerContext, provider: SocketOptionProvider) {
        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
