import Foundation
import PhotogrammetryKit
import PhotogrammetrySparse

/// `photogrammetry compare MODEL REFERENCE`: pose accuracy against a reference model, as JSON.
enum CompareCommand {
    static func run(_ arguments: [String]) throws {
        let parsed = try CommandSpec.compare.parse(arguments)
        guard parsed.positionals.count == 2 else {
            throw ArgumentParser.Failure(description: "compare takes MODEL and REFERENCE (COLMAP model folders, text or binary)")
        }
        let comparison = try comparePoses(model: URL(fileURLWithPath: parsed.positionals[0]),
                                          reference: URL(fileURLWithPath: parsed.positionals[1]))
        print(try comparison.jsonString())
    }
}
