extension String {
    /// FNV-1a, 64 bits, of the text's UTF-8: a fingerprint that is the same on every machine and
    /// in every run (Swift's `hashValue` is seeded per process). Not for security.
    public var fnv1a64: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
