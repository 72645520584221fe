import CVision

/// Options of image retrieval: the vocabulary tree trained on the capture and the Hamming
/// embedding that scores shared words.
public struct RetrievalOptions: Sendable, Equatable {
    /// Children of every node of the vocabulary tree. Default 6 (4 to 16 retrieve alike, and a
    /// narrow tree trains faster; docs/benchmarks.md).
    public var branching = 6
    /// Levels below the root at most (6^8 words: never the limit). Default 8.
    public var maxDepth = 8
    /// The tree gets one word per this many of the capture's descriptors. Default 128, as
    /// Hamming embedding's literature (about 150 per word): Hamming signatures tell a word's
    /// descriptors apart, so a small vocabulary does, and a larger one retrieves no better
    /// (docs/benchmarks.md).
    public var descriptorsPerWord = 128
    /// A node trained on fewer descriptors is not split, so that each word's medians (its
    /// Hamming embedding) rest on enough samples. Default 32.
    public var minNodeSize = 32
    /// Training sample, spread evenly over the images. Default 250,000: the vocabulary of 1,000
    /// frames of 1,300 features (10,000 words, 25 samples each) trains in 7 s.
    public var maxTrainingDescriptors = 250_000
    /// k-means iterations per node. Default 10.
    public var kmeansIterations = 10
    /// Signatures (64 bits) further apart than this do not vote. Default 24 (COLMAP's).
    public var maxHammingDistance = 24
    /// Vote weight exp(-h² / sigma²) of a Hamming distance h. Default 16 (COLMAP's).
    public var hammingSigma: Float = 16
    /// Seed of k-means seeding and of the projection. Default 0.
    public var seed: UInt64 = 0

    public init() {}

    /// Throws ``CVisionError/Code/invalidArgument`` when a value is out of range.
    public func validate() throws {
        guard branching >= 2, maxDepth >= 1, descriptorsPerWord >= 1, minNodeSize >= 1, maxTrainingDescriptors >= 1, kmeansIterations >= 1,
              (0...64).contains(maxHammingDistance), hammingSigma > 0 else {
            throw CVisionError(code: .invalidArgument, message: "RetrievalOptions: a value is out of range")
        }
    }

    func cOptions(threads: Int) -> cvis_retrieval_options {
        var options = cvis_retrieval_options()
        cvis_retrieval_options_default(&options)
        options.branching = Int32(branching)
        options.max_depth = Int32(maxDepth)
        options.descriptors_per_word = Int32(clamping: descriptorsPerWord)
        options.min_node_size = Int32(clamping: minNodeSize)
        options.max_training_descriptors = Int32(clamping: maxTrainingDescriptors)
        options.kmeans_iterations = Int32(kmeansIterations)
        options.max_hamming_distance = Int32(maxHammingDistance)
        options.hamming_sigma = hammingSigma
        options.seed = seed
        options.num_threads = Int32(max(1, threads))
        return options
    }
}

/// The images of one capture indexed by visual words, to find which look most alike.
///
/// Built once per capture (the vocabulary is trained on the capture's own descriptors);
/// immutable afterwards.
public final class ImageRetrieval: @unchecked Sendable {
    /// One retrieved image: its index and its similarity (normalised, comparable across queries).
    public struct Neighbour: Sendable, Equatable {
        public var image: Int
        public var score: Float
    }

    package let handle: OpaquePointer

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit { cvis_retrieval_destroy(handle) }

    /// Trains a vocabulary on the images' descriptors and indexes every image (image i = `features[i]`).
    public convenience init(features: [FeatureSet], options: RetrievalOptions = RetrievalOptions(), threads: Int = 1) throws {
        try options.validate()
        var cOptions = options.cOptions(threads: threads)
        var handle: OpaquePointer?
        let handles: [OpaquePointer?] = features.map { $0.handle }
        try withExtendedLifetime(features) {
            try handles.withUnsafeBufferPointer { buffer in
                try check(cvis_retrieval_build(buffer.baseAddress, Int32(features.count), &cOptions, &handle))
            }
        }
        self.init(handle: handle!)
    }

    /// The same from descriptors in memory: per image, rows of 128 floats of unit length, concatenated.
    public convenience init(descriptors: [[Float]], options: RetrievalOptions = RetrievalOptions(), threads: Int = 1) throws {
        try options.validate()
        precondition(descriptors.allSatisfy { $0.count % 128 == 0 }, "descriptors come in rows of 128 floats")
        var cOptions = options.cOptions(threads: threads)
        let counts = descriptors.map { Int32($0.count / 128) }
        let flat = descriptors.flatMap { $0 }
        var handle: OpaquePointer?
        try flat.withUnsafeBufferPointer { rows in
            try check(cvis_retrieval_build_from_descriptors(rows.baseAddress, counts, Int32(counts.count), &cOptions, &handle))
        }
        self.init(handle: handle!)
    }

    /// Number of indexed images.
    public var numImages: Int { Int(cvis_retrieval_num_images(handle)) }

    /// Number of words of the trained vocabulary.
    public var numWords: Int { Int(cvis_retrieval_num_words(handle)) }

    /// For every image, its `count` most similar other images, most similar first (fewer when
    /// fewer share any word with it).
    public func nearestNeighbours(count: Int) throws -> [[Neighbour]] {
        let n = numImages
        guard n > 0, count > 0 else { return Array(repeating: [], count: n) }
        var images = [Int32](repeating: -1, count: n * count)
        var scores = [Float](repeating: 0, count: n * count)
        try check(cvis_retrieval_query(handle, Int32(count), &images, &scores))
        return (0..<n).map { q in
            (0..<count).compactMap { k in
                let image = images[q * count + k]
                return image < 0 ? nil : Neighbour(image: Int(image), score: scores[q * count + k])
            }
        }
    }
}
