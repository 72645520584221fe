import Foundation

/// A 64-bit FNV-1a hash that is the same in every process (Swift's `Hasher` is seeded per run).
package struct StableHash {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    package mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
    }

    /// Adds a string and a separator, so that ("ab", "c") and ("a", "bc") differ.
    package mutating func add(_ text: String) {
        add(text.utf8)
        add(CollectionOfOne(0))
    }

    package mutating func add(_ number: Int) { add(String(number)) }

    /// The hash as 16 hex digits.
    package var hex: String { String(format: "%016llx", value) }
}
