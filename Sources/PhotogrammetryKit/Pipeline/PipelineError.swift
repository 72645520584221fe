/// Why a pipeline run stopped; each case prints as one line that says what and where.
public enum PipelineError: Error, CustomStringConvertible, Equatable {
    case invalidOption(String)
    case invalidInput(String)
    case tooFewImages(usable: Int, required: Int, input: String)
    case noInitialPair
    case cancelled
    case io(String)

    public var description: String {
        switch self {
        case .invalidOption(let what): return "invalid option: \(what)"
        case .invalidInput(let what): return what
        case .tooFewImages(let usable, let required, let input):
            return "\(input): \(usable) usable image\(usable == 1 ? "" : "s"), at least \(required) needed"
        case .noInitialPair:
            return "no image pair with enough matches and parallax to start the reconstruction"
        case .cancelled: return "cancelled"
        case .io(let what): return what
        }
    }
}
