import Foundation

/// An image left out, with the reason, as `rejected_images` in the report.
public struct RejectedImage: Codable, Sendable, Equatable {
    public var name: String
    public var reason: String
    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }
}
