import Foundation

extension Data {
    /// The bytes of `values` as they lie in memory: a compact, exact checkpoint field for arrays
    /// of plain numbers (a checkpoint is read back on the machine that wrote it).
    package init<T>(packing values: [T]) {
        self = values.withUnsafeBufferPointer { Data(buffer: $0) }
    }

    /// The array ``init(packing:)`` made.
    /// - Throws: ``PipelineError/io(_:)`` when the byte count is not a whole number of `T`.
    package func unpacked<T>(as type: T.Type) throws -> [T] {
        guard count % MemoryLayout<T>.stride == 0 else {
            throw PipelineError.io("checkpoint field of \(count) bytes is not an array of \(T.self)")
        }
        let n = count / MemoryLayout<T>.stride
        return [T](unsafeUninitializedCapacity: n) { buffer, initialized in
            _ = copyBytes(to: buffer)
            initialized = n
        }
    }
}
