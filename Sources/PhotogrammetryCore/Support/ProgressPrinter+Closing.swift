import Foundation

/// A run's last line: one `finished`, `failed` or `interrupted` event, so that a program
/// reading the lines can tell a finished run from one that died without the exit code.
extension ProgressPrinter {
    /// How a run ended.
    public enum Closing: Sendable {
        /// The run wrote its outputs: "complete", or "incomplete" when a later stage failed but
        /// the earlier outputs stand (never closed this way: that run fails).
        case finished(RunOutcome)
        /// The run failed; the error line the command prints.
        case failed(String)
        /// SIGINT or SIGTERM ended the run; the line the command prints.
        case interrupted(signal: Int32, message: String)
    }

    /// What a finished run made: its files and the report's headline figures.
    public struct RunOutcome: Sendable {
        /// "complete" (every output the options ask for) or "incomplete".
        public var status: String
        /// Each output by name ("report_html", "model_glb", ...) with its path.
        public var outputs: [String: String]
        public var figures: RunFigures

        public init(status: String, outputs: [String: String], figures: RunFigures) {
            self.status = status
            self.outputs = outputs
            self.figures = figures
        }
    }

    /// The report's headline figures in a `finished` line, under report.json's names; a figure
    /// the command does not have (`mesh` registers no images) is left out.
    public struct RunFigures: Encodable, Sendable, Equatable {
        public var imagesRegistered: Int?
        public var imagesTotal: Int?
        /// The capture verdict's level: good, fair, poor, unreliable or failed.
        public var verdict: String?
        /// Over the largest model's observations, pixels.
        public var meanReprojectionErrorPx: Double?
        public var triangles: Int?

        public init(imagesRegistered: Int? = nil, imagesTotal: Int? = nil, verdict: String? = nil,
                    meanReprojectionErrorPx: Double? = nil, triangles: Int? = nil) {
            self.imagesRegistered = imagesRegistered
            self.imagesTotal = imagesTotal
            self.verdict = verdict
            self.meanReprojectionErrorPx = meanReprojectionErrorPx
            self.triangles = triangles
        }

        enum CodingKeys: String, CodingKey {
            case imagesRegistered = "images_registered", imagesTotal = "images_total", verdict
            case meanReprojectionErrorPx = "mean_reprojection_error_px", triangles
        }
    }

    /// The closing line: the event's code, name and severity as a note has them, the message,
    /// and what the kind of ending adds.
    struct ClosingLine: Encodable {
        var closing: Closing
        var seconds: Double

        var event: PipelineEvent {
            switch closing {
            case .finished: .finished
            case .failed: .failed
            case .interrupted: .interrupted
            }
        }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(event.name, forKey: .event)
            try container.encode(event.code, forKey: .code)
            try container.encode(event.severity.rawValue, forKey: .severity)
            try container.encode(seconds, forKey: .seconds)
            switch closing {
            case .finished(let outcome):
                try container.encode("\(outcome.status) in \(ProgressPrinter.durationText(seconds))", forKey: .message)
                try container.encode(outcome.status, forKey: .status)
                try container.encode(outcome.outputs, forKey: .outputs)
                try container.encode(outcome.figures, forKey: .report)
            case .failed(let message):
                try container.encode(message, forKey: .message)
            case .interrupted(let signal, let message):
                try container.encode(message, forKey: .message)
                try container.encode(Interruption.name(of: signal), forKey: .signal)
                try container.encode(Interruption.exitStatus(for: signal), forKey: .exitStatus)
            }
        }

        enum CodingKeys: String, CodingKey {
            case event, code, severity, seconds, message, status, outputs, report, signal, exitStatus = "exit_status"
        }
    }

    /// Writes the run's closing line (JSON; on a terminal, a finished run's time) and then
    /// nothing more: later calls to close, progress and events are dropped, and ``update``
    /// returns false. The first call wins: a failure after an interruption stays an interruption.
    public func close(_ closing: Closing) {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosed else { return }
        heartbeat?.cancel()
        heartbeat = nil
        let seconds = Self.now() - started
        switch mode {
        case .tty:
            // A failure's and an interruption's line is the command's own.
            if case .finished(let outcome) = closing {
                writeTerminal("\r\u{1B}[2K\(outcome.status) in \(Self.durationText(seconds))\n")
            }
        case .json:
            emit(ClosingLine(closing: closing, seconds: Self.thousandths(seconds)))
        case .none: break
        }
        isClosed = true
    }

    /// Whether the closing line has been written.
    public var closed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isClosed
    }

    /// "8.2 s", "3 min 20 s", "1 h 05 min".
    static func durationText(_ seconds: Double) -> String {
        seconds < 60 ? String(format: "%.1f s", seconds) : String(etaText(seconds).dropFirst("eta ".count))
    }
}
