import Foundation

/// Runs `body(i)` for every `i` in `0..<count` on `threads` threads, handing out indices in order.
///
/// Work items finish out of order; callers store results by index so the outcome is the same
/// for any thread count (determinism).
package func parallelFor(_ count: Int, threads: Int, _ body: (Int) -> Void) {
    guard count > 0 else { return }
    let workers = max(1, min(threads, count))
    if workers == 1 {
        for i in 0..<count { body(i) }
        return
    }
    let lock = NSLock()
    var next = 0
    withoutActuallyEscaping(body) { body in
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                lock.lock()
                let i = next
                next += 1
                lock.unlock()
                if i >= count { return }
                body(i)
            }
        }
    }
}

/// A fixed-size array that several threads fill at distinct indices.
package final class ResultSlots<T>: @unchecked Sendable {
    private var storage: [T?]
    private let lock = NSLock()

    package init(count: Int) { storage = Array(repeating: nil, count: count) }

    package subscript(i: Int) -> T? {
        get { lock.lock(); defer { lock.unlock() }; return storage[i] }
        set { lock.lock(); storage[i] = newValue; lock.unlock() }
    }

    package var values: [T?] { lock.lock(); defer { lock.unlock() }; return storage }
}

/// Counts finished work items from several threads and tells a progress sink; remembers a cancel.
package final class ProgressCounter: @unchecked Sendable {
    package let stage: String
    package let total: Int
    private let sink: ProgressSink?
    private let lock = NSLock()
    private var done = 0
    private var cancelled = false

    package init(stage: String, total: Int, sink: ProgressSink?) {
        self.stage = stage
        self.total = total
        self.sink = sink
    }

    /// One more item is done.
    package func step() {
        lock.lock()
        done += 1
        let count = done
        lock.unlock()
        if sink?.update(stage: stage, done: count, total: total) == false {
            lock.lock()
            cancelled = true
            lock.unlock()
        }
    }

    /// Throws ``PipelineError/cancelled`` when the sink asked to stop.
    package func checkCancelled() throws {
        lock.lock()
        defer { lock.unlock() }
        if cancelled { throw PipelineError.cancelled }
    }
}

/// The first error any worker of a parallel loop met, to stop the others and rethrow after it.
package final class FirstError: @unchecked Sendable {
    private let lock = NSLock()
    private var error: Error?

    package init() {}

    /// Keeps `error` unless one is kept already.
    package func set(_ error: Error) {
        lock.lock()
        if self.error == nil { self.error = error }
        lock.unlock()
    }

    /// Whether an error is kept.
    package var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return error != nil
    }

    /// Throws the kept error, if any.
    package func rethrow() throws {
        lock.lock()
        let error = self.error
        lock.unlock()
        if let error { throw error }
    }
}
