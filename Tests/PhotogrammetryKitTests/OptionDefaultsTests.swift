import CVision
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Each option default is written once, in the C core's `cvis_*_options_default`: a Swift
/// options struct made with `init()` hands exactly those values back across the C boundary.
final class OptionDefaultsTests: XCTestCase {
    /// Every field of a C struct, by name, as text.
    func fields<T>(_ value: T) -> [String: String] {
        Dictionary(uniqueKeysWithValues: Mirror(reflecting: value).children.map { ($0.label ?? "?", "\($0.value)") })
    }

    func assertSame<T>(_ swift: T, _ core: T, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let a = fields(swift), b = fields(core)
        XCTAssertFalse(b.isEmpty, "\(what): no fields reflected", file: file, line: line)
        XCTAssertEqual(a, b, what, file: file, line: line)
    }

    func testSwiftDefaultsAreTheCoreDefaults() {
        var sift = cvis_sift_options(), match = cvis_match_options(), pose = cvis_absolute_pose_options()
        var triangulation = cvis_triangulation_options(), twoView = cvis_two_view_options(), fusion = cvis_fusion_options()
        var bundle = cvis_ba_options(), texture = cvis_texture_options(), patchMatch = cvis_patch_match_options()
        cvis_patch_match_options_default(&patchMatch)
        cvis_texture_options_default(&texture)
        cvis_ba_options_default(&bundle)
        cvis_sift_options_default(&sift)
        cvis_match_options_default(&match)
        cvis_absolute_pose_options_default(&pose)
        cvis_triangulation_options_default(&triangulation)
        cvis_two_view_options_default(&twoView)
        cvis_fusion_options_default(&fusion)
        assertSame(SIFTOptions().cOptions(), sift, "SIFT")
        assertSame(MatchOptions().cOptions(), match, "descriptor matching")
        assertSame(AbsolutePoseEstimator.Options().cOptions, pose, "absolute pose")
        assertSame(Triangulator.Options().cOptions(), triangulation, "triangulation")
        assertSame(TwoViewOptions().cOptions(), twoView, "two-view geometry")
        assertSame(FusionOptions().cOptions(), fusion, "fusion")
        assertSame(BundleAdjustmentOptions().cOptions, bundle, "bundle adjustment")
        assertSame(TextureOptions().cOptions, texture, "texturing")
        assertSame(PatchMatchOptions().cOptions, patchMatch, "PatchMatch")
        XCTAssertEqual(SIFTOptions.workingFeatureCount, 500, "the working count the README explains")
    }

    func testInputLimitsAreTheCoreDefaults() {
        var decode = cvis_decode_limits(), unzip = cvis_unzip_limits()
        cvis_decode_limits_default(&decode)
        cvis_unzip_limits_default(&unzip)
        assertSame(DecodeLimits().cLimits, decode, "decode limits")
        assertSame(UnzipLimits().cLimits(), unzip, "unzip limits")
        XCTAssertEqual(ReconstructionOptions().decodeLimits, DecodeLimits())
        XCTAssertEqual(DecodeLimits().maxMegapixels, 120, "the limit the README gives")
    }
}
