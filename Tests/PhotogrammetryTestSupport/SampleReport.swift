import Foundation
import PhotogrammetryCore

/// A hand-built orbit report: 9 registered cameras on a ring, 1 unregistered, 2 rejected.
package func makeSampleReport() -> Report {
    var report = Report()
    report.imagesTotal = 12
    report.imagesRegistered = 9
    report.alignmentRatio = 0.9
    report.meanReprojectionErrorPx = 0.61
    report.meanReprojectionErrorPerPointPx = 0.57
    report.points3D = 12_345
    report.meanTrackLength = 4.2
    report.captureKind = "orbit"
    report.upSource = "camera up vectors"
    report.azimuthCoverageDeg = 320
    report.elevationSpreadDeg = 25
    report.blurFloor = 0.35
    report.blurFloorFraction = 0.3
    report.staticFeaturesDiscarded = 0
    report.rejectedImages = [RejectedImage(name: "IMG_0010.jpg", reason: "blurry (0.2 < floor 0.35)"),
                             RejectedImage(name: "IMG_0011.heic", reason: "unreadable")]
    report.unregisteredImages = ["IMG_0009.jpg"]
    for index in 0..<9 {
        let azimuth = Double(index) * 40
        let angle = azimuth * .pi / 180
        var image = ReportImage(name: index == 4 ? "<b>\"Tom & Jerry's\".jpg" : "IMG_000\(index).jpg",
                                status: "registered")
        image.features = 4000 + index * 100
        image.blurScore = 1.0 + Double(index) * 0.01
        image.azimuthDeg = azimuth
        image.elevationDeg = 10 + Double(index % 3) * 12.5
        image.centerTop = [3 * cos(angle), 3 * sin(angle)]
        image.directionTop = [-cos(angle) * 0.9, -sin(angle) * 0.9]
        report.images.append(image)
    }
    var unregistered = ReportImage(name: "IMG_0009.jpg", status: "unregistered", reason: "too few matches")
    unregistered.features = 150
    unregistered.blurScore = 0.9
    var blurry = ReportImage(name: "IMG_0010.jpg", status: "rejected", reason: "blurry (0.2 < floor 0.35)")
    blurry.blurScore = 0.2
    report.images += [unregistered, blurry, ReportImage(name: "IMG_0011.heic", status: "rejected", reason: "unreadable")]
    var sectors = [[Int]](repeating: [Int](repeating: 0, count: 16), count: 2)
    for image in report.images {
        guard let azimuth = image.azimuthDeg, let elevation = image.elevationDeg else { continue }
        sectors[elevation >= ReportImage.upperRingElevationDeg ? 1 : 0][Int(azimuth / 22.5) % 16] += 1
    }
    report.coverageSectors = sectors
    report.advice = ["Walk the rest of the circle: 40° from azimuth 320° is missing.",
                     "Frames <IMG_0010> were blurry & were dropped."]
    report.stages = [.init(name: "ingest", seconds: 0.4), .init(name: "features", seconds: 12.5),
                     .init(name: "matching", seconds: 7.25), .init(name: "sparse", seconds: 64)]
    return report
}
