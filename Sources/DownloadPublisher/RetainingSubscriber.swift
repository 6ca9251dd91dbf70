import Foundation
import OpenCombine
import Synchronization

/// The article's subscriber: it holds its subscription strongly (so nothing else needs to keep
/// the pipeline alive), asks for exactly one value, and releases the subscription on completion.
/// `cancel()` cancels the subscription, and so the task behind it.
/// Completion arrives on the session's queue while `cancel()` may come from any thread: a lock guards
/// the subscription (a `Mutex` that holds no value: a `Subscription` is not Sendable, so it cannot be one).
package final class RetainingSubscriber<Input, Failure: Error>: Subscriber, Cancellable {
    private let lock = Mutex(())
    private let receiveValue: (Input) -> Void
    private let receiveCompletion: (Subscribers.Completion<Failure>) -> Void
    private var subscription: Subscription?
    private let demand: Subscribers.Demand

    package init(
        demand: Subscribers.Demand = .max(1),
        receiveValue: @escaping (Input) -> Void,
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void
    ) {
        self.demand = demand
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
    }

    package func receive(subscription: Subscription) {
        lock.withLock { _ in self.subscription = subscription }
        if demand > .none { subscription.request(demand) }
    }

    package func receive(_ input: Input) -> Subscribers.Demand {
        receiveValue(input)
        return .none
    }

    package func receive(completion: Subscribers.Completion<Failure>) {
        // Let go first (the subscription, and the task it owned, can go now), then tell: whoever
        // is told of the completion must find the subscriber already unsubscribed.
        lock.withLock { _ in subscription = nil }
        receiveCompletion(completion)
    }

    /// Asks for more values; used when the subscriber was made with demand `.none`.
    package func request(_ demand: Subscribers.Demand) {
        var current: Subscription?
        lock.withLock { _ in current = subscription }
        current?.request(demand)
    }

    package func cancel() {
        var current: Subscription?
        lock.withLock { _ in
            current = subscription
            subscription = nil
        }
        current?.cancel()
    }

    /// Whether the subscriber still holds a subscription (false after completion or cancel).
    package var isSubscribed: Bool { lock.withLock { _ in subscription != nil } }
}
