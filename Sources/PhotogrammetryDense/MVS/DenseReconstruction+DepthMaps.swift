import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

extension DenseReconstruction {
    /// One reference image's PatchMatch inputs, in workspace indices.
    struct DepthJob {
        package var index: Int
        package var sources: [Int]
        package var depthRange: ClosedRange<Double>
        package var pointsInWorld: [SIMD3<Double>]
    }

    /// The depth maps made (by workspace index; nil where an image has none) and their entries.
    struct DepthMapFiles {
        var photometric: [URL?]
        /// The maps fusion reads: those of the last pass that ran (geometric, planar-prior or photometric).
        var fused: [URL?]
        var fusedEntries: [DenseManifest.Entry?]
        package var neighbours: [[Int]]
        /// The room's envelope the planar-prior pass used (six planes), or empty.
        var envelope: [WorldPlane]
        package var computed = 0
        package var reused = 0
    }

    /// The reference images that can have a depth map: those with sources and a depth range.
    func depthJobs(_ views: [PreparedView], plan: NeighbourViews, skipped: inout [RejectedImage]) -> [DepthJob] {
        let indexOf = Dictionary(uniqueKeysWithValues: views.enumerated().map { ($1.id, $0) })
        let plans = Dictionary(uniqueKeysWithValues: plan.views.map { ($0.imageID, $0) })
        var jobs: [DepthJob] = []
        for (index, view) in views.enumerated() {
            guard let plan = plans[view.id] else { continue }
            let sources = plan.sources.compactMap { indexOf[$0] }
            guard !sources.isEmpty else {
                skipped.append(RejectedImage(name: view.name, reason: "no other image shares enough sparse points with it at a useful angle"))
                continue
            }
            guard let range = plan.depthRange else {
                skipped.append(RejectedImage(name: view.name, reason: "no sparse point in front of it"))
                continue
            }
            jobs.append(DepthJob(index: index, sources: sources, depthRange: range, pointsInWorld: plan.pointsInWorld))
        }
        return jobs
    }

    /// Step 3: the photometric pass over every job, then the planar-prior pass when
    /// ``PatchMatchOptions/planarPriors`` asks for it, then the geometric pass when
    /// ``DenseOptions/geometricPass`` does; each depth map is reused when the manifest says it was
    /// made from the same inputs.
    func computeDepthMaps(_ jobs: [DepthJob], views: [PreparedView], workspace: MVSWorkspace, store: ManifestStore,
                          skipped: inout [RejectedImage]) throws -> DepthMapFiles {
        var patchMatch = options.patchMatch
        patchMatch.numThreads = max(1, patchMatch.numThreads / options.concurrentImages)
        var keyed = patchMatch
        keyed.numThreads = 0  // threads do not change a result the key should care about
        // The photometric pass ignores planar priors, so its maps are shared with runs without them.
        var photometricKeyed = keyed
        photometricKeyed.planarPriors = false
        let passes = 1 + (patchMatch.planarPriors ? 1 : 0) + (options.geometricPass ? 1 : 0)
        let counter = ProgressCounter(stage: "dense: depth maps", total: passes * jobs.count, sink: progress)
        let tally = Tally(count: views.count)

        let photometricEntries = jobs.map { job -> DenseManifest.Entry in
            var hash = StableHash()
            hash.add("photometric")
            hash.add(String(describing: photometricKeyed))
            hash.add(job.pointsInWorld.count)
            var values = [job.depthRange.lowerBound, job.depthRange.upperBound]
            for index in [job.index] + job.sources {
                hash.add(views[index].entry.key)
                values += views[index].entry.values + Self.poseValues(views[index].view)
            }
            return DenseManifest.Entry(key: hash.hex, values: values)
        }
        var photometricEntryOf = [DenseManifest.Entry?](repeating: nil, count: views.count)
        for (job, entry) in zip(jobs, photometricEntries) { photometricEntryOf[job.index] = entry }

        try runJobs(jobs.indices, counter: counter) { j in
            let job = jobs[j]
            let url = depthFolder.appendingPathComponent(views[job.index].flatName + ".photometric.cvdm")
            try produce(url, entry: photometricEntries[j], store: store, tally: tally) {
                let problem = PatchMatchProblem(reference: job.index, sources: job.sources, depthRange: job.depthRange,
                                                pointsInWorld: job.pointsInWorld)
                try workspace.computeDepthMap(problem, options: patchMatch, output: url)
            }
            tally.photometric[job.index] = url
        } failed: { j, error in
            tally.fail(views[jobs[j].index].name, "photometric depth map failed: \(error)")
        }

        let photometric = tally.photometric.values
        var neighbours = [[Int]](repeating: [], count: views.count)
        for job in jobs { neighbours[job.index] = job.sources }
        var latest = PassMaps(urls: photometric,
                              entries: photometric.indices.map { photometric[$0] == nil ? nil : photometricEntryOf[$0] })
        // A room seen from inside: its envelope, from every photometric map together, stands in
        // the planar-prior pass for what each view finds of it alone.
        let envelope = patchMatch.planarPriors
            ? try workspace.roomEnvelope(depthMaps: photometric, seed: patchMatch.seed) : []
        let later: [PatchMatchProblem.Pass] = (patchMatch.planarPriors ? [.planarPrior] : [])
            + (options.geometricPass ? [.geometric] : [])
        for pass in later {
            latest = try laterPass(pass, after: latest, jobs: jobs, views: views, options: patchMatch,
                                   optionsKey: String(describing: keyed), envelope: pass == .planarPrior ? envelope : [],
                                   workspace: workspace, store: store, counter: counter, tally: tally)
        }
        skipped += tally.failures
        return DepthMapFiles(photometric: photometric, fused: latest.urls, fusedEntries: latest.entries,
                             neighbours: neighbours, envelope: envelope, computed: tally.computed,
                             reused: tally.reused)
    }

