// swift-tools-version:5.9
import PackageDescription

/// C++ flags for the CVision core. The hot kernels (descriptor matching, cost functions) are
/// always optimised, also in debug builds, so that tests run at a useful speed.
let cxxFlags: [String] = [
    "-O3", "-march=native", "-fno-math-errno",
    "-I/usr/include/opencv4", "-I/usr/include/eigen3",
]

/// C++ flags for the CVisionMesh core. Debian's Open3D is built for baseline x86-64: a file that
/// includes its headers must not use -march=native, or Eigen's alignment differs across the
/// library boundary and Open3D's objects are corrupted.
let meshCxxFlags: [String] = [
    "-O2", "-fno-math-errno",
    "-I/usr/include/eigen3", "-isystem", "/usr/include/open3d/3rdparty",
    "-D_GLIBCXX_USE_CXX11_ABI=1", "-DFMT_SHARED",
]

/// Swift flags of the library layers. The layers call each other's small value types (`Rigid3`,
/// `Matrix3`, camera projections) in hot loops; cross-module optimisation lets the compiler inline
/// and specialise them across the target boundaries, as it did when they were one module.
let layerSwiftSettings: [SwiftSetting] = [
    .unsafeFlags(["-cross-module-optimization"], .when(configuration: .release)),
]

let package = Package(
    name: "Photogrammetry",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "photogrammetry", targets: ["photogrammetry"]),
        .library(name: "PhotogrammetryKit", targets: ["PhotogrammetryKit"]),
    ],
    targets: [
        .target(
            name: "CVision",
            path: "CVision",
            sources: ["src"],
            publicHeadersPath: "include",
            cxxSettings: [.unsafeFlags(cxxFlags)],
            linkerSettings: [
                .linkedLibrary("opencv_core"), .linkedLibrary("opencv_imgproc"),
                .linkedLibrary("opencv_imgcodecs"), .linkedLibrary("opencv_features2d"),
                .linkedLibrary("opencv_calib3d"), .linkedLibrary("opencv_flann"),
                .linkedLibrary("opencv_video"), .linkedLibrary("opencv_videoio"),
                .linkedLibrary("opencv_aruco"),
                .linkedLibrary("ceres"), .linkedLibrary("glog"),
                .linkedLibrary("exif"), .linkedLibrary("archive"), .linkedLibrary("heif"),
                .linkedLibrary("jpeg"), .linkedLibrary("png"),
                .linkedLibrary("embree3"),
                .linkedLibrary("stdc++"),
            ]
        ),
        .target(
            name: "CVisionMesh",
            dependencies: ["CVision"],
            path: "CVisionMesh",
            sources: ["src"],
            publicHeadersPath: "include",
            cxxSettings: [.unsafeFlags(meshCxxFlags)],
            linkerSettings: [
                .linkedLibrary("Open3D"), .linkedLibrary("meshoptimizer"), .linkedLibrary("stdc++"),
            ]
        ),
        // The Swift layers, each importing only those above it in this list; the compiler
        // enforces it (a target sees only the modules it depends on), and scripts/test builds
        // with --explicit-target-dependency-import-check so an undeclared import fails too.
        .target(
            name: "PhotogrammetryCore",
            path: "Sources/PhotogrammetryCore",
            swiftSettings: layerSwiftSettings
        ),
        .target(
            name: "PhotogrammetryBridge",
            dependencies: ["PhotogrammetryCore", "CVision", "CVisionMesh"],
            path: "Sources/PhotogrammetryBridge",
            swiftSettings: layerSwiftSettings
        ),
        .target(
            name: "PhotogrammetryIO",
            dependencies: ["PhotogrammetryCore", "PhotogrammetryBridge"],
            path: "Sources/PhotogrammetryIO",
            swiftSettings: layerSwiftSettings
        ),
        .target(
            name: "PhotogrammetrySparse",
            dependencies: ["PhotogrammetryCore", "PhotogrammetryBridge", "PhotogrammetryIO"],
            path: "Sources/PhotogrammetrySparse",
            swiftSettings: layerSwiftSettings
        ),
        .target(
            name: "PhotogrammetryDense",
            dependencies: ["PhotogrammetryCore", "PhotogrammetryBridge", "PhotogrammetryIO", "PhotogrammetrySparse"],
            path: "Sources/PhotogrammetryDense",
            swiftSettings: layerSwiftSettings
        ),
        .target(
            name: "PhotogrammetryKit",
            dependencies: ["PhotogrammetryCore", "PhotogrammetryBridge", "PhotogrammetryIO",
                           "PhotogrammetrySparse", "PhotogrammetryDense"],
            path: "Sources/PhotogrammetryKit",
            swiftSettings: layerSwiftSettings
        ),
        .executableTarget(
            name: "photogrammetry",
            dependencies: ["PhotogrammetryCore", "PhotogrammetryIO", "PhotogrammetrySparse",
                           "PhotogrammetryDense", "PhotogrammetryKit"],
            path: "Sources/photogrammetry"
        ),
        // Tests by layer: each layer's tests see that layer and those above it in the list.
        .target(
            name: "PhotogrammetryTestSupport",
            dependencies: ["PhotogrammetryCore", "PhotogrammetryBridge"],
            path: "Tests/PhotogrammetryTestSupport"
        ),
        .testTarget(
            name: "PhotogrammetryCoreTests",
            dependencies: ["PhotogrammetryCore", "PhotogrammetryTestSupport"],
            path: "Tests/PhotogrammetryCoreTests"
        ),
        .testTarget(
            name: "PhotogrammetryBridgeTests",
            dependencies: ["PhotogrammetryCore", "PhotogrammetryBridge", "PhotogrammetryTestSupport"],
            path: "Tests/PhotogrammetryBridgeTests"
        ),
        .testTarget(
            name: "PhotogrammetryIOTests",
            dependencies: ["PhotogrammetryCore", "PhotogrammetryBridge", "PhotogrammetryIO", "PhotogrammetryTestSupport"],
            path: "Tests/PhotogrammetryIOTests"
        ),
        .testTarget(
            name: "PhotogrammetrySparseTests",
            dependencies: ["PhotogrammetryCore", "PhotogrammetryBridge", "PhotogrammetryIO", "PhotogrammetrySparse", "PhotogrammetryTestSupport"],
            path: "Tests/PhotogrammetrySparseTests"
        ),
        .testTarget(
            name: "PhotogrammetryDenseTests",
            dependencies: ["PhotogrammetryCore", "PhotogrammetryBridge", "PhotogrammetryIO", "PhotogrammetrySparse", "PhotogrammetryDense", "PhotogrammetryTestSupport"],
            path: "Tests/PhotogrammetryDenseTests"
        ),
        .testTarget(
            name: "PhotogrammetryKitTests",
            dependencies: ["PhotogrammetryCore", "PhotogrammetryBridge", "PhotogrammetryIO", "PhotogrammetrySparse", "PhotogrammetryDense", "PhotogrammetryKit", "PhotogrammetryTestSupport"],
            path: "Tests/PhotogrammetryKitTests"
        ),
    ],
    cxxLanguageStandard: .cxx17
)
