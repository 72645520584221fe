/// Why a pipeline run stopped; each case prints as one line that says what and where.
public enum PipelineError: Error, CustomStringConvertible, Equatable {
    case invalidOption(String)
    case invalidInput(String)
    /// Below the minimum of usable images; `rejected` are the images left out with their
    /// reasons, `report` the `report.json` that lists them (nil when none was kept).
    case tooFewImages(usable: Int, required: Int, input: String, rejected: [RejectedImage] = [], report: String? = nil)
    case noInitialPair
    case cancelled
    case io(String)
    /// The machine ran out of something the run needs (disk space, memory): not the input's
    /// fault, and not a reason to skip one image and go on.
    case exhausted(String)

    public var description: String {
        switch self {
        case .invalidOption(let what): return "invalid option: \(what)"
        case .invalidInput(let what): return what
        case .tooFewImages(let usable, let required, let input, let rejected, let report):
            let line = "\(input): \(usable) usable image\(usable == 1 ? "" : "s"), at least \(required) needed"
            if rejected.isEmpty { return line }
            if let report { return line + "; \(rejected.count) rejected, reasons in \(report)" }
            // No report to point at: the first reasons themselves.
            let shown = rejected.prefix(3).map { "\($0.name): \($0.reason)" }.joined(separator: "; ")
            return line + "; rejected " + shown + (rejected.count > 3 ? "; and \(rejected.count - 3) more" : "")
        case .noInitialPair:
            return "no image pair with enough matches and parallax to start the reconstruction"
        case .cancelled: return "cancelled"
        case .io(let what): return what
        case .exhausted(let what): return what
        }
    }
}