    /// One pass's maps by workspace index, and the manifest entries they were made from.
    struct PassMaps {
        var urls: [URL?]
        var entries: [DenseManifest.Entry?]
    }

    /// The planar-prior or geometric pass over every job that has a map from the pass before:
    /// each starts from its own map of that pass and reads its sources' maps of it.
    func laterPass(_ pass: PatchMatchProblem.Pass, after previous: PassMaps, jobs: [DepthJob], views: [PreparedView],
                   options patchMatch: PatchMatchOptions, optionsKey: String, envelope: [WorldPlane],
                   workspace: MVSWorkspace,
                   store: ManifestStore, counter: ProgressCounter, tally: Tally) throws -> PassMaps {
        let name = pass == .geometric ? "geometric" : "planar"
        let urls = ResultSlots<URL>(count: views.count)
        let entries = ResultSlots<DenseManifest.Entry>(count: views.count)
        try runJobs(jobs.indices, counter: counter) { j in
            let job = jobs[j]
            guard let own = previous.urls[job.index] else { return }
            var hash = StableHash()
            hash.add(name)
            hash.add(optionsKey)
            hash.add("envelope \(envelope.count)")
            var values = envelope.flatMap { [$0.normal.x, $0.normal.y, $0.normal.z, $0.offset] }
            for index in [job.index] + job.sources {
                let entry = previous.urls[index] == nil ? nil : previous.entries[index]
                hash.add(entry?.key ?? "none")
                values += entry?.values ?? []
            }
            let entry = DenseManifest.Entry(key: hash.hex, values: values)
            let url = depthFolder.appendingPathComponent(views[job.index].flatName + ".\(name).cvdm")
            try produce(url, entry: entry, store: store, tally: tally) {
                let problem = PatchMatchProblem(reference: job.index, sources: job.sources, depthRange: job.depthRange,
                                                pointsInWorld: job.pointsInWorld, pass: pass,
                                                previousDepth: own, sourceDepths: job.sources.map { previous.urls[$0] },
                                                envelope: envelope)
                try workspace.computeDepthMap(problem, options: patchMatch, output: url)
            }
            urls[job.index] = url
            entries[job.index] = entry
        } failed: { j, error in
            tally.fail(views[jobs[j].index].name, "\(name) depth map failed: \(error)")
        }
        return PassMaps(urls: urls.values, entries: entries.values)
    }

