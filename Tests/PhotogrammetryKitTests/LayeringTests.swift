import Foundation
import XCTest
import PhotogrammetryTestSupport

/// The Swift targets are layers: each imports only the layers before it in ``layers``, and only
/// the bridge imports the C++ core. SwiftPM already refuses a cycle and `scripts/test` builds with
/// `--explicit-target-dependency-import-check error`; this test names the file that breaks the
/// order even when a build happened to find the module.
final class LayeringTests: XCTestCase {
    static let layers = ["PhotogrammetryCore", "PhotogrammetryBridge", "PhotogrammetryIO",
                         "PhotogrammetrySparse", "PhotogrammetryDense", "PhotogrammetryKit", "photogrammetry"]
    static let cTargets: Set<String> = ["CVision", "CVisionMesh"]

    func testEachLayerImportsOnlyTheLayersBeforeIt() throws {
        var files = 0
        for (rank, layer) in Self.layers.enumerated() {
            let folder = Repository.root.appendingPathComponent("Sources/\(layer)")
            let enumerator = try XCTUnwrap(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
            for case let url as URL in enumerator where url.pathExtension == "swift" {
                files += 1
                let text = try String(contentsOf: url, encoding: .utf8)
                for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@testable import ") {
                    let module = String(line.split(separator: " ").last!)
                    let file = url.path.replacingOccurrences(of: Repository.root.path + "/", with: "")
                    if let other = Self.layers.firstIndex(of: module) {
                        XCTAssertLessThan(other, rank, "\(file) imports \(module), a layer above or beside it")
                    }
                    if Self.cTargets.contains(module) {
                        XCTAssertEqual(layer, "PhotogrammetryBridge", "\(file) imports \(module): only the bridge may")
                    }
                    XCTAssertFalse(line.hasPrefix("@testable"), "\(file): @testable import outside the tests")
                }
            }
        }
        XCTAssertGreaterThan(files, 200, "the Sources folders were not found")
    }

    /// A test target sees only its own layer and those before it.
    func testEachLayersTestsImportOnlyThatLayerAndThoseBefore() throws {
        for (rank, layer) in Self.layers.enumerated() where rank < Self.layers.count - 1 {
            let folder = Repository.root.appendingPathComponent("Tests/\(layer)Tests")
            let enumerator = try XCTUnwrap(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
            for case let url as URL in enumerator where url.pathExtension == "swift" {
                let text = try String(contentsOf: url, encoding: .utf8)
                for line in text.split(separator: "\n") where line.contains("import ") && !line.contains("//") {
                    guard let module = line.split(separator: " ").last.map(String.init),
                          let other = Self.layers.firstIndex(of: module) else { continue }
                    XCTAssertLessThanOrEqual(other, rank, "\(url.lastPathComponent) imports \(module)")
                }
            }
        }
    }
}
