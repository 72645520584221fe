import CVisionMesh
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
import PhotogrammetryTestSupport

/// The mesh core's option defaults are written once, in `cvis_*_options_default`: the Swift
/// structs made with `init()` hand exactly those values back.
final class MeshOptionDefaultsTests: XCTestCase {
    func fields<T>(_ value: T) -> [String: String] {
        Dictionary(uniqueKeysWithValues: Mirror(reflecting: value).children.map { ($0.label ?? "?", "\($0.value)") })
    }

    func testSwiftDefaultsAreTheCoreDefaults() {
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
        XCTAssertNil(TrimOptions().box)
        XCTAssertEqual(trim.use_box, 0)
        XCTAssertTrue(String(cString: cvis_mesh_version_string()).hasPrefix("Open3D 0.16"))
    }
}