    /// Step 5: fuses the depth maps (``DepthMapFiles/fused``, and the sensor's) into the cloud, or
    /// reuses the cloud when no depth map changed and the fusion's inputs are the same.
    func fuse(_ maps: DepthMapFiles, sensor: SensorDepthMaps?, views: [PreparedView], workspace: MVSWorkspace,
              store: ManifestStore) throws -> (points: Int, sensorPoints: Int, reused: Bool) {
        let available = maps.fused.compactMap { $0 }.count
        guard available > 0 else {
            throw DenseReconstructionError("no depth map could be computed")
        }
        var keyed = options.fusion
        keyed.numThreads = 0
        var hash = StableHash()
        hash.add("fusion")
        hash.add(String(describing: keyed))
        hash.add(cloudURL.lastPathComponent)
        hash.add(lengthUnit.rawValue)
        for (index, view) in views.enumerated() {
            hash.add(view.name)
            hash.add(maps.fusedEntries[index]?.key ?? "none")
            hash.add(maps.neighbours[index].map(String.init).joined(separator: ","))
        }
        var values: [Double] = []
        if let sensor {
            hash.add("sensor")
            for (index, map) in sensor.maps.enumerated() {
                hash.add(map == nil ? "none" : sensor.entryKeys[index])
                values.append(map?.scale ?? 0)
            }
        }
        let entry = DenseManifest.Entry(key: hash.hex, values: values)
        let stage = "dense: fusion"
        if maps.computed == 0, let cloud = store.current.cloud, cloud.entry.matches(entry), Self.exists(cloudURL) {
            _ = progress?.update(stage: stage, done: 1, total: 1)
            return (cloud.points, cloud.sensorPoints ?? 0, true)
        }
        _ = progress?.update(stage: stage, done: 0, total: 1)
        let (points, sensorPoints) = try workspace.fuse(
            depthMaps: maps.fused, sensorDepths: sensor?.maps ?? [], neighbours: maps.neighbours,
            options: options.fusion, output: cloudURL,
            headerComment: "\(LengthUnit.metadataKey) \(lengthUnit.rawValue)")
        guard points > 0 else {
            // An empty cloud is no result: leave no file that looks like one.
            try? FileManager.default.removeItem(at: cloudURL)
            throw DenseReconstructionError("no point is seen consistently by \(options.fusion.minNumViews) views "
                + "in \(available) depth maps")
        }
        try store.update { $0.cloud = DenseManifest.Cloud(entry: entry, points: points, sensorPoints: sensorPoints) }
        if progress?.update(stage: stage, done: 1, total: 1) == false { throw PipelineError.cancelled }
        return (points, sensorPoints, false)
    }

    /// Runs `body` for each job (`concurrency` at a time, by default ``DenseOptions/concurrentImages``)
    /// and counts it done; a job that throws is handed to `failed` and the others go on. Stops
    /// early on a cancel.
    func runJobs(_ jobs: Range<Int>, concurrency: Int? = nil, counter: ProgressCounter, _ body: (Int) throws -> Void,
                 failed: (Int, Error) -> Void) throws {
        let exhaustion = FirstError()
        parallelFor(jobs.count, threads: concurrency ?? options.concurrentImages) { j in
            guard (try? counter.checkCancelled()) != nil, !exhaustion.isSet else { return }
            do {
                try body(jobs.lowerBound + j)
            } catch where error.isResourceExhaustion {
                exhaustion.set(error)
            } catch {
                failed(jobs.lowerBound + j, error)
            }
            counter.step()
        }
        try exhaustion.rethrow()
        try counter.checkCancelled()
    }

    /// Reuses `url` when the manifest records it with a matching entry, else makes it and records it.
    func produce(_ url: URL, entry: DenseManifest.Entry, store: ManifestStore, tally: Tally,
                 make: () throws -> Void) throws {
        let name = url.lastPathComponent
        if let stored = store.current.depthMaps[name], stored.matches(entry), Self.exists(url) {
            tally.count(reused: true)
            return
        }
        try make()
        try store.update { $0.depthMaps[name] = entry }
        tally.count(reused: false)
    }

    /// A view's pose as numbers (rotation row-major, then translation), for manifest entries.
    static func poseValues(_ view: MVSView) -> [Double] {
        let t = view.camFromWorld.translation
        return view.camFromWorld.rotation.rowMajor + [t.x, t.y, t.z]
    }

    /// What concurrent depth-map jobs produce, by workspace index.
    final class Tally: @unchecked Sendable {
        let photometric: ResultSlots<URL>
        private let lock = NSLock()
        private(set) var computed = 0
        private(set) var reused = 0
        private(set) var failures: [RejectedImage] = []

        package init(count: Int) {
            photometric = ResultSlots(count: count)
        }

        package func count(reused wasReused: Bool) {
            lock.lock()
            if wasReused { reused += 1 } else { computed += 1 }
            lock.unlock()
        }

        package func fail(_ name: String, _ reason: String) {
            lock.lock()
            failures.append(RejectedImage(name: name, reason: reason))
            lock.unlock()
        }
    }
}
