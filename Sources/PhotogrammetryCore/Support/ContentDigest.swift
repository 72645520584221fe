import Foundation

/// A 64-bit digest of a file's bytes: what checkpoint keys say about an image or a mask.
///
/// Keys made from contents rather than modification times survive a copy, a `touch` and a
/// re-extracted zip (whose files all get new times), and still change with one changed byte.
/// FNV-1a over 8-byte words, with the length and a final avalanche (SplitMix64's finalizer):
/// about 1 GB/s, so hashing a capture costs far less than decoding it.
public enum ContentDigest {
    /// The digest of `url`'s bytes as 16 hex digits, or "missing" when it cannot be read.
    ///
    /// Memoised within the process by path, size, inode and modification time, so the stages
    /// that key on the same image hash it once; across processes only the bytes count.
    public static func file(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        var info = stat()
        guard stat(path, &info) == 0 else { return "missing" }
        let memoKey = "\(path)\u{0}\(info.st_size)\u{0}\(info.st_ino)\u{0}\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        if let known = memo.value(memoKey) { return known }
        guard let data = try? Data(contentsOf: url, options: .alwaysMapped) else { return "missing" }
        let digest = String(format: "%016llx", bytes(data))
        memo.set(memoKey, digest)
        return digest
    }

    /// The digest of `data`.
    public static func bytes(_ data: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let prime: UInt64 = 0x0000_0100_0000_01b3
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let words = raw.count / 8
            for i in 0..<words {
                hash ^= raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)
                hash &*= prime
            }
            for i in (words * 8)..<raw.count {
                hash ^= UInt64(raw[i])
                hash &*= prime
            }
        }
        hash ^= UInt64(data.count)
        // SplitMix64's finalizer: every input bit reaches every output bit.
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }

    /// Digests already taken in this process.
    private static let memo = Memo()

    /// A locked dictionary from a file's identity to its digest.
    private final class Memo: @unchecked Sendable {
        private var digests: [String: String] = [:]
        private let lock = NSLock()

        package func value(_ key: String) -> String? { lock.lock(); defer { lock.unlock() }; return digests[key] }
        package func set(_ key: String, _ digest: String) { lock.lock(); digests[key] = digest; lock.unlock() }
    }
}
