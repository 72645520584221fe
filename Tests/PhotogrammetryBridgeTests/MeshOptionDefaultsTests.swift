import CVisionMesh
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
import PhotogrammetryTestSupport

/// The mesh core's option defaults, pinned to literals written here: changing one in
/// `cvis_*_options_default` (or in a Swift struct) fails a test.
final class MeshOptionDefaultsTests: XCTestCase {
    func testPoissonDefaults() {
        let o = PoissonOptions()
        XCTAssertEqual(o.depth, 8)
        XCTAssertEqual(o.scale, 1.1)
        XCTAssertFalse(o.linearFit)
        XCTAssertEqual(o.numThreads, 2)
    }

    func testTrimDefaults() {
        let o = TrimOptions()
        XCTAssertEqual(o.densityQuantile, 0.05)
        XCTAssertEqual(o.densityMedianRatio, 0.5)
        XCTAssertEqual(o.maxDistanceSpacings, 2)
        XCTAssertNil(o.box)
        var trim = cvis_trim_options()
        cvis_trim_options_default(&trim)
        XCTAssertEqual(trim.use_box, 0)
    }

    func testCleanAndSimplifyDefaults() {
        XCTAssertEqual(CleanOptions().minComponentFraction, 0.02)
        XCTAssertEqual(SimplifyOptions().targetError, 1)
    }

    func testAlignmentDefaults() {
        let o = AlignmentOptions()
        XCTAssertEqual(o.samples, 200_000)
        XCTAssertEqual(o.startDistance, 0.05)
        XCTAssertEqual(o.endDistance, 0.005)
        XCTAssertTrue(o.withScale)
        // No Swift property carries the iterations per round.
        var align = cvis_align_options()
        cvis_align_options_default(&align)
        XCTAssertEqual(align.max_iterations, 50)
    }

    func fields<T>(_ value: T) -> [String: String] {
        Dictionary(uniqueKeysWithValues: Mirror(reflecting: value).children.map { ($0.label ?? "?", "\($0.value)") })
    }

    /// A default Swift struct hands every field of the C default across the boundary unchanged
    /// (the values themselves are pinned above).
    func testSwiftStructsHandTheCoreDefaultsToC() {
        var poisson = cvis_poisson_options(), trim = cvis_trim_options(), clean = cvis_clean_options()
        var simplify = cvis_simplify_options(), align = cvis_align_options()
        cvis_align_options_default(&align)
        cvis_poisson_options_default(&poisson)
        cvis_trim_options_default(&trim)
        cvis_clean_options_default(&clean)
        cvis_simplify_options_default(&simplify)
        for (swift, core, what) in [(fields(PoissonOptions().cOptions()), fields(poisson), "Poisson"),
                                    (fields(TrimOptions().cOptions()), fields(trim), "trim"),
                                    (fields(CleanOptions().cOptions()), fields(clean), "clean"),
                                    (fields(SimplifyOptions().cOptions()), fields(simplify), "simplify"),
                                    (fields(AlignmentOptions().cOptions), fields(align), "alignment")] {
            XCTAssertFalse(core.isEmpty, what)
            XCTAssertEqual(swift, core, what)
        }
        XCTAssertTrue(String(cString: cvis_mesh_version_string()).hasPrefix("Open3D 0.16"))
    }
}
