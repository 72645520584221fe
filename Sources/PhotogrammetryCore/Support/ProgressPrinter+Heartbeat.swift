import Foundation

/// Heartbeats: a stage that says nothing for ``ProgressPrinter/heartbeatSeconds`` (one blocking
/// call into the core: Poisson, a bundle adjustment, a fusion) gets a line all the same, with
/// the seconds it has run, the silent step it is in and that step's estimate when it has one,
/// so a person sees it is alive and a program watching can tell a slow stage from a hung one.
extension ProgressPrinter {
    /// A running stage silent this long gets a heartbeat line (and again as long as it stays silent).
    public static let heartbeatSeconds = 3.0

    /// A `--progress json` heartbeat line.
    struct HeartbeatLine: Encodable {
        var stage: String
        var index: Int?
        var count: Int?
        /// Seconds since the stage started.
        var elapsedSeconds: Double
        /// The silent step the stage is in ("poisson"), or nil.
        var step: String?
        /// Seconds the step has run, and the estimate of what it takes in all (nil: none).
        var stepElapsedSeconds: Double?
        var stepEstimateSeconds: Double?
        var runEtaSeconds: Double?
        /// The same for people; an estimate is called one.
        var message: String

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("heartbeat", forKey: .event)
            try container.encode(stage, forKey: .stage)
            // Present as null, not left out: a reader can rely on the keys.
            try container.encode(index, forKey: .index)
            try container.encode(count, forKey: .count)
            try container.encode(elapsedSeconds, forKey: .elapsedSeconds)
            try container.encode(step, forKey: .step)
            try container.encode(stepElapsedSeconds, forKey: .stepElapsedSeconds)
            try container.encode(stepEstimateSeconds, forKey: .stepEstimateSeconds)
            try container.encode(runEtaSeconds, forKey: .runEtaSeconds)
            try container.encode(message, forKey: .message)
        }

        enum CodingKeys: String, CodingKey {
            case event, stage, index, count, elapsedSeconds = "elapsed_s", step, stepElapsedSeconds = "step_elapsed_s"
            case stepEstimateSeconds = "step_estimate_s", runEtaSeconds = "run_eta_s", message
        }
    }

    /// Starts the timer that checks for silence every second, once (under the lock).
    func startHeartbeat() {
        guard mode != .none, heartbeat == nil, !isClosed else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in self?.beat() }
        timer.resume()
        heartbeat = timer
    }

    /// Writes a heartbeat when the running stage has been silent for ``heartbeatSeconds``.
    func beat() {
        lock.lock()
        defer { lock.unlock() }
        let now = Self.now()
        guard !isClosed, let running, now - lastLineAt >= Self.heartbeatSeconds else { return }
        let line = heartbeatLine(running.stage, stageElapsed: now - running.started, now: now)
        switch mode {
        case .tty:
            let parts = [running.stage, line.message, runETAText(line.runEtaSeconds)].filter { !$0.isEmpty }
            writeTerminal("\r\u{1B}[2K" + stageNumberText + parts.joined(separator: "  "))
        case .json:
            emit(line)
        case .none: break
        }
    }

    /// The heartbeat of `stage`, running for `stageElapsed` seconds (under the lock).
    func heartbeatLine(_ stage: String, stageElapsed: Double, now: Double) -> HeartbeatLine {
        let stepElapsed = silentStep.map { now - $0.started }
        var message = "working, \(Int(stageElapsed)) s"
        if let silentStep, let stepElapsed {
            message = "\(silentStep.name): \(Int(stepElapsed)) s"
            if let estimate = silentStep.estimate {
                let about = "about \(Int(estimate.rounded(.up))) s"
                // The estimate is an idle machine's; other work on the cores makes the call longer.
                message += stepElapsed <= estimate ? " of \(about) (an estimate)"
                    : ", past the estimate of \(about) on an idle machine (a busy one takes longer)"
            }
        }
        return HeartbeatLine(stage: stage, index: runPlan?.index, count: runPlan?.count,
                             elapsedSeconds: Self.tenths(stageElapsed)!, step: silentStep?.name,
                             stepElapsedSeconds: Self.tenths(stepElapsed), stepEstimateSeconds: Self.tenths(silentStep?.estimate),
                             runEtaSeconds: Self.tenths(runRemainingSeconds(now: now)), message: message)
    }
}
